package mcptools

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

func TestMCP_RecoverPanics(t *testing.T) {
	tools := &toolset{opts: Options{Logger: slog.New(slog.DiscardHandler)}}
	h := tools.recoverPanics(func(context.Context, string, mcp.Request) (mcp.Result, error) { panic("boom") })
	res, err := h(context.Background(), "tools/call", nil)
	if res != nil || err == nil || !strings.Contains(err.Error(), "tools/call") {
		t.Fatalf("after a panic: %v, %v; want an internal error naming the method", res, err)
	}
}

// TestMCP_UndeliveredNotificationIsNoWarning: a client of the streamable
// HTTP transport that keeps no standalone stream open (the protocol
// allows it) cannot be told that the tools changed; the SDK's complaint
// goes to the log at debug, not as a warning at every upstream restart.
func TestMCP_UndeliveredNotificationIsNoWarning(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	l := oplog.New(oplogtest.NewMemory(), nil)
	t.Cleanup(func() { l.Close() })
	srv := New(l, &Options{Version: "test", Logger: logger})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	post := func(session, body string) string {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Header.Get("Mcp-Session-Id")
	}
	session := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`)
	if session == "" {
		t.Fatal("no session")
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	srv.AddTool(&mcp.Tool{Name: "spawn_enemy", InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	deadline := time.Now().Add(15 * time.Second)
	for {
		mu.Lock()
		out := buf.String()
		mu.Unlock()
		if i := strings.Index(out, "calling notifications/tools/list_changed"); i >= 0 {
			line := out[strings.LastIndexByte(out[:i], '\n')+1:]
			if !strings.Contains(line, "level=DEBUG") {
				t.Fatalf("the undelivered notification logged as %q", line)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the SDK said nothing of the notification it could not deliver:\n%s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (lw *lockedWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.w.Write(p)
}
