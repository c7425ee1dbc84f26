package api_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// clock is a session clock that a test moves by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// mustServeSessions serves a fresh store with at most max MCP sessions
// (0: the default) on a clock the test moves; the server logs at INFO to
// the returned buffer.
func mustServeSessions(t *testing.T, max int) (*harness, *clock, *logtest.Buffer) {
	t.Helper()
	var buf logtest.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := mustServe(t, &harnessOptions{API: api.Options{Options: mcptools.Options{Logger: logger}, Limits: api.Limits{MCPSessions: max}}})
	c := &clock{now: time.Now()}
	api.SetSessionClock(h.Srv, c.Now)
	return h, c, &buf
}

// postMCP posts body to the MCP endpoint in session id ("": none) and
// returns the answer's status, header and body.
func postMCP(ctx context.Context, h *harness, id, body string) (int, http.Header, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, mcpURL(h), strings.NewReader(body))
	if err != nil {
		return 0, nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b), err
}

// openSession opens a session as a client that then abandons it would:
// initialize and notifications/initialized, no GET stream. It returns the
// initialize's status, header and body, and the session's ID.
func openSession(t *testing.T, h *harness) (int, http.Header, string, string) {
	t.Helper()
	status, header, body, err := postMCP(context.Background(), h, "", initializeBody(sessionVersion))
	if err != nil {
		t.Fatal(err)
	}
	id := header.Get("Mcp-Session-Id")
	if status == http.StatusOK {
		if s, _, b, err := postMCP(context.Background(), h, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || s != http.StatusAccepted {
			t.Fatalf("notifications/initialized: %d %s %v", s, b, err)
		}
	}
	return status, header, body, id
}

// mustOpenSession is openSession for a session that must be admitted.
func mustOpenSession(t *testing.T, h *harness) string {
	t.Helper()
	status, _, body, id := openSession(t, h)
	if status != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s, want 200 and a session", status, body)
	}
	return id
}

// ping sends ping in session id and returns the status.
func ping(t *testing.T, h *harness, id string) int {
	t.Helper()
	status, _, _, err := postMCP(context.Background(), h, id, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if err != nil {
		t.Fatal(err)
	}
	return status
}

// evictions returns the server's eviction lines.
func evictions(buf *logtest.Buffer) []string {
	var lines []string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "MCP session evicted") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestMCP_Sessions_AbandonedMakeRoom: 300 sessions opened one a second and
// abandoned fill the default cap of 256; the oldest idle ones make room, so
// every initialize is admitted, and so is a new go-sdk client after them.
// Each eviction is logged at INFO with its idle time; an evicted session's
// next request gets 404.
func TestMCP_Sessions_AbandonedMakeRoom(t *testing.T) {
	h, clk, buf := mustServeSessions(t, 0)
	var ids []string
	for range 300 {
		clk.Add(time.Second)
		ids = append(ids, mustOpenSession(t, h))
	}
	logtest.Eventually(t, 10*time.Second, "the evicted sessions closed", func() bool { return h.Srv.Sessions() == api.DefaultMaxMCPSessions })

	clk.Add(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "new", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: mcpURL(h)}, &mcp.ClientSessionOptions{ProtocolVersion: sessionVersion})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("a new client beside 300 abandoned sessions: %v", err)
	}
	defer cs.Close()
	t.Logf("a new client admitted beside 300 abandoned sessions in %s", took)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "console_tail", Arguments: map[string]any{}}); err != nil {
		t.Fatalf("console_tail of the new client: %v", err)
	}

	lines := evictions(buf)
	if len(lines) != 300+1-api.DefaultMaxMCPSessions {
		t.Errorf("%d evictions logged, want %d:\n%s", len(lines), 300+1-api.DefaultMaxMCPSessions, strings.Join(lines, "\n"))
	}
	// The first made room for the 257th session, 256 s after the first opened.
	if len(lines) > 0 && (!strings.Contains(lines[0], "level=INFO") || !strings.Contains(lines[0], "idle=4m16s") ||
		!strings.Contains(lines[0], "session_id="+ids[0])) {
		t.Errorf("the first eviction: %s; want INFO, idle=4m16s, session_id=%s", lines[0], ids[0])
	}
	if status := ping(t, h, ids[0]); status != http.StatusNotFound {
		t.Errorf("a request of the evicted first session: %d, want 404", status)
	}
	if status := ping(t, h, ids[len(ids)-1]); status != http.StatusOK {
		t.Errorf("a request of the newest abandoned session, not evicted: %d, want 200", status)
	}
}

