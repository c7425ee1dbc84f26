package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// TestImport_NotNDJSON: a plain-text log is imported with the parsers;
// a JSON array or another JSON value that is not an object is refused,
// saying what import reads.
func TestImport_NotNDJSON(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	for _, tc := range []struct{ name, input, want string }{
		{"Array", `[{"level":"info","text":"a"}]` + "\n", "line 1: a JSON array; import reads NDJSON"},
		{"Null", "null\n", `line 1: "null" is JSON but not an object; import reads NDJSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in")
			if err := os.WriteFile(file, []byte(tc.input), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := run(t, data, "import", "--create", file)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("import: %v; want %q", err, tc.want)
			}
		})
	}
	file := filepath.Join(t.TempDir(), "game.log")
	if err := os.WriteFile(file, []byte("Player spawned at 0,0\nERROR: no save slot\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, data, "import", "--create", file)
	// Two lines and the end marker of the import.
	if err != nil || !strings.Contains(out, "imported 3 records (IDs 1 to 3) from "+file+" into source game.log (parser generic)") {
		t.Fatalf("import of a plain log: %q, %v", out, err)
	}
}

// TestServe_Messages: a 401 names the command that prints the token;
// replay without upstreams says so once, without a table; tail marks an
// operation's status and duration.
func TestServe_Messages(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, _, _ := startServe(t, data, "--addr", "127.0.0.1:0")
	code, body := post(t, base+"/api/v1/logs", "wrong", `{"text":"x"}`)
	if code != 401 || !strings.Contains(body, "mcplogd token prints it") || strings.Contains(body, "mcplogd link") {
		t.Fatalf("401: %d %s", code, body)
	}
	token := readToken(t, data)
	if out, err := run(t, data, "link", "--web"); err != nil || out != base+"/ui/"+token+"\n" {
		t.Fatalf("link --web: %q, %v; want %s/ui/TOKEN", out, err, base)
	}
	code, body = post(t, base+"/api/v1/operations", token,
		`{"tool":"spawn_wave","arguments":{"wave":"BossFight+<PhaseRoutine>d__12"},"source":"game","status":"success",`+
			`"time":"2026-01-02T03:04:05Z","endTime":"2026-01-02T03:04:05.25Z","result":{"ok":true}}`)
	if code != 201 {
		t.Fatalf("record an operation: %d %s", code, body)
	}
	if strings.Contains(body, `\u003c`) {
		t.Errorf("the API escaped < in its answer: %s", body)
	}
	var op struct{ ID uint64 }
	_ = json.Unmarshal([]byte(body), &op)
	post(t, base+"/api/v1/operations", token, `{"tool":"slow_tool","source":"game"}`)

	out, err := run(t, data, "tail", "--kind", "op")
	if err != nil || !strings.Contains(out, "game/spawn_wave [success 250ms]") || !strings.Contains(out, "game/slow_tool [pending running") {
		t.Fatalf("tail --kind op: %q, %v", out, err)
	}
	out, err = run(t, data, "show", fmt.Sprint(op.ID))
	if err != nil || !strings.Contains(out, "tool spawn_wave  status success  250ms") ||
		!strings.Contains(out, "Arguments\n  {\n    \"wave\": \"BossFight+<PhaseRoutine>d__12\"\n  }") || !strings.Contains(out, "Result\n  {\n    \"ok\": true") {
		t.Fatalf("show of an operation: %q, %v", out, err)
	}
	out, err = run(t, data, "replay", "1", "2")
	if err == nil || strings.Count(err.Error(), "no upstreams") != 1 || out != "" {
		t.Fatalf("replay without upstreams: %v, output %q; want one error and no table", err, out)
	}
}

// TestServe_QuietTerminal: the real binary's terminal stays with the
// printed link through MCP sessions: nothing on standard error by default,
// a session's lines with --log-level info.
func TestServe_QuietTerminal(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		name  string
		args  []string
		quiet bool
	}{{"Default", nil, true}, {"Info", []string{"--log-level", "info"}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			cmd := exec.Command(bin, append([]string{"serve", "--data", data, "--addr", "127.0.0.1:0"}, tc.args...)...)
			var stderr syncBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			dir := &datadir.Dir{Path: data}
			logtest.Eventually(t, 20*time.Second, "the server to save its address", func() bool {
				s, _ := dir.Server()
				return s.PID == cmd.Process.Pid
			})
			s, _ := dir.Server()
			for range 3 {
				c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.BaseURL() + "/mcp/" + readToken(t, data)},
					&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // sessions, which info names
				if err != nil {
					cancel()
					t.Fatal(err)
				}
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ping"}); err != nil {
					t.Fatal(err)
				}
				cs.Close()
				cancel()
			}
			if tc.quiet && stderr.String() != "" {
				t.Errorf("serve's standard error after three MCP sessions:\n%s", stderr.String())
			}
			if !tc.quiet {
				logtest.Eventually(t, 10*time.Second, "a session line with --log-level info", func() bool { return strings.Contains(stderr.String(), "session") })
			}
		})
	}
}

// TestServe_AddrInUse: an --addr that something else listens on is
// refused naming what holds it and what to do instead: the mcplogd that
// holds it (its pid and data directory, from this user's registry, as
// mcplogd status lists it), an mcplogd the registry does not list, or
// another program.
func TestServe_AddrInUse(t *testing.T) {
	_, getenv := userEnv(t)
	serveAt := func(addr string) error {
		m := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: getenv}
		return m.Run(t.Context(), []string{"serve", "--data", filepath.Join(t.TempDir(), "data"), "--addr", addr})
	}
	const instead = "serve on another port: --addr 127.0.0.1:PORT, or --addr 127.0.0.1:0 for a free one"
	t.Run("Registered", func(t *testing.T) {
		held := filepath.Join(t.TempDir(), "held")
		srv, base := serveProcess(t, t.TempDir(), held)
		addr := strings.TrimPrefix(base, "http://")
		want := fmt.Sprintf("--addr %s is in use by another mcplogd (pid %d, data directory %s; mcplogd status lists the running servers); stop it, or %s",
			addr, srv.Process.Pid, held, instead)
		if err := serveAt(addr); err == nil || err.Error() != want {
			t.Errorf("serve --addr %s: %v\nwant %s", addr, err, want)
		}
	})
	t.Run("NotRegistered", func(t *testing.T) {
		base, _, _ := startServe(t, filepath.Join(t.TempDir(), "held"), "--addr", "127.0.0.1:0") // a Main without a home registers nowhere
		addr := strings.TrimPrefix(base, "http://")
		want := fmt.Sprintf("--addr %s is in use by another mcplogd, one this user's registry does not list (another user's, or started without a home); stop it, or %s",
			addr, instead)
		if err := serveAt(addr); err == nil || err.Error() != want {
			t.Errorf("serve --addr %s: %v\nwant %s", addr, err, want)
		}
	})
	t.Run("AnotherProgram", func(t *testing.T) {
		other := httptest.NewServer(http.NotFoundHandler())
		defer other.Close()
		addr := other.Listener.Addr().String()
		want := fmt.Sprintf("--addr %s is in use by another program, not an mcplogd; %s", addr, instead)
		if err := serveAt(addr); err == nil || err.Error() != want {
			t.Errorf("serve --addr %s: %v\nwant %s", addr, err, want)
		}
	})
}
