package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

type syncBuffer = logtest.Buffer

func newMain(stdout, stderr io.Writer, data string) *Main {
	return &Main{Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr,
		Getenv: func(k string) string {
			if k == "MCPLOGD_DATA" {
				return data
			}
			return ""
		}}
}

// run runs one command to completion and returns its standard output.
func run(t *testing.T, data string, args ...string) (string, error) {
	t.Helper()
	var out, errOut syncBuffer
	err := newMain(&out, &errOut, data).Run(context.Background(), args)
	if err != nil {
		return out.String(), fmt.Errorf("%w (stderr: %s)", err, errOut.String())
	}
	return out.String(), nil
}

// startServe runs serve in-process and returns its base URL and a stop
// function that waits for it to return.
func startServe(t *testing.T, data string, args ...string) (base string, stdout *syncBuffer, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout = &syncBuffer{}
	m := newMain(stdout, io.Discard, data)
	ready := make(chan string, 1)
	m.ready = func(u string) { ready <- u }
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, append([]string{"serve"}, args...)) }()
	select {
	case base = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("serve stopped at once: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("serve did not start")
	}
	var once sync.Once
	var serr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case serr = <-done:
			case <-time.After(20 * time.Second):
				serr = errors.New("serve did not stop")
			}
		})
		return serr
	}
	t.Cleanup(func() { _ = stop() })
	return base, stdout, stop
}

func post(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func readToken(t *testing.T, data string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestServe_NewUser walks docs/http-api.md: serve, fill it with curl's request,
// read it back with tail and show, restart on the same link.
func TestServe_NewUser(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, stdout, stop := startServe(t, data, "--addr", "127.0.0.1:0")
	token := readToken(t, data)
	link := base + "/mcp/" + token
	if _, err := os.Stat(filepath.Join(data, "starting")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the record of the server's start is there once it listens: %v", err)
	}
	if out := stdout.String(); !strings.Contains(out, "claude mcp add --transport http mcplogd "+link) {
		t.Fatalf("serve did not print the claude line with %s:\n%s", link, out)
	}
	code, body := post(t, base+"/api/v1/logs", token,
		`{"level":"info","name":"Player","text":"spawned"}`+"\n"+`{"level":"Exception","text":"NullReferenceException","stackTrace":"at Player.Update ()"}`)
	if code != 200 || !strings.Contains(body, `"ids":[1,2]`) {
		t.Fatalf("ingest: %d %s", code, body)
	}
	out, err := run(t, data, "tail")
	if err != nil || !strings.Contains(out, "#1 INFO  default/Player spawned") || !strings.Contains(out, "#2 ERROR default NullReferenceException") {
		t.Fatalf("tail through the server: %q, %v", out, err)
	}
	out, err = run(t, data, "show", "2")
	if err != nil || !strings.Contains(out, "Stack (1 frame)\n  at Player.Update ()\n") {
		t.Fatalf("show 2: %q, %v", out, err)
	}
	if out, err := run(t, data, "link"); err != nil || strings.TrimSpace(out) != link {
		t.Fatalf("link = %q, %v; want %s", out, err, link)
	}
	if err := stop(); err != nil {
		t.Fatalf("serve after cancel: %v", err)
	}
	if s, _ := (&datadir.Dir{Path: data}).Server(); s.PID != 0 {
		t.Fatalf("server.json still names pid %d after a clean stop", s.PID)
	}

	// Without a server, the CLI reads the file directly.
	if out, err := run(t, data, "tail", "--level", "error"); err != nil || !strings.Contains(out, "NullReferenceException") || strings.Contains(out, "spawned") {
		t.Fatalf("direct tail --level error: %q, %v", out, err)
	}
	// A second launch reuses the saved port, so the link stays the same.
	base2, _, _ := startServe(t, data)
	if base2 != base {
		t.Fatalf("second launch listens on %s, first on %s: the link changed", base2, base)
	}
}

func TestToken_New_WhileServing(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, _, _ := startServe(t, data, "--addr", "127.0.0.1:0")
	old := readToken(t, data)
	out, err := run(t, data, "token", "--new")
	if err != nil {
		t.Fatal(err)
	}
	fresh := strings.TrimSpace(out)
	if fresh == old || !datadir.ValidToken(fresh) || readToken(t, data) != fresh {
		t.Fatalf("token --new printed %q (old %q, saved %q)", fresh, old, readToken(t, data))
	}
	if code, _ := post(t, base+"/api/v1/logs", old, `{"level":"info","text":"x"}`); code != 401 {
		t.Fatalf("old token after rotation: %d, want 401", code)
	}
	if code, body := post(t, base+"/api/v1/logs", fresh, `{"level":"info","text":"x"}`); code != 200 {
		t.Fatalf("new token: %d %s", code, body)
	}
}

func TestTail_Follow(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, _, _ := startServe(t, data, "--addr", "127.0.0.1:0")
	token := readToken(t, data)
	post(t, base+"/api/v1/logs", token, `{"level":"info","text":"before"}`)
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- newMain(&out, io.Discard, data).Run(ctx, []string{"tail", "-f", "--name", "game"}) }()
	post(t, base+"/api/v1/logs", token, `[{"level":"info","text":"noise"},{"level":"warn","name":"game","text":"arrived"}]`)
	logtest.Eventually(t, 15*time.Second, "tail -f to print the new line", func() bool { return strings.Contains(out.String(), "arrived") })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("tail -f after interrupt: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tail -f did not stop on interrupt")
	}
	if strings.Contains(out.String(), "noise") || strings.Contains(out.String(), "before") {
		t.Fatalf("tail -f --name game printed other lines:\n%s", out.String())
	}
}

