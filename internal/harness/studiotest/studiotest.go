package studiotest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/vltest"
	"github.com/mcplogd/mcplogd/oplog"
)

// Start starts a single-node VictoriaLogs (internal/harness/vltest) and returns
// its base URL.
func Start(tb testing.TB) string {
	tb.Helper()
	return vltest.Start(tb).URL
}

// StartCluster starts two storage nodes behind one front (internal/harness/vltest)
// and returns the front's base URL.
func StartCluster(tb testing.TB) string {
	tb.Helper()
	return vltest.StartCluster(tb, 2).URL
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
	if r.IsComplete() && !r.EndTime.IsZero() {
		m["end_time"] = r.EndTime.UTC().Format(time.RFC3339Nano)
	}
	if t := oplog.RecordTemplate(r); t != "" {
		m["template"], m["template_text"] = oplog.TemplateID(t), t
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