// TestMCP_Sessions_LiveSessionKept: while 300 sessions are opened and
// abandoned around them, a go-sdk client calling tools all along and a
// session with no GET stream that pings between them never fail.
func TestMCP_Sessions_LiveSessionKept(t *testing.T) {
	h, clk, _ := mustServeSessions(t, 0)
	live := mustConnectAt(t, h, nil, sessionVersion)
	quiet := mustOpenSession(t, h)

	var calls atomic.Int64
	failed := make(chan error, 1)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			_, err := live.session.CallTool(ctx, &mcp.CallToolParams{Name: "console_tail", Arguments: map[string]any{}})
			cancel()
			if err != nil {
				failed <- err
				return
			}
			calls.Add(1)
		}
	}()
	for i := range 300 {
		clk.Add(time.Second)
		mustOpenSession(t, h)
		if status := ping(t, h, quiet); status != http.StatusOK {
			t.Fatalf("ping of the session without a GET stream, after %d abandoned sessions: %d", i+1, status)
		}
	}
	after := calls.Load()
	logtest.Eventually(t, 20*time.Second, "a call of the live client after the 300 sessions", func() bool {
		return calls.Load() > after || len(failed) > 0
	})
	close(stop)
	<-done
	select {
	case err := <-failed:
		t.Fatalf("the live client's call failed after %d calls: %v", calls.Load(), err)
	default:
	}
	t.Logf("the live client made %d calls while 300 sessions were abandoned", calls.Load())
}

