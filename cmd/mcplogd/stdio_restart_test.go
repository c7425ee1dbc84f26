//go:build unix

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
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// TestStdio_RestartsKilledRecorder: two open stdio sessions whose
// background recorder is killed with SIGKILL answer on: their next calls,
// at once, start the recorder again, once (one start for both, no second
// recorder that found the store taken), and append_log through it answers
// with the line's time.
func TestStdio_RestartsKilledRecorder(t *testing.T) {
	home, _ := userEnv(t)
	data := filepath.Join(home, ".local", "state", "mcplogd")
	t.Cleanup(func() { stopRecorder(t, data) })
	a, _, errA := stdioClient(t, t.TempDir())
	b, _, errB := stdioClient(t, t.TempDir())
	defer a.Close()
	defer b.Close()
	callJSON(t, b, "store_info", nil)
	dir := &datadir.Dir{Path: data}
	first, err := dir.Server()
	if err != nil || first.PID == 0 {
		t.Fatalf("the recorder: %+v, %v", first, err)
	}
	p, err := os.FindProcess(first.PID)
	must(t, err)
	must(t, p.Kill())
	logtest.Eventually(t, 20*time.Second, "the recorder gone", func() bool { return p.Signal(syscall.Signal(0)) != nil })

	sessions := []*mcp.ClientSession{a, b}
	answers := make([]map[string]any, len(sessions))
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "append_log", Arguments: map[string]any{"text": fmt.Sprint("after the kill ", i)}})
			if err == nil && res.IsError {
				var text []string
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						text = append(text, tc.Text)
					}
				}
				err = fmt.Errorf("tool error %q", text)
			}
			if err == nil {
				bs, _ := json.Marshal(res.StructuredContent)
				err = json.Unmarshal(bs, &answers[i])
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i := range sessions {
		if errs[i] != nil || answers[i]["id"] == nil || answers[i]["time"] == "" {
			t.Fatalf("session %d after the kill: %v, %v\nstderr: %s\n%s", i, answers[i], errs[i], errA.String(), errB.String())
		}
	}
	second, _ := dir.Server()
	if second.PID == first.PID || second.PID == 0 {
		t.Fatalf("the recorder after the kill: %+v (the killed one was pid %d)", second, first.PID)
	}
	for _, cs := range sessions { // both on the one recorder
		if got := callJSON(t, cs, "store_info", nil); fmt.Sprint(got["records"]) != "2" {
			t.Fatalf("store_info after the restart: records %v, want 2", got["records"])
		}
	}
	log, err := os.ReadFile(filepath.Join(data, recorderLog))
	must(t, err)
	if n := strings.Count(string(log), " serving "); n != 2 || strings.Contains(string(log), lockedPhrase) {
		t.Fatalf("the recorder started %d times (want the first and one restart), or a second found the store taken:\n%s", n, log)
	}
}

// TestStdio_UpstreamToolsAfterRecorderKilled: a stdio session offers the
// recorder's upstream tools (config.json's upstreams); after the recorder
// is killed, the next call of such a tool starts it again and is answered
// by the game through it, as mcplogd's own tools are, and is recorded.
// Before, the session's link to the upstream tools stayed on the killed
// recorder until the session restarted.
func TestStdio_UpstreamToolsAfterRecorderKilled(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	home, _ := userEnv(t)
	data := filepath.Join(home, ".local", "state", "mcplogd")
	t.Cleanup(func() { stopRecorder(t, data) })
	game, err := filepath.Abs(filepath.Join("..", "..", "gateway", "testdata", "stdio_game.py"))
	must(t, err)
	must(t, os.MkdirAll(data, 0o700))
	cfg, _ := json.Marshal(map[string]any{"upstreams": map[string]string{"game": "cmd:python3 " + game}})
	must(t, os.WriteFile(filepath.Join(data, "config.json"), cfg, 0o600))
	cs, _, stderr := stdioClient(t, t.TempDir())
	defer cs.Close()
	var tool string
	logtest.Eventually(t, 30*time.Second, "the game's tool offered over stdio", func() bool {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			return false
		}
		for _, tl := range res.Tools {
			if strings.HasSuffix(tl.Name, "spawn_enemy") {
				tool = tl.Name
			}
		}
		return tool != ""
	})
	spawn := func(n int) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"count": n}})
		if err != nil {
			t.Fatalf("%s {count: %d}: %v\nstderr: %s", tool, n, err, stderr.String())
		}
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		if res.IsError {
			t.Fatalf("%s {count: %d}: tool error %q\nstderr: %s", tool, n, text, stderr.String())
		}
		return strings.Join(text, "\n")
	}
	if got := spawn(3); !strings.Contains(got, "spawned 3 enemies") {
		t.Fatalf("before the kill: %q", got)
	}
	dir := &datadir.Dir{Path: data}
	first, err := dir.Server()
	must(t, err)
	p, err := os.FindProcess(first.PID)
	must(t, err)
	must(t, p.Kill())
	logtest.Eventually(t, 20*time.Second, "the recorder gone", func() bool { return p.Signal(syscall.Signal(0)) != nil })
	if got := spawn(4); !strings.Contains(got, "spawned 4 enemies") {
		t.Fatalf("after the kill: %q", got)
	}
	if second, _ := dir.Server(); second.PID == first.PID || second.PID == 0 {
		t.Fatalf("the recorder after the kill: %+v (the killed one was pid %d)", second, first.PID)
	}
	out, err := run(t, data, "tail", "--kind", "op", "-n", "10")
	if err != nil || !strings.Contains(out, `"count":4`) && !strings.Contains(out, "count: 4") && !strings.Contains(out, "{count:4}") {
		t.Fatalf("the call after the kill is not recorded (%v):\n%s", err, out)
	}
}