func TestImport(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	file := filepath.Join(t.TempDir(), "lines.ndjson")
	var b strings.Builder
	for i := range 1200 {
		fmt.Fprintf(&b, `{"level":"info","name":"imp","text":"line %d"}`+"\n", i)
	}
	b.WriteString("\n")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, data, "import", "--create", file)
	if err != nil || !strings.Contains(out, "imported 1200 lines (IDs 1 to 1200)") {
		t.Fatalf("import: %q, %v", out, err)
	}
	out, err = run(t, data, "tail", "-n", "1")
	if err != nil || !strings.Contains(out, "#1200 INFO  default/imp line 1199") {
		t.Fatalf("tail after import: %q, %v", out, err)
	}
	// NDJSON chosen by its first lines: a bad line after them is named.
	bad := filepath.Join(t.TempDir(), "bad.ndjson")
	os.WriteFile(bad, []byte(strings.Repeat(`{"level":"info","text":"ok"}`+"\n", 200)+`{"level":"info","text":"ok", "frame": 3}`+"\n"), 0o600)
	_, err = run(t, data, "import", bad)
	if err == nil || !strings.Contains(err.Error(), "line 201") || !strings.Contains(err.Error(), "frame") {
		t.Fatalf("import of a bad line: %v; want an error naming line 201 and the field", err)
	}
	// JSON lines with keys the ingest format does not have are a logger's:
	// imported with the json parser, the other keys kept in data.
	logger := filepath.Join(t.TempDir(), "app.jsonl")
	os.WriteFile(logger, []byte(`{"level":"info","message":"ok"}`+"\n"+`{"level":"info","message":"ok", "frame": 3}`+"\n"), 0o600)
	if out, err := run(t, data, "import", logger); err != nil || !strings.Contains(out, "imported 3 records") || !strings.Contains(out, "(parser json)") { // and the end marker
		t.Fatalf("import of a logger's lines: %q, %v", out, err)
	}
}

func TestRun_Usage(t *testing.T) {
	if _, err := run(t, t.TempDir(), "frobnicate"); !errors.Is(err, errUsage) {
		t.Fatalf("unknown command: %v", err)
	}
	if _, err := run(t, t.TempDir(), "show", "abc"); err == nil || !strings.Contains(err.Error(), "ID") {
		t.Fatalf("show abc: %v", err)
	}
	if _, err := run(t, filepath.Join(t.TempDir(), "none"), "tail"); !errors.Is(err, datadir.ErrNoDir) {
		t.Fatalf("tail of a missing data directory: %v", err)
	}
	if _, err := run(t, t.TempDir(), "serve", "--addr", "0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "--allow-remote") {
		t.Fatalf("serve on 0.0.0.0 without --allow-remote: %v", err)
	}
	out, err := run(t, t.TempDir(), "help")
	if err != nil || !strings.Contains(out, "serve") || !strings.Contains(out, "import") {
		t.Fatalf("help: %q, %v", out, err)
	}
}