// TestMCP_Sessions_InUseNotEvicted: at the cap, a session with an open GET
// stream (the go-sdk client's) and one with a console_tail waiting are not
// evicted however long ago their requests began: the new client gets 503
// saying what to do. Once the call ends its session is idle, and the next
// initialize evicts it at once; its next request gets 404.
func TestMCP_Sessions_InUseNotEvicted(t *testing.T) {
	h, clk, buf := mustServeSessions(t, 2)
	streaming := mustConnectAt(t, h, nil, sessionVersion)
	logtest.Eventually(t, 10*time.Second, "the go-sdk client's GET stream open", func() bool {
		return api.SessionInUse(h.Srv, streaming.session.ID())
	})
	waiting := mustOpenSession(t, h)
	answered := make(chan int, 1)
	go func() {
		status, _, _, _ := postMCP(context.Background(), h, waiting,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"console_tail","arguments":{"sinceId":0,"waitMs":30000}}}`)
		answered <- status
	}()
	logtest.Eventually(t, 10*time.Second, "console_tail waiting", func() bool { return h.Srv.Waiting() == 1 })

	clk.Add(10 * time.Minute)
	status, header, body, _ := openSession(t, h)
	checkBusy(t, "an initialize while both sessions are in use", status, header)
	for _, want := range []string{"all 2 are in use", "--max-mcp-sessions", "close the MCP clients you no longer use"} {
		if !strings.Contains(body, want) {
			t.Errorf("the refusal %s does not say %q", body, want)
		}
	}

	logtest.MustAppend(t, h.Log, oplog.Record{Level: oplog.LevelInfo, Text: "wake"})
	if status := <-answered; status != http.StatusOK {
		t.Fatalf("the waiting console_tail: %d", status)
	}
	logtest.Eventually(t, 10*time.Second, "the call ended", func() bool { return !api.SessionInUse(h.Srv, waiting) })
	mustOpenSession(t, h)
	if status := ping(t, h, waiting); status != http.StatusNotFound {
		t.Errorf("a request of the evicted session: %d, want 404", status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := streaming.session.Ping(ctx, nil); err != nil {
		t.Errorf("the session with a GET stream after the eviction: %v", err)
	}
	if lines := evictions(buf); len(lines) != 1 || !strings.Contains(lines[0], "session_id="+waiting) || !strings.Contains(lines[0], "idle=0s") {
		t.Errorf("evictions logged: %q; want one of %s, idle=0s", lines, waiting)
	}
}

// TestMCP_Sessions_WorkingGoLast: at the cap, a session that called lately
// is kept and a newer one that never called past its initialize makes
// room; once SessionRecent has passed since its call, the caller is just
// the least recently used, and goes.
func TestMCP_Sessions_WorkingGoLast(t *testing.T) {
	h, clk, buf := mustServeSessions(t, 2)
	working := mustOpenSession(t, h)
	clk.Add(time.Second)
	if status := ping(t, h, working); status != http.StatusOK {
		t.Fatalf("ping: %d", status)
	}
	clk.Add(time.Second)
	abandoned := mustOpenSession(t, h)
	clk.Add(time.Second)
	third := mustOpenSession(t, h)
	if status := ping(t, h, abandoned); status != http.StatusNotFound {
		t.Errorf("the newer session that never called: %d, want 404 (evicted)", status)
	}
	if status := ping(t, h, working); status != http.StatusOK {
		t.Errorf("the older session that called a second before: %d, want 200 (kept)", status)
	}
	clk.Add(time.Second)
	if status := ping(t, h, third); status != http.StatusOK {
		t.Fatalf("ping: %d", status)
	}
	clk.Add(api.SessionRecent)
	mustOpenSession(t, h)
	if status := ping(t, h, working); status != http.StatusNotFound {
		t.Errorf("the caller, %s after its call and least recently used: %d, want 404 (evicted)", api.SessionRecent, status)
	}
	if n := len(evictions(buf)); n != 2 {
		t.Errorf("%d evictions logged, want 2", n)
	}
}

// TestMCP_Sessions_FloodAdmitsNewClient: with --max-mcp-sessions 50, 300
// clients that send initialize and nothing more, all within a second or two,
// are all admitted, and a new go-sdk client after them connects and calls a
// tool within 10 s; meanwhile a session with a console_tail waiting, one with
// a GET stream and one that pinged just before the flood are not evicted.
// (Before, every session within two minutes of its last request counted as in
// use: the flood's 51st initialize and every client after it got 503 for
// two minutes.)
func TestMCP_Sessions_FloodAdmitsNewClient(t *testing.T) {
	h, _, buf := mustServeSessions(t, 50)
	api.SetSessionClock(h.Srv, time.Now)
	streaming := mustConnectAt(t, h, nil, sessionVersion)
	logtest.Eventually(t, 10*time.Second, "the go-sdk client's GET stream open", func() bool {
		return api.SessionInUse(h.Srv, streaming.session.ID())
	})
	waiting, quiet := mustOpenSession(t, h), mustOpenSession(t, h)
	answered := make(chan string, 1)
	go func() {
		status, _, body, _ := postMCP(context.Background(), h, waiting,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"console_tail","arguments":{"sinceId":0,"waitMs":60000}}}`)
		answered <- fmt.Sprint(status, " ", body)
	}()
	logtest.Eventually(t, 10*time.Second, "console_tail waiting", func() bool { return h.Srv.Waiting() == 1 })
	if status := ping(t, h, quiet); status != http.StatusOK {
		t.Fatalf("ping: %d", status)
	}

	refused := 0
	for range 300 {
		status, _, _, err := postMCP(context.Background(), h, "", initializeBody(sessionVersion))
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusOK {
			refused++
		}
	}
	if refused > 0 {
		t.Errorf("%d of 300 initializes refused at the cap of 50; want every one admitted", refused)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "new", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: mcpURL(h)}, &mcp.ClientSessionOptions{ProtocolVersion: sessionVersion})
	if err != nil {
		t.Fatalf("a new client after 300 abandoned sessions: %v", err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "console_tail", Arguments: map[string]any{}}); err != nil {
		t.Fatalf("console_tail of the new client: %v", err)
	}
	t.Logf("a new client admitted and answered after 300 abandoned sessions in %s", time.Since(start))

	logtest.MustAppend(t, h.Log, oplog.Record{Level: oplog.LevelInfo, Text: "wake"})
	if got := <-answered; !strings.HasPrefix(got, "200 ") || !strings.Contains(got, "wake") {
		t.Errorf("the console_tail that waited through the flood: %s; want 200 with the line", got)
	}
	if status := ping(t, h, quiet); status != http.StatusOK {
		t.Errorf("the session that pinged before the flood: %d, want 200 (kept)", status)
	}
	if err := streaming.session.Ping(ctx, nil); err != nil {
		t.Errorf("the session with a GET stream after the flood: %v", err)
	}
	logtest.Eventually(t, 10*time.Second, "the evicted sessions closed", func() bool { return h.Srv.Sessions() <= 50 })
	if n, want := len(evictions(buf)), 3+300+1-50; n != want {
		t.Errorf("%d evictions logged, want %d", n, want)
	}
}
