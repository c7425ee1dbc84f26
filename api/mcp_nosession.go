package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionless reports the ID and method of a POST that needs a 2025
// session and has none: one request (not a notification, not a batch)
// other than initialize, ping and server/discover, without Mcp-Session-Id,
// that isModern left to the session handler. The go-sdk answers it with a
// code 0 "invalid during session initialization"; serve answers it with
// 400 and -32600 saying what to send first (as the specification asks of
// a server that needs a session).
func sessionless(r *http.Request, body []byte) (id json.RawMessage, method string, ok bool) {
	if r.Header.Get("Mcp-Session-Id") != "" {
		return nil, "", false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil, "", false
	}
	// The methods of a session; any other is the SDK's to answer (-32601).
	for _, p := range []string{"tools/", "resources/", "prompts/", "completion/", "logging/"} {
		if strings.HasPrefix(m.Method, p) {
			return m.ID, m.Method, true
		}
	}
	return nil, "", false
}

// writeSessionless answers a request sessionless found.
func writeSessionless(w http.ResponseWriter, id json.RawMessage, method string) {
	writeRPCError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
		"Invalid Request: %s without a session: send initialize first and its answer's Mcp-Session-Id header with every later request, "+
			"or name the 2026-07-28 protocol (the MCP-Protocol-Version header, or _meta %q) to call without one", method, mcp.MetaKeyProtocolVersion))
}
