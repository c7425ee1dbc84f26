package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestMCP_CallWithoutSession: a tools/call POSTed with neither a session
// nor the 2026-07-28 version (a raw client skipping initialize, as the
// Unity bridge's docs pipe one) gets 400 and -32600 saying to send
// initialize first or name 2026-07-28, not the go-sdk's code 0 "invalid
// during session initialization"; initialize and ping still pass through.
func TestMCP_CallWithoutSession(t *testing.T) {
	h := mustServe(t, nil)
	path := "/mcp/" + testToken
	status, body := rawMCP(h, t, http.MethodPost, path, `{"jsonrpc":"2.0","id":"4","method":"tools/call","params":{"name":"get_logs","arguments":{"count":5}}}`, nil)
	if status != http.StatusBadRequest || !strings.Contains(body, `"id":"4"`) || !strings.Contains(body, "-32600") ||
		!strings.Contains(body, "tools/call without a session: send initialize first") || !strings.Contains(body, "2026-07-28") {
		t.Errorf("tools/call without a session: %d %s", status, body)
	}
	if status, body := rawMCP(h, t, http.MethodPost, path, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, nil); strings.Contains(body, "without a session") {
		t.Errorf("ping without a session: %d %s", status, body)
	}
	if sid := rawSession(t, h, "2025-11-25"); sid == "" {
		t.Error("initialize without a session gave no session")
	}
}
