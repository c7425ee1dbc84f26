package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/store"
)

// stopRecorder stops the server of data that a stdio started in the
// background, and waits until it let go of the store (it is no child of
// the test's to wait for).
func stopRecorder(t *testing.T, data string) {
	t.Helper()
	dir := &datadir.Dir{Path: data}
	s, _ := dir.Server()
	if s.PID == 0 {
		return
	}
	p, err := os.FindProcess(s.PID)
	if err != nil {
		return
	}
	_ = p.Signal(os.Interrupt)
	free := func() bool {
		db, err := store.Open(dir.DBPath(), &store.Options{})
		if err == nil {
			db.Close()
		}
		return err == nil
	}
	deadline := time.Now().Add(20 * time.Second)
	for !free() {
		if time.Now().After(deadline) {
			_ = p.Kill()
			t.Errorf("the background recorder (pid %d) did not stop on an interrupt", s.PID)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stdioClient starts the binary's stdio with args in cwd and connects the
// go-sdk client to it (initialize included).
func stdioClient(t *testing.T, cwd string, args ...string) (*mcp.ClientSession, *exec.Cmd, *logtest.Buffer) {
	t.Helper()
	cmd := exec.Command(buildBinary(t), append([]string{"stdio"}, args...)...)
	cmd.Dir = cwd
	stderr := &logtest.Buffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to mcplogd stdio %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr.String())
	}
	return cs, cmd, stderr
}

// recorderRetention is the retention that the server of data reports in
// store_info, asked over its own MCP link.
func recorderRetention(t *testing.T, data string) map[string]any {
	t.Helper()
	s, err := (&datadir.Dir{Path: data}).Server()
	must(t, err)
	link := datadir.Link(s.BaseURL(), readToken(t, data))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "check", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: link}, nil)
	must(t, err)
	defer cs.Close()
	ret, _ := callJSON(t, cs, "store_info", nil)["retention"].(map[string]any)
	return ret
}

func appendTo(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	must(t, err)
	_, err = f.WriteString(strings.Join(lines, "\n") + "\n")
	must(t, err)
	must(t, f.Close())
}

// TestStdio_OutlivesAgent: on a fresh HOME, `mcplogd stdio` with no flags
// makes the per-user data directory, starts a recorder in the background
// that follows config.json's file, and serves the agent through it; the
// lines written to the file after the agent left are in the store, read
// with the CLI from another directory.
func TestStdio_OutlivesAgent(t *testing.T) {
	home, _ := userEnv(t)
	data := filepath.Join(home, ".local", "state", "mcplogd")
	game := filepath.Join(t.TempDir(), "game.log")
	appendTo(t, game, "boot: level one loaded")
	must(t, os.MkdirAll(data, 0o700))
	cfg, _ := json.Marshal(map[string]any{"follow": map[string]string{"Game": game}})
	must(t, os.WriteFile(filepath.Join(data, "config.json"), cfg, 0o600))
	t.Cleanup(func() { stopRecorder(t, data) })

	cwd := t.TempDir()
	cs, agent, stderr := stdioClient(t, cwd, "--max-records", "100000")
	if ret := recorderRetention(t, data); ret["maxRecords"] != float64(100000) {
		t.Errorf("the recorder did not get stdio's --max-records: retention %v", ret)
	}
	appendTo(t, game, "while the agent is here")
	logtest.Eventually(t, 30*time.Second, "the followed line through stdio", func() bool {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "console_tail", Arguments: map[string]any{"source": "Game", "format": "json"}})
		return err == nil && !res.IsError && strings.Contains(fmt.Sprint(res.StructuredContent), "while the agent is here")
	})
	if err := cs.Close(); err != nil { // the agent leaves: stdin closes, stdio ends
		t.Logf("close: %v", err)
	}
	if agent.ProcessState == nil || !agent.ProcessState.Exited() {
		t.Fatalf("stdio did not end with its session: %v\nstderr: %s", agent.ProcessState, stderr.String())
	}
	s, _ := (&datadir.Dir{Path: data}).Server()
	if s.PID == 0 || s.PID == agent.Process.Pid {
		t.Fatalf("no background recorder runs after stdio ended: server.json %+v", s)
	}
	appendTo(t, game, "written after the agent left")
	logtest.Eventually(t, 30*time.Second, "the line written after the agent left, in the store", func() bool {
		out, _ := cli(t, cwd, "tail", "--source", "Game")
		return strings.Contains(out, "written after the agent left") && strings.Contains(out, "boot: level one loaded")
	})
	if b, err := os.ReadFile(filepath.Join(data, recorderLog)); err != nil || !strings.Contains(string(b), "follow:   Game="+game) {
		t.Errorf("the recorder's log: %q, %v", b, err)
	}
	// A second session attaches to the same recorder, and says that its
	// retention flag goes to the running one no more.
	cs, _, stderr = stdioClient(t, cwd, "--max-records", "5")
	defer cs.Close()
	if !strings.Contains(stderr.String(), "--max-records=5 not applied") {
		t.Errorf("stderr of a session given --max-records with a recorder running: %q", stderr.String())
	}
	callJSON(t, cs, "append_log", map[string]any{"text": "second session"})
	if s2, _ := (&datadir.Dir{Path: data}).Server(); s2.PID != s.PID {
		t.Errorf("the second session started another recorder: pid %d, then %d", s.PID, s2.PID)
	}
}

