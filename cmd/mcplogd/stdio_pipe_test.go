package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

// stdioBinary is the mcplogd binary the piped stdio tests run: the one
// buildBinary makes once per test run (TestMain removes it).
func stdioBinary(t *testing.T) string {
	t.Helper()
	return buildBinary(t)
}

// pipeStdio runs `mcplogd stdio` with input on its standard input and
// returns its answers by ID (null IDs under "null"), failing unless it exits
// 0 within a minute.
func pipeStdio(t *testing.T, bin, data, input string, args ...string) map[string][]map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"stdio", "--data", data}, args...)...)
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcplogd stdio: %v\nstderr: %s\nstdout: %s", err, stderr.String(), stdout.String())
	}
	answers := map[string][]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		if _, isCall := m["method"]; isCall {
			continue // a notification
		}
		id, _ := json.Marshal(m["id"])
		answers[string(id)] = append(answers[string(id)], m)
	}
	return answers
}

// stdioRequests is initialize, initialized and n-1 tool calls (IDs 1..n).
func stdioRequests(n int) string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"printf","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	calls := []string{`"ping","arguments":{}`, `"append_log","arguments":{"text":"piped %d"}`, `"console_tail","arguments":{"limit":5}`, `"store_info","arguments":{}`}
	for id := 2; id <= n; id++ {
		call := calls[id%len(calls)]
		if strings.Contains(call, "%d") {
			call = fmt.Sprintf(call, id)
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s}}`+"\n", id, call)
	}
	return b.String()
}

// TestStdio_Piped: N requests piped into `mcplogd stdio` get N answers
// before it exits at the end of input, for N up to 100, with the store
// opened by stdio itself and through a running server.
func TestStdio_Piped(t *testing.T) {
	bin := stdioBinary(t)
	for _, mode := range []string{"alone", "beside a server"} {
		t.Run(mode, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			args := []string{"--in-process"}
			if mode != "alone" {
				startServe(t, data, "--addr", "127.0.0.1:0")
				args = nil
			}
			for _, n := range []int{1, 2, 3, 10, 100} {
				answers := pipeStdio(t, bin, data, stdioRequests(n), args...)
				if len(answers) != n {
					t.Fatalf("n=%d: %d answers: %v", n, len(answers), answers)
				}
				for id := 1; id <= n; id++ {
					a := answers[fmt.Sprint(id)]
					if len(a) != 1 || a[0]["result"] == nil {
						t.Fatalf("n=%d: request %d answered %v", n, id, a)
					}
					if r, _ := a[0]["result"].(map[string]any); r["isError"] == true {
						t.Fatalf("n=%d: request %d: tool error %v", n, id, r)
					}
				}
			}
		})
	}
}

// TestStdio_BadLines: a line that is not JSON gets -32700, one that is not
// a JSON-RPC message (or a batch) -32600, and the session goes on, with
// the store opened by stdio itself and through a running server.
func TestStdio_BadLines(t *testing.T) {
	bin := stdioBinary(t)
	for _, mode := range []string{"alone", "beside a server"} {
		t.Run(mode, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			args := []string{"--in-process"}
			if mode != "alone" {
				startServe(t, data, "--addr", "127.0.0.1:0")
				args = nil
			}
			checkBadLines(t, bin, data, args...)
		})
	}
}

// checkBadLines pipes bad lines between good requests into stdio on data.
func checkBadLines(t *testing.T, bin, data string, args ...string) {
	t.Helper()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"printf","version":"1"}}}`,
		`garbage`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":`,
		`{"foo":1}`,
		`[{"jsonrpc":"2.0","id":9,"method":"ping"}]`,
		``,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, "\n")
	answers := pipeStdio(t, bin, data, in, args...)
	for _, id := range []string{"1", "2", "3"} {
		if a := answers[id]; len(a) != 1 || a[0]["result"] == nil {
			t.Errorf("request %s after bad lines: %v", id, a)
		}
	}
	var codes []float64
	for _, a := range answers["null"] {
		codes = append(codes, a["error"].(map[string]any)["code"].(float64))
	}
	want := []float64{-32700, -32700, -32600, -32600}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("errors for the bad lines: %v, want %v (%v)", codes, want, answers["null"])
	}
	if msg := answers["null"][0]["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "line 2") || !strings.Contains(msg, "invalid character 'g'") {
		t.Errorf("-32700 message %q names neither the line nor the error", msg)
	}
}