// TestServe_Process runs the real binary: a second process on the same data
// directory fails fast naming the first, and SIGTERM stops the first cleanly
// with every acknowledged record on disk.
func TestServe_Process(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := filepath.Join(t.TempDir(), "mcplogd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(t.TempDir(), "data")
	first := exec.Command(bin, "serve", "--data", data, "--addr", "127.0.0.1:0")
	var firstErr syncBuffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	dir := &datadir.Dir{Path: data}
	logtest.Eventually(t, 20*time.Second, "the server to save its address", func() bool {
		s, _ := dir.Server()
		return s.PID == first.Process.Pid
	})
	s, _ := dir.Server()
	token := readToken(t, data)
	for i := range 20 {
		if code, body := post(t, s.BaseURL()+"/api/v1/logs", token, fmt.Sprintf(`{"level":"info","text":"acked %d"}`, i)); code != 200 {
			t.Fatalf("ingest: %d %s", code, body)
		}
	}

	start := time.Now()
	second := exec.Command(bin, "serve", "--data", data, "--addr", "127.0.0.1:0")
	out, err := second.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("second serve: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), data) || !strings.Contains(string(out), fmt.Sprint("pid ", first.Process.Pid)) {
		t.Fatalf("second serve's error does not name the directory and the running pid:\n%s", out)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("second serve took %s to fail", d)
	}

	if err := first.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", err, firstErr.String())
	}
	db, err := store.Open(dir.DBPath(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id := uint64(1); id <= 20; id++ {
		r, err := db.Get(id)
		if err != nil || r.Text != fmt.Sprint("acked ", id-1) || r.Level != oplog.LevelInfo {
			t.Fatalf("record %d after SIGTERM: %+v, %v", id, r, err)
		}
	}
}

func TestParse_FlagsAfterArguments(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if _, err := run(t, data, "import", "--create", "-"); err != nil {
		t.Fatal(err)
	}
	m := newMain(io.Discard, io.Discard, filepath.Join(t.TempDir(), "elsewhere"))
	m.Stdin = strings.NewReader(`{"level":"warn","text":"after flags"}` + "\n")
	var out syncBuffer
	m.Stdout = &out
	if err := m.Run(context.Background(), []string{"import", "-", "--data", data}); err != nil {
		t.Fatalf("import - --data DIR: %v", err)
	}
	out = syncBuffer{}
	if err := m.Run(context.Background(), []string{"show", "1", "--data", data}); err != nil || !strings.Contains(out.String(), "after flags") {
		t.Fatalf("show 1 --data DIR: %q, %v", out.String(), err)
	}
	if err := m.Run(context.Background(), []string{"show", "--data", data, "--", "1"}); err != nil {
		t.Fatalf("show --data DIR -- 1: %v", err)
	}
	if err := m.Run(context.Background(), []string{"show", "1", "2", "--data", data}); !errors.Is(err, errUsage) {
		t.Fatalf("show with two IDs: %v; want a usage error", err)
	}
}

// TestLink_WaitsForAStartingServer: link run while a server is starting
// (it holds the log, and has not yet said where it listens) waits for its
// address instead of printing the one saved before or the default; a
// start that a dead server left is not waited for long.
func TestLink_WaitsForAStartingServer(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	dir, err := datadir.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	token := readTokenOf(t, dir)
	if err := dir.SaveServer(datadir.Server{Addr: "127.0.0.1:7170"}); err != nil { // a server before, stopped
		t.Fatal(err)
	}
	done := dir.Starting()
	var out, errOut syncBuffer
	finished := make(chan error, 1)
	go func() {
		finished <- newMain(&out, &errOut, data).Run(context.Background(), []string{"link", "--create"})
	}()
	logtest.Eventually(t, 10*time.Second, "link says it waits for the starting server", func() bool {
		return strings.Contains(errOut.String(), "a server is starting in "+data+"; waiting for its address")
	})
	if err := dir.SaveServer(datadir.Server{Addr: "127.0.0.1:41234", PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	done()
	select {
	case err := <-finished:
		if want := "http://127.0.0.1:41234/mcp/" + token + "\n"; err != nil || out.String() != want {
			t.Fatalf("link = %q, %v; want %q", out.String(), err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("link did not return once the server had started")
	}
	// A start nobody finished, long ago: link answers at once.
	dir.Starting()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(data, "starting"), old, old); err != nil {
		t.Fatal(err)
	}
	var errOut2 syncBuffer
	if err := newMain(&syncBuffer{}, &errOut2, data).Run(context.Background(), []string{"link", "--create"}); err != nil || errOut2.String() != "" {
		t.Fatalf("link beside a stale start: %v, stderr %q", err, errOut2.String())
	}
}

func readTokenOf(t *testing.T, dir *datadir.Dir) string {
	t.Helper()
	token, err := dir.Token()
	if err != nil {
		t.Fatal(err)
	}
	return token
}
