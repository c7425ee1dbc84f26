package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// FuzzServer_MCPModern sends arbitrary bodies as 2026-07-28 requests (no
// session, the version in the header): whatever arrives, the server
// answers without a 5xx, and a JSON answer is valid JSON. The seeds are
// requests with their _meta, broken _meta and broken JSON.
func FuzzServer_MCPModern(f *testing.F) {
	l, _ := logtest.MustOpenLog(f, nil)
	logtest.MustAppend(f, l, logtest.Lines(3, "line")...)
	s, err := api.New(l, &api.Options{Token: testToken})
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"f","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping","arguments":{},` + meta + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_logs_by_name","arguments":{"logName":"x","limit":"2"},` + meta + `}}`,
		`{"jsonrpc":"2.0","id":4,"method":"subscriptions/listen","params":{"notifications":{},` + meta + `}}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"mcplogd://console",` + meta + `}}`,
		`{"jsonrpc":"2.0","id":6,"method":"initialize","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1`, `null`, ``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp/"+testToken, strings.NewReader(body))
		req.Host = "127.0.0.1:7170"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("POST %q: %d %s", body, w.Code, w.Body)
		}
		if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") && w.Body.Len() > 0 &&
			!json.Valid(bytes.TrimSpace(w.Body.Bytes())) {
			t.Fatalf("POST %q: %d with a JSON Content-Type but not JSON: %q", body, w.Code, w.Body)
		}
	})
}
