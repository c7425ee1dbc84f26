package gateway_test

//lint:file-ignore SA1019 the test game sends MCP log messages (deprecated from protocol 2026-07-28, still sent by upstreams).

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/gateway"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

const testToken = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

// game is a Go MCP server standing in for a game's debug server, served
// over real Streamable HTTP. It can be stopped and started again on the
// same address, as a game restarts.
type game struct {
	t       testing.TB
	srv     *mcp.Server
	addr    string
	hs      *http.Server
	release chan struct{} // closing it lets slow answer
	spawned atomic.Int64
}

const traceback = "scripts/world.lua:12: attempt to index a nil value (field 'pos')\nstack traceback:\n\t[C]: in function 'error'\n\tscripts/world.lua:12: in function 'move'\n\tscripts/main.lua:40: in main chunk"

func newGame(t testing.TB) *game {
	t.Helper()
	g := &game{t: t, release: make(chan struct{})}
	g.srv = mcp.NewServer(&mcp.Implementation{Name: "game", Version: "1"}, nil)
	type msgIn struct {
		Message string `json:"message"`
	}
	mcp.AddTool(g.srv, &mcp.Tool{Name: "echo", Description: "echoes", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in msgIn) (*mcp.CallToolResult, map[string]string, error) {
			return nil, map[string]string{"echo": in.Message}, nil
		})
	mcp.AddTool(g.srv, &mcp.Tool{Name: "spawn", Description: "spawns an entity"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, map[string]int64, error) {
			return nil, map[string]int64{"entity": g.spawned.Add(1)}, nil
		})
	mcp.AddTool(g.srv, &mcp.Tool{Name: "slow", Description: "answers when released"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, map[string]string, error) {
			select {
			case <-g.release:
				return nil, map[string]string{"slow": "done"}, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(g.srv, &mcp.Tool{Name: "world", Description: "touches the crashed world"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: traceback}}}, nil, nil
		})
	mcp.AddTool(g.srv, &mcp.Tool{Name: "big", Description: "answers more than a record keeps"},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Fail bool `json:"fail,omitempty"`
		}) (*mcp.CallToolResult, any, error) {
			n := 2 << 20
			if in.Fail {
				n = 300 << 10
			}
			return &mcp.CallToolResult{IsError: in.Fail, Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", n)}}}, nil, nil
		})
	mcp.AddTool(g.srv, &mcp.Tool{Name: "get_logs", Description: "the game's own logs"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, map[string]string, error) {
			return nil, map[string]string{"logs": "game"}, nil
		})
	mcp.AddTool(g.srv, &mcp.Tool{Name: "say", Description: "logs a message"},
		func(ctx context.Context, req *mcp.CallToolRequest, in msgIn) (*mcp.CallToolResult, map[string]bool, error) {
			err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "chat", Data: in.Message})
			return nil, map[string]bool{"said": err == nil}, err
		})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.addr = ln.Addr().String()
	g.serve(ln)
	t.Cleanup(g.stop)
	return g
}

func (g *game) url() string { return "http://" + g.addr + "/mcp" }

func (g *game) serve(ln net.Listener) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.srv }, nil)
	g.hs = &http.Server{Handler: h}
	go func() { _ = g.hs.Serve(ln) }()
}

// stop kills the game: every connection drops at once.
func (g *game) stop() { _ = g.hs.Close() }

