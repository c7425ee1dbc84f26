package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// checkBusy checks a refusal for a full cap: 503 with Retry-After.
func checkBusy(t *testing.T, what string, status int, header http.Header) {
	t.Helper()
	if status != http.StatusServiceUnavailable || header.Get("Retry-After") == "" {
		t.Fatalf("%s past the cap: %d, Retry-After %q; want 503 with Retry-After", what, status, header.Get("Retry-After"))
	}
}

// TestServer_Limits_Streams: past Limits.Streams open event streams, 503
// with Retry-After; closing one frees its slot.
func TestServer_Limits_Streams(t *testing.T) {
	h := mustServe(t, &harnessOptions{API: api.Options{Limits: api.Limits{Streams: 2}}})
	var cancels []context.CancelFunc
	for range 2 {
		status, _, lines, cancel := rawStream(t, h, "/api/v1/stream", "Bearer "+testToken)
		if status != http.StatusOK || !untilEvent(t, lines, "event: lines") {
			t.Fatalf("stream within the cap: %d", status)
		}
		cancels = append(cancels, cancel)
	}
	status, header, _, _ := rawStream(t, h, "/api/v1/stream", "Bearer "+testToken)
	checkBusy(t, "a third stream", status, header)
	status, body := h.Call(http.MethodGet, "/api/v1/tail", "")
	if status != http.StatusOK {
		t.Fatalf("a plain tail beside full streams: %d %s", status, body)
	}
	cancels[0]()
	logtest.Eventually(t, 10*time.Second, "the closed stream's slot freed", func() bool { return h.Srv.Streams() == 1 })
	if status, _, _, _ := rawStream(t, h, "/api/v1/stream", "Bearer "+testToken); status != http.StatusOK {
		t.Fatalf("a stream after one closed: %d", status)
	}
}