// TestStdio_BothGenerations: the go-sdk client pinned to 2026-07-28 (no
// initialize: server/discover, per-request _meta, subscriptions/listen) and
// to 2025-11-25 (resources/subscribe) both use the tools over stdio of the
// real binary and are told when the console changes.
func TestStdio_BothGenerations(t *testing.T) {
	bin := stdioBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	lines := 0 // appended so far, to the one store
	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		cmd := exec.Command(bin, "stdio", "--data", data, "--in-process")
		updated := make(chan string, 8)
		c := mcp.NewClient(&mcp.Implementation{Name: "pinned", Version: "1"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
		})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: v})
		if err != nil {
			cancel()
			t.Fatalf("%s: connect: %v", v, err)
		}
		if got := cs.InitializeResult().ProtocolVersion; got != v {
			t.Errorf("pinned to %s, speaks %s", v, got)
		}
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "mcplogd://console"}); err != nil {
			t.Fatalf("%s: subscribe: %v", v, err)
		}
		// Under 2026-07-28 the go-sdk client's Subscribe returns once the
		// subscriptions/listen request is sent, not once the server
		// acknowledged it, and the server handles that request and the
		// next call side by side: a line appended at once may come before
		// the subscription. So a line is appended each second until one is
		// told of (within ctx's deadline).
		notified := false
		for !notified {
			lines++
			if out := callJSON(t, cs, "append_log", map[string]any{"text": "from " + v}); out["id"] != float64(lines) {
				t.Errorf("%s: append_log = %v, want id %d", v, out, lines)
			}
			select {
			case uri := <-updated:
				if uri != "mcplogd://console" {
					t.Errorf("%s: updated %q", v, uri)
				}
				notified = true
			case <-time.After(time.Second):
			case <-ctx.Done():
				t.Fatalf("%s: no notifications/resources/updated after append_log", v)
			}
		}
		tail := callJSON(t, cs, "console_tail", map[string]any{"format": "json", "collapse": false}) // "from <date>": one template
		if got, _ := tail["lines"].([]any); len(got) != lines {
			t.Errorf("%s: console_tail = %v, want %d lines", v, tail, lines)
		}
		_ = cs.Close()
		cancel()
	}
}

// TestClientCommands_RefuseMissingDataDir: link and token refuse a
// missing data directory as tail does, and make nothing; --create makes
// it, and so do stdio and import without it.
func TestClientCommands_RefuseMissingDataDir(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	_, tailErr := run(t, data, "tail")
	if tailErr == nil {
		t.Fatal("tail accepted a missing data directory")
	}
	want, _, _ := strings.Cut(tailErr.Error(), " (stderr")
	for _, args := range [][]string{{"link"}, {"token"}, {"token", "--new"}} {
		_, err := run(t, data, args...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", args, err, want)
		}
		if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%v made the data directory", args)
		}
	}
	out, err := run(t, data, "link", "--create")
	if err != nil || !strings.Contains(out, "/mcp/") {
		t.Fatalf("link --create: %q %v", out, err)
	}
	for _, args := range [][]string{{"stdio", "--in-process"}, {"import", "-"}} {
		made := filepath.Join(t.TempDir(), "made")
		if _, err := run(t, made, args...); err != nil {
			t.Fatalf("%v on a missing data directory: %v", args, err)
		}
		if _, err := datadir.Existing(made); err != nil {
			t.Fatalf("%v did not make the data directory: %v", args, err)
		}
	}
}

// TestReadLine: lines come without their end (\n or \r\n); one over the
// limit is skipped to its end and reported; the last line may lack an end.
func TestReadLine(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("short\r\n"+strings.Repeat("x", 100)+"\nnext"), 16)
	for i, want := range []struct {
		line    string
		tooLong bool
		eof     bool
	}{{"short", false, false}, {"", true, false}, {"next", false, true}} {
		line, tooLong, err := readLine(br, 10)
		if string(line) != want.line || tooLong != want.tooLong || (err != nil) != want.eof {
			t.Errorf("line %d: %q %v %v, want %+v", i, line, tooLong, err, want)
		}
	}
}

// TestStdio_CallBeforeInitialize: a tools/call piped without initialize (as
// the Unity bridge's docs pipe one into their own client) gets -32600
// saying to send initialize first or to name 2026-07-28 in _meta, not the
// SDK's code 0 "invalid during session initialization"; ping still
// answers, and the session that follows works.
func TestStdio_CallBeforeInitialize(t *testing.T) {
	bin := stdioBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"get_logs","arguments":{"count":5}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"printf","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_logs","arguments":{"count":5}}}`,
	}, "\n")
	answers := pipeStdio(t, bin, data, in, "--in-process")
	a := answers[`"1"`]
	if len(a) != 1 || a[0]["error"] == nil {
		t.Fatalf("tools/call before initialize: %v", answers)
	}
	e := a[0]["error"].(map[string]any)
	if e["code"] != float64(-32600) || !strings.Contains(e["message"].(string), "tools/call before initialize: send initialize first") ||
		!strings.Contains(e["message"].(string), "io.modelcontextprotocol/protocolVersion") {
		t.Errorf("tools/call before initialize: %v", e)
	}
	for _, id := range []string{"2", "3", "4"} {
		if a := answers[id]; len(a) != 1 || a[0]["result"] == nil {
			t.Errorf("request %s: %v", id, a)
		}
	}
	if r, _ := answers["4"][0]["result"].(map[string]any); r["isError"] == true {
		t.Errorf("get_logs in the session: %v", r)
	}
}