// start brings the game back on the same address.
func (g *game) start() {
	g.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ln, err := net.Listen("tcp", g.addr)
		if err == nil {
			g.serve(ln)
			return
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("listen again on %s: %v", g.addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// env is mcplogd (store, gateway, HTTP server) with a client connected to
// its MCP endpoint, as an agent would be.
type env struct {
	t   testing.TB
	log *oplog.Log
	gw  *gateway.Gateway
	cs  *mcp.ClientSession
}

func newEnv(t testing.TB, ups ...gateway.Upstream) *env {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "log.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	gw, err := gateway.New(l, ups, &gateway.Options{Reserved: mcptools.ToolNames(), MinBackoff: 20 * time.Millisecond,
		MaxBackoff: 200 * time.Millisecond, KeepAlive: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(l, &api.Options{Token: testToken, Options: mcptools.Options{Gateway: gw}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = gw.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = l.Close()
	})
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp/" + testToken}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &env{t: t, log: l, gw: gw, cs: cs}
}

// eventually waits up to 30 s for cond (CI machines can be slow).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	logtest.Eventually(t, 30*time.Second, what, cond)
}

func (e *env) tools() map[string]*mcp.Tool {
	e.t.Helper()
	res, err := e.cs.ListTools(context.Background(), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

// waitTool waits until the agent sees the tool name.
func (e *env) waitTool(name string) *mcp.Tool {
	e.t.Helper()
	var tool *mcp.Tool
	eventually(e.t, "tool "+name, func() bool { tool = e.tools()[name]; return tool != nil })
	return tool
}

func (e *env) call(name string, args any) *mcp.CallToolResult {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// structured decodes a result's structuredContent into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
}

func logID(t *testing.T, res *mcp.CallToolResult) uint64 {
	t.Helper()
	v, ok := res.Meta["log_id"].(float64)
	if !ok || v <= 0 {
		t.Fatalf("_meta.log_id = %v, want an ID", res.Meta["log_id"])
	}
	return uint64(v)
}

// record returns operation id once its outcome is recorded (the agent's
// answer does not wait for that commit), or a line.
func (e *env) record(id uint64) oplog.Record {
	e.t.Helper()
	r, err := e.log.AwaitComplete(ctxTimeout(e.t, 10*time.Second), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func TestGateway_ProxiesAndRecordsCalls(t *testing.T) {
	g := newGame(t)
	e := newEnv(t, gateway.Upstream{Name: "game", URL: g.url()})
	echo := e.waitTool("echo")
	if echo.Annotations == nil || !echo.Annotations.ReadOnlyHint || echo.Description != "echoes" {
		t.Errorf("echo offered as %+v, want the upstream's description and readOnlyHint", echo)
	}
	tools := e.tools()
	if tools["game__get_logs"] == nil || !strings.Contains(tools["get_logs"].Description, "newest first") {
		t.Errorf("the game's get_logs should be offered as game__get_logs beside mcplogd's own get_logs")
	}

	res := e.call("echo", map[string]any{"message": "hello"})
	var out map[string]string
	structured(t, res, &out)
	if res.IsError || out["echo"] != "hello" {
		t.Fatalf("echo answered %+v", res)
	}
	r := e.record(logID(t, res))
	if r.Kind != oplog.KindOp || r.Source != "game" || r.Tool != "echo" || r.Status != oplog.StatusSuccess ||
		!strings.Contains(string(r.Arguments), `"hello"`) || !strings.Contains(string(r.Result), `"echo":"hello"`) {
		t.Errorf("recorded %+v", r)
	}
	if r.StartTime.IsZero() || r.EndTime.Before(r.StartTime) {
		t.Errorf("times %v..%v", r.StartTime, r.EndTime)
	}

	res = e.call("game__get_logs", nil)
	structured(t, res, &out)
	if out["logs"] != "game" {
		t.Errorf("game__get_logs answered %+v", res)
	}
}

func TestGateway_TimeoutAnswersPendingThenGetResult(t *testing.T) {
	g := newGame(t)
	e := newEnv(t, gateway.Upstream{Name: "game", URL: g.url()})
	e.waitTool("slow")
	if res := e.call("slow", map[string]any{"timeout": "soon"}); !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "timeout: want milliseconds") {
		t.Fatalf("a timeout that is not a number: %+v", res)
	}
	res := e.call("slow", map[string]any{"timeout": "50"}) // a number in a string, as the Inspector's CLI sends it
	var p struct {
		Status     string `json:"status"`
		LogID      uint64 `json:"log_id"`
		IsComplete bool   `json:"is_complete"`
	}
	structured(t, res, &p)
	if p.Status != "pending" || p.IsComplete || p.LogID == 0 || logID(t, res) != p.LogID {
		t.Fatalf("slow with a timeout answered %+v", res)
	}
	if r, err := e.log.Get(context.Background(), p.LogID); err != nil || r.Status != oplog.StatusPending || strings.Contains(string(r.Arguments), "timeout") {
		t.Errorf("recorded %+v; want pending, and the timeout not forwarded (slow does not declare it)", r)
	}
	close(g.release)
	res = e.call("get_result", map[string]any{"log_id": p.LogID, "waitMs": 10_000})
	var got struct {
		Status     string          `json:"status"`
		IsComplete bool            `json:"isComplete"`
		Result     json.RawMessage `json:"result"`
	}
	structured(t, res, &got)
	if got.Status != "success" || !got.IsComplete || !strings.Contains(string(got.Result), `"slow":"done"`) {
		t.Errorf("get_result answered %+v", got)
	}
}

func TestGateway_ErrorsAndCrashes(t *testing.T) {
	g := newGame(t)
	e := newEnv(t, gateway.Upstream{Name: "game", URL: g.url()})
	e.waitTool("world")
	for range 3 {
		res := e.call("world", nil)
		if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "stack traceback") {
			t.Fatalf("world answered %+v; want the upstream's error unchanged", res)
		}
		if r := e.record(logID(t, res)); r.Status != oplog.StatusError || !strings.Contains(r.Error, "attempt to index a nil value") {
			t.Errorf("recorded %+v, want status error with the message", r)
		}
	}
	p, err := e.log.List(context.Background(), oplog.Query{Filter: oplog.Filter{Kind: oplog.KindLine, MinLevel: oplog.LevelFatal}, Count: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Records) != 1 || p.Records[0].Source != "game" || !strings.Contains(p.Records[0].Stack, "main.lua:40") ||
		!strings.HasPrefix(p.Records[0].Text, "scripts/world.lua:12: attempt to index") {
		t.Fatalf("fatal lines %+v, want the traceback once", p.Records)
	}
}

func TestGateway_Replay(t *testing.T) {
	g := newGame(t)
	e := newEnv(t, gateway.Upstream{Name: "game", URL: g.url()})
	e.waitTool("spawn")
	replay := func(args map[string]any) (*mcp.CallToolResult, oplog.Replay) {
		res := e.call("replay_operation", args)
		var out struct {
			Original struct{ ID uint64 } `json:"original"`
			Replay   struct{ ID uint64 } `json:"replay"`
			Same     bool                `json:"same"`
			Diff     string              `json:"diff"`
		}
		if !res.IsError {
			structured(t, res, &out)
		}
		return res, oplog.Replay{Original: oplog.Record{ID: out.Original.ID}, Replay: oplog.Record{ID: out.Replay.ID}, Same: out.Same, Diff: out.Diff}
	}
	echo := logID(t, e.call("echo", map[string]any{"message": "again"}))
	res, r := replay(map[string]any{"log_id": echo})
	if res.IsError || !r.Same || r.Original.ID != echo || r.Replay.ID <= echo {
		t.Fatalf("replay of echo: %+v %+v", res, r)
	}
	if again := e.record(r.Replay.ID); again.ReplayOf != echo || again.Tool != "echo" || again.Source != "game" {
		t.Errorf("the replay was recorded as %+v", again)
	}

	spawn := logID(t, e.call("spawn", nil))
	res, _ = replay(map[string]any{"log_id": spawn})
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "confirm") {
		t.Fatalf("replaying spawn without confirm: %+v", res)
	}
	res, r = replay(map[string]any{"log_id": spawn, "confirm": true})
	if res.IsError || r.Same || !strings.Contains(r.Diff, "entity") {
		t.Fatalf("replay of spawn: %+v %+v; want same false and a diff naming entity", res, r)
	}
	if tool := e.tools()["replay_operation"]; tool.Annotations == nil || tool.Annotations.DestructiveHint == nil || !*tool.Annotations.DestructiveHint {
		t.Errorf("replay_operation annotations %+v, want destructive", tool.Annotations)
	}
}

func TestGateway_UpstreamDiesAndComesBack(t *testing.T) {
	g := newGame(t)
	e := newEnv(t, gateway.Upstream{Name: "game", URL: g.url()})
	e.waitTool("slow")
	id := logID(t, e.call("slow", map[string]any{"timeout": 20}))
	g.stop()
	r, err := e.log.AwaitComplete(ctxTimeout(t, 10*time.Second), id)
	if err != nil || r.Status != oplog.StatusError {
		t.Fatalf("the call in flight when the upstream died: %+v, %v; want status error", r, err)
	}
	eventually(t, "the upstream to be seen down", func() bool { return e.gw.Status()[0].State != oplog.UpstreamUp })
	res := e.call("echo", map[string]any{"message": "anyone?"})
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "upstream game is") {
		t.Fatalf("a call while the upstream is down: %+v", res)
	}
	if r := e.record(logID(t, res)); r.Status != oplog.StatusError {
		t.Errorf("a call while down recorded as %+v", r)
	}
	info := e.call("store_info", nil)
	var si struct {
		Upstreams []oplog.UpstreamStatus `json:"upstreams"`
	}
	structured(t, info, &si)
	if len(si.Upstreams) != 1 || si.Upstreams[0].Name != "game" || si.Upstreams[0].State == oplog.UpstreamUp {
		t.Errorf("store_info upstreams %+v", si.Upstreams)
	}

	g.start()
	eventually(t, "the upstream to come back", func() bool { return e.gw.Status()[0].State == oplog.UpstreamUp })
	res = e.call("echo", map[string]any{"message": "back"})
	if res.IsError {
		t.Fatalf("echo after the upstream came back: %+v", res)
	}
}

func TestGateway_ToolListChangedAndLogMessages(t *testing.T) {
	g := newGame(t)
	e := newEnv(t, gateway.Upstream{Name: "game", URL: g.url()})
	e.waitTool("say")
	mcp.AddTool(g.srv, &mcp.Tool{Name: "teleport", Description: "new in this build"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, map[string]bool, error) {
			return nil, map[string]bool{"ok": true}, nil
		})
	if tool := e.waitTool("teleport"); tool.Description != "new in this build" {
		t.Errorf("teleport offered as %+v", tool)
	}
	g.srv.RemoveTools("spawn")
	eventually(t, "spawn to go", func() bool { return e.tools()["spawn"] == nil })

	e.call("say", map[string]any{"message": "gg everyone"})
	eventually(t, "the log message as a console line", func() bool {
		p, err := e.log.List(context.Background(), oplog.Query{Filter: oplog.Filter{Kind: oplog.KindLine, Source: "game"}, Count: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Records {
			if r.Text == "gg everyone" {
				if r.Level != oplog.LevelWarn || r.Name != "chat" {
					t.Fatalf("stored as %+v; want level warn (from warning), name chat", r)
				}
				return true
			}
		}
		return false
	})
}

func TestParseUpstream(t *testing.T) {
	for _, c := range []struct {
		in   string
		want gateway.Upstream
	}{
		{"mc=http://127.0.0.1:8080/mcp/abc", gateway.Upstream{Name: "mc", URL: "http://127.0.0.1:8080/mcp/abc"}},
		{`unity=cmd:node "my bridge.js" --port 7 'a b'`, gateway.Upstream{Name: "unity", Command: []string{"node", "my bridge.js", "--port", "7", "a b"}}},
	} {
		got, err := gateway.ParseUpstream(c.in)
		if err != nil || got.String() != c.want.String() || len(got.Command) != len(c.want.Command) {
			t.Errorf("%s: %+v, %v; want %+v", c.in, got, err, c.want)
		}
		for i := range got.Command {
			if got.Command[i] != c.want.Command[i] {
				t.Errorf("%s: word %d %q, want %q", c.in, i, got.Command[i], c.want.Command[i])
			}
		}
	}
	for _, bad := range []string{"", "mc", "=http://x", "mc=ftp://x", "m c=http://x", "a__b=http://x", `u=cmd:node "open`, "u=cmd:"} {
		if _, err := gateway.ParseUpstream(bad); oplog.ErrorCode(err) != oplog.EINVALID {
			t.Errorf("%q: %v, want EINVALID", bad, err)
		}
	}
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestGateway_CloseCancelsPendingCalls(t *testing.T) {
	g := newGame(t)
	e := newEnv(t, gateway.Upstream{Name: "game", URL: g.url()})
	e.waitTool("slow")
	id := logID(t, e.call("slow", map[string]any{"timeout": 20}))
	if err := e.gw.Close(); err != nil {
		t.Fatal(err)
	}
	if r := e.record(id); r.Status != oplog.StatusCancelled || !strings.Contains(r.Error, "stopped") {
		t.Fatalf("a call running when mcplogd stopped: %+v; want cancelled", r)
	}
}

func TestGateway_SettlesCallsLeftPending(t *testing.T) {
	for _, indexed := range []bool{false, true} {
		dir := t.TempDir()
		db, err := store.Open(filepath.Join(dir, "log.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		l := oplog.New(db, nil)
		if indexed {
			idx, err := search.Open(filepath.Join(dir, "index"), db, nil)
			if err != nil {
				t.Fatal(err)
			}
			l.SetIndex(idx)
		}
		// What a kill leaves: pending calls of the upstream (and of others).
		recs := []oplog.Record{{Kind: oplog.KindOp, Source: "game", Tool: "slow"}, {Kind: oplog.KindOp, Source: "other", Tool: "slow"},
			{Kind: oplog.KindOp, Source: "game", Tool: "echo", Status: oplog.StatusSuccess}}
		if err := l.Append(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
		gw, err := gateway.New(l, []gateway.Upstream{{Name: "game", URL: "http://127.0.0.1:1/mcp"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r, _ := l.Get(context.Background(), recs[0].ID); r.Status != oplog.StatusCancelled || !strings.Contains(r.Error, "mcplogd stopped") {
			t.Errorf("indexed %v: the game's call left pending is %+v, want cancelled", indexed, r)
		}
		if r, _ := l.Get(context.Background(), recs[1].ID); r.Status != oplog.StatusPending {
			t.Errorf("indexed %v: another source's pending call became %s", indexed, r.Status)
		}
		_ = gw.Close()
		_ = l.Close()
	}
}

func TestGateway_ResultsOverTheRecordLimits(t *testing.T) {
	g := newGame(t)
	e := newEnv(t, gateway.Upstream{Name: "game", URL: g.url()})
	e.waitTool("big")
	res := e.call("big", nil)
	if got := text(t, res); len(got) != 2<<20 {
		t.Fatalf("the agent got %d bytes (%.100s), want all %d", len(got), got, 2<<20)
	}
	if r := e.record(logID(t, res)); r.Status != oplog.StatusSuccess || !strings.Contains(string(r.Result), "omitted") {
		t.Errorf("a 2 MiB result recorded as status %s, result %.200s", r.Status, r.Result)
	}
	res = e.call("big", map[string]any{"fail": true})
	if r := e.record(logID(t, res)); r.Status != oplog.StatusError || len(r.Error) > oplog.MaxTextBytes || !strings.HasSuffix(r.Error, "…") {
		t.Errorf("a 300 KiB error recorded as status %s, %d bytes of error", r.Status, len(r.Error))
	}
}
