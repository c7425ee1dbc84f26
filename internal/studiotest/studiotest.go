package studiotest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Binary finds victoria-logs on PATH or in GOPATH/bin; the test is
// skipped, saying how to install it, when it is missing.
func Binary(tb testing.TB) string {
	tb.Helper()
	if p, err := exec.LookPath("victoria-logs"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		if p := filepath.Join(home, "go", "bin", "victoria-logs"); fileExists(p) {
			return p
		}
	}
	if gp := os.Getenv("GOPATH"); gp != "" && fileExists(filepath.Join(gp, "bin", "victoria-logs")) {
		return filepath.Join(gp, "bin", "victoria-logs")
	}
	tb.Skip("victoria-logs not installed: CGO_ENABLED=0 go install github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs@v1.52.1")
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// Start starts a single-node VictoriaLogs and returns its base URL.
func Start(tb testing.TB) string {
	tb.Helper()
	bin := Binary(tb)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	dir := tb.TempDir()
	cmd := exec.Command(bin, "-storageDataPath="+filepath.Join(dir, "data"), "-httpListenAddr="+addr,
		"-retentionPeriod=100y", "-loggerLevel=ERROR")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	url := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url + "/health")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		select {
		case <-exited:
			tb.Fatalf("victoria-logs exited: %s", out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("victoria-logs did not answer /health within 30 s: %s", out.String())
		}
	}
}

// Row is a record as the forwarder sends it: the studio schema.
func Row(project, machine string, revision, seq uint64, r *oplog.Record, signature string) map[string]any {
	m := map[string]any{"project": project, "machine": machine, "source": r.Source, "_msg": r.Text,
		"_time": r.Time.UTC().Format(time.RFC3339Nano), "id": r.ID, "seq": seq, "revision": revision,
		"kind": r.Kind.String(), "level": r.Level.String()}
	for k, v := range map[string]string{"name": r.Name, "stack": r.Stack, "signature": signature, "tool": r.Tool,
		"status": r.Status.String()} {
		if v != "" {
			m[k] = v
		}
	}
	if r.Run != 0 {
		m["run"] = r.Run
	}
	var data map[string]any
	if json.Unmarshal(r.Data, &data) == nil {
		for k, v := range data {
			m["data."+k] = fmt.Sprint(v)
		}
	}
	return m
}

// Ingest sends rows to VictoriaLogs as JSON lines and flushes them, so
// that queries see them.
func Ingest(tb testing.TB, url string, rows []map[string]any) {
	tb.Helper()
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			tb.Fatal(err)
		}
	}
	post(tb, url+"/insert/jsonline?_stream_fields=project,machine,source", "application/stream+json", &body)
	resp, err := http.Get(url + "/internal/force_flush")
	if err != nil {
		tb.Fatal(err)
	}
	_ = resp.Body.Close()
}

func post(tb testing.TB, url, ctype string, body *bytes.Buffer) {
	tb.Helper()
	resp, err := http.Post(url, ctype, body)
	if err != nil {
		tb.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		tb.Fatalf("POST %s: %s", url, resp.Status)
	}
}

// Count asks VictoriaLogs directly how many rows q matches.
func Count(tb testing.TB, url, q string) int {
	tb.Helper()
	resp, err := http.PostForm(url+"/select/logsql/query", map[string][]string{"query": {q + " | stats count() as n"}})
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var r struct{ N string }
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		tb.Fatalf("count %s: %v", q, err)
	}
	n, _ := strconv.Atoi(r.N)
	return n
}