// TestStdio_ConcurrentStarts: two stdio sessions started at once on a
// data directory no server holds both connect, to one recorder.
func TestStdio_ConcurrentStarts(t *testing.T) {
	userEnv(t)
	data := filepath.Join(t.TempDir(), "data")
	t.Cleanup(func() { stopRecorder(t, data) })
	var wg sync.WaitGroup
	ids := make([]float64, 3)
	for i := range ids {
		wg.Go(func() {
			cs, _, _ := stdioClient(t, t.TempDir(), "--data", data)
			defer cs.Close()
			ids[i], _ = callJSON(t, cs, "append_log", map[string]any{"text": fmt.Sprintf("session %d", i)})["id"].(float64)
		})
	}
	wg.Wait()
	if ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] || ids[0]+ids[1]+ids[2] != 6 {
		t.Fatalf("the sessions' lines got IDs %v: not one store", ids)
	}
	reg, _ := datadir.UserRegistry(os.Getenv)
	if es, _ := reg.Entries(); len(es) != 1 || es[0].Dir != data {
		t.Fatalf("registered servers: %+v, want one of %s", es, data)
	}
}

// TestStdio_RecorderFails: a recorder that cannot start (config.json
// follows "auto" without an engine) ends stdio with its reason, on
// standard error and as the answer to the client's initialize, so that
// the client shows more than a failed connection.
func TestStdio_RecorderFails(t *testing.T) {
	userEnv(t)
	data := filepath.Join(t.TempDir(), "data")
	must(t, os.MkdirAll(data, 0o700))
	must(t, os.WriteFile(filepath.Join(data, "config.json"), []byte(`{"follow": {"Game": "auto"}}`), 0o600))
	t.Cleanup(func() { stopRecorder(t, data) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildBinary(t), "stdio", "--data", data)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"agent","version":"1"}}}` + "\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Fatalf("stdio: %v, want exit status 1", err)
	}
	const why = `the background recorder (mcplogd serve --data `
	if !strings.Contains(stderr.String(), why) || !strings.Contains(stderr.String(), "auto needs the engine") {
		t.Errorf("stderr: %s", stderr.String())
	}
	var answer struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &answer); err != nil || answer.ID != 1 || answer.Error.Code != -32603 ||
		!strings.Contains(answer.Error.Message, "mcplogd stdio cannot start: "+why) || !strings.Contains(answer.Error.Message, "auto needs the engine") {
		t.Errorf("the answer to initialize: %s (%v)", out, err)
	}
}
