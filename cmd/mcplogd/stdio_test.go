package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/everything"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// startStdio runs `mcplogd stdio` in-process on pipes, with args, and
// connects the go-sdk client to it.
func startStdio(t *testing.T, data string, args ...string) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	m := &Main{Stdin: inR, Stdout: outW, Stderr: io.Discard, Getenv: func(k string) string {
		if k == "MCPLOGD_DATA" {
			return data
		}
		return ""
	}}
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, append([]string{"stdio"}, args...)); outW.Close() }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		cancel()
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("stdio returned %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("stdio did not stop")
		}
	})
	return cs
}

func callJSON(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %+v", tool, res.Content)
	}
	var m map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &m)
	return m
}

func TestStdio_OpensStoreWithoutServer(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	cs := startStdio(t, data, "--in-process")
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) < 10 {
		t.Fatalf("tools/list over stdio: %d tools, %v", len(tools.Tools), err)
	}
	id := callJSON(t, cs, "append_log", map[string]any{"text": "marker before the experiment", "level": "warn"})["id"]
	tail := callJSON(t, cs, "console_tail", map[string]any{"limit": 10, "format": "json"})
	lines, _ := tail["lines"].([]any)
	if len(lines) != 1 || !strings.Contains(lines[0].(map[string]any)["text"].(string), "marker") {
		t.Fatalf("console_tail over stdio: %v", tail)
	}
	details := callJSON(t, cs, "get_log_details", map[string]any{"log_id": id})
	if details["level"] != "warn" {
		t.Fatalf("get_log_details over stdio: %v", details)
	}
}

func TestStdio_ForwardsToRunningServer(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, _, _ := startServe(t, data, "--addr", "127.0.0.1:0")
	token := readToken(t, data)
	if code, body := post(t, base+"/api/v1/logs", token, `{"level":"error","name":"Player","text":"crash in Update","stack":"at Player.Update ()"}`); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	// The server holds the bbolt file: stdio can only work by forwarding.
	cs := startStdio(t, data)
	tail := callJSON(t, cs, "console_tail", map[string]any{"format": "json"})
	lines, _ := tail["lines"].([]any)
	if len(lines) != 1 || lines[0].(map[string]any)["hasStack"] != true {
		t.Fatalf("console_tail through the server: %v", tail)
	}
	callJSON(t, cs, "append_log", map[string]any{"text": "from stdio"})
	code, body := post(t, base+"/api/v1/logs", token, `{"level":"info","text":"after"}`)
	if code != 200 || !strings.Contains(body, `"ids":[3]`) {
		t.Fatalf("the stdio append did not reach the server's log: %d %s", code, body)
	}
	names := callJSON(t, cs, "list_log_names", nil)
	if n, _ := names["names"].([]any); len(n) == 0 {
		t.Fatalf("list_log_names through the server: %v", names)
	}
}

// TestStdio_ForwardsUpstreamTools: with a server in front of an upstream,
// stdio offers the upstream's tools too; a call through stdio is recorded
// by the server, and replay_operation and store_info reach its gateway.
func TestStdio_ForwardsUpstreamTools(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	up := everything.Command(t)
	startServe(t, data, "--addr", "127.0.0.1:0", "--upstream", fmt.Sprintf("everything=cmd:%q %q %q", up[0], up[1], up[2]))
	cs := startStdio(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res *mcp.CallToolResult
	logtest.Eventually(t, 30*time.Second, "echo through stdio", func() bool {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "via stdio"}})
		res = r
		return err == nil && !r.IsError
	})
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "Echo: via stdio" {
		t.Fatalf("echo through stdio: %+v", res.Content)
	}
	id, ok := res.Meta["log_id"].(float64)
	if !ok || id == 0 {
		t.Fatalf("no log_id in %+v", res.Meta)
	}
	replay := callJSON(t, cs, "replay_operation", map[string]any{"log_id": id})
	if replay["same"] != true {
		t.Fatalf("replay_operation through stdio: %v", replay)
	}
	info := callJSON(t, cs, "store_info", nil)
	if ups, _ := info["upstreams"].([]any); len(ups) != 1 || ups[0].(map[string]any)["name"] != "everything" {
		t.Fatalf("store_info upstreams through stdio: %v", info["upstreams"])
	}
}
