package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/everything"
)

// TestReplay_CLI: serve in front of server-everything (stdio), calls made
// through it by an MCP client, then mcplogd replay over a range.
func TestReplay_CLI(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	cmd := everything.Command(t)
	base, stdout, _ := startServe(t, data, "--addr", "127.0.0.1:0", "--upstream", fmt.Sprintf("everything=cmd:%q %q %q", cmd[0], cmd[1], cmd[2]))
	if !strings.Contains(stdout.String(), "upstream: everything=cmd:") {
		t.Errorf("serve did not print the upstream: %q", stdout.String())
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp/" + readToken(t, data)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) > 20 { // mcplogd's own and the upstream's
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the upstream's tools never appeared")
		case <-time.After(20 * time.Millisecond):
		}
	}
	call := func(name string, args any) uint64 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return uint64(res.Meta["log_id"].(float64))
	}
	first := call("echo", map[string]any{"message": "one"})
	call("get-sum", map[string]any{"a": 1, "b": 2})
	toggle := call("toggle-simulated-logging", nil)
	last := call("echo", map[string]any{"message": "two"})

	out, err := run(t, data, "replay", fmt.Sprintf("%d..%d", first, last))
	if err == nil || !strings.Contains(err.Error(), "1 of 4 operations not replayed") {
		t.Fatalf("replay of a range with a tool that is not read-only, without --yes: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.Contains(lines[1], "echo") || !strings.HasSuffix(lines[1], "same") ||
		!strings.Contains(lines[2], "get-sum") || !strings.Contains(lines[3], "--yes: toggle-simulated-logging") || !strings.HasSuffix(lines[4], "same") {
		t.Fatalf("replay table:\n%s", out)
	}
	// The CLI names its flag, not the replay tool's confirm argument.
	if strings.Contains(lines[3], "confirm") || !strings.Contains(lines[3], "pass --yes to replay it") {
		t.Errorf("replay table names confirm, not --yes:\n%s", lines[3])
	}
	if _, err := run(t, data, "replay", fmt.Sprint(toggle)); err == nil || strings.Contains(err.Error(), "confirm") || !strings.Contains(err.Error(), "pass --yes") {
		t.Errorf("replay of one operation that is not read-only, without --yes: %v; want it to say pass --yes", err)
	}
	out, err = run(t, data, "replay", fmt.Sprint(toggle), "--yes")
	if err != nil || !strings.Contains(out, "differs") { // started, then stopped
		t.Fatalf("replay --yes of toggle-simulated-logging: %v\n%s", err, out)
	}
	if _, err := run(t, data, "replay", "9..3"); err == nil || !strings.Contains(err.Error(), "FROM..TO") {
		t.Fatalf("a backwards range: %v", err)
	}
}