// TestServer_Limits_LongPolls: past Limits.LongPolls waiting requests, a
// waiting tail gets 503 with Retry-After, as does an MCP console_tail with
// waitMs (a JSON-RPC error, the session goes on); a tail that does not
// wait is answered; once the waiter ends, waiting works again.
func TestServer_Limits_LongPolls(t *testing.T) {
	h := mustServe(t, &harnessOptions{API: api.Options{Limits: api.Limits{LongPolls: 1}}})
	done := make(chan int, 1)
	go func() {
		status, _, _ := h.Send(context.Background(), http.MethodGet, "/api/v1/tail?sinceId=0&waitMs=30000", "Bearer "+testToken, nil)
		done <- status
	}()
	logtest.Eventually(t, 10*time.Second, "the first long poll waiting", func() bool { return h.Srv.Waiting() == 1 })
	req, _ := http.NewRequest(http.MethodGet, h.URL+"/api/v1/tail?sinceId=0&waitMs=1000", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	checkBusy(t, "a second long poll", resp.StatusCode, resp.Header)
	if status, body := h.Call(http.MethodGet, "/api/v1/tail?sinceId=0", ""); status != http.StatusOK {
		t.Fatalf("a tail without waitMs: %d %s", status, body)
	}

	m := mustConnect(t, h, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = m.session.CallTool(ctx, &mcp.CallToolParams{Name: "console_tail", Arguments: map[string]any{"sinceId": 0, "waitMs": 1000}})
	if err == nil || !strings.Contains(err.Error(), "Service Unavailable") { // the go-sdk client names the status only
		t.Fatalf("console_tail with waitMs past the cap: %v; want 503", err)
	}
	status, body := rawMCP(h, t, http.MethodPost, "/mcp/"+testToken,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"console_tail","arguments":{"waitMs":500}}}`,
		map[string]string{"Mcp-Session-Id": m.session.ID()})
	if status != http.StatusServiceUnavailable || !strings.Contains(body, `"id":7`) || !strings.Contains(body, "too many waiting long polls") {
		t.Fatalf("raw console_tail with waitMs past the cap: %d %s; want 503 and a JSON-RPC error naming the cap", status, body)
	}
	if _, err := m.session.CallTool(ctx, &mcp.CallToolParams{Name: "console_tail", Arguments: map[string]any{"sinceId": 0}}); err != nil {
		t.Fatalf("console_tail without waitMs, same session: %v", err)
	}

	logtest.MustAppend(t, h.Log, oplog.Record{Level: oplog.LevelInfo, Text: "wake"})
	if status := <-done; status != http.StatusOK {
		t.Fatalf("the first long poll: %d", status)
	}
	logtest.Eventually(t, 10*time.Second, "the slot freed", func() bool { return h.Srv.Waiting() == 0 })
	res, err := m.session.CallTool(ctx, &mcp.CallToolParams{Name: "console_tail", Arguments: map[string]any{"sinceId": 0, "waitMs": 1000}})
	if err != nil || res.IsError {
		t.Fatalf("console_tail with waitMs once the slot is free: %v %+v", err, res)
	}
}

// TestMCP_Limits_Sessions: past Limits.MCPSessions open sessions, an
// initialize gets 503 with Retry-After; closing a session frees its slot.
func TestMCP_Limits_Sessions(t *testing.T) {
	h := mustServe(t, &harnessOptions{API: api.Options{Limits: api.Limits{MCPSessions: 2}}})
	a := mustConnectAt(t, h, nil, sessionVersion)
	mustConnectAt(t, h, nil, sessionVersion)
	req, _ := http.NewRequest(http.MethodPost, mcpURL(h), strings.NewReader(initializeBody("2025-06-18")))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	checkBusy(t, "a third session", resp.StatusCode, resp.Header)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "third", Version: "1"}, nil)
	if cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL(h)}, &mcp.ClientSessionOptions{ProtocolVersion: sessionVersion}); err == nil {
		cs.Close()
		t.Fatal("a go-sdk client connected past the cap")
	}
	if err := a.session.Close(); err != nil { // DELETE
		t.Fatal(err)
	}
	logtest.Eventually(t, 10*time.Second, "the closed session gone", func() bool { return h.Srv.Sessions() == 1 })
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL(h)}, &mcp.ClientSessionOptions{ProtocolVersion: sessionVersion})
	if err != nil {
		t.Fatalf("connect after a session closed: %v", err)
	}
	cs.Close()
}

// TestMCP_Limits_IdleSessionReaped: a session that sends nothing for
// Limits.MCPSessionIdle is closed; its next request gets 404. The second
// leaves the client time to finish connecting on a slow machine (Wine).
func TestMCP_Limits_IdleSessionReaped(t *testing.T) {
	h := mustServe(t, &harnessOptions{API: api.Options{Limits: api.Limits{MCPSessionIdle: time.Second}}})
	m := mustConnectAt(t, h, nil, sessionVersion)
	logtest.Eventually(t, 10*time.Second, "the idle session reaped", func() bool { return h.Srv.Sessions() == 0 })
	status, body := rawMCP(h, t, http.MethodPost, "/mcp/"+testToken, `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		map[string]string{"Mcp-Session-Id": m.session.ID()})
	if status != http.StatusNotFound {
		t.Fatalf("a request of the reaped session: %d %s, want 404", status, body)
	}
}

// TestMCP_Limits_SessionsEscapedMethod: an initialize whose method is
// spelled with a JSON escape counts against the cap too: at the cap of one,
// the second evicts the first (idle) session.
func TestMCP_Limits_SessionsEscapedMethod(t *testing.T) {
	h := mustServe(t, &harnessOptions{API: api.Options{Limits: api.Limits{MCPSessions: 1}}})
	body := strings.Replace(initializeBody("2025-06-18"), `"initialize"`, `"\u0069nitialize"`, 1)
	status, header, out, err := postMCP(context.Background(), h, "", body)
	if err != nil || status != http.StatusOK {
		t.Fatalf("first escaped initialize: %d %s %v", status, out, err)
	}
	first := header.Get("Mcp-Session-Id")
	logtest.Eventually(t, 10*time.Second, "the session open", func() bool { return h.Srv.Sessions() == 1 })
	if status, out := rawMCP(h, t, http.MethodPost, "/mcp/"+testToken, body, nil); status != http.StatusOK {
		t.Fatalf("second escaped initialize at the cap: %d %s, want 200 (the first evicted)", status, out)
	}
	if status := ping(t, h, first); status != http.StatusNotFound {
		t.Errorf("a request of the first session: %d, want 404 (evicted to make room: the second counted)", status)
	}
	logtest.Eventually(t, 10*time.Second, "one session open", func() bool { return h.Srv.Sessions() == 1 })
}
