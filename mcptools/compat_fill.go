package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bridgeUnsupported is the bridge's answer to a tool nobody offers: its
// error envelope ("Unsupported tool: NAME", as the bridge words it) as a
// tool result, where a client written for the bridge reads status, rather
// than a JSON-RPC error it never expects; the message says where
// execute_code and query come from.
func bridgeUnsupported(name string) *mcp.CallToolResult {
	msg := fmt.Sprintf("Unsupported tool: %s: neither mcplogd nor an upstream offers it (help lists the tools; "+
		"execute_code and query come from the game's own MCP server behind the gateway: mcplogd serve --upstream NAME=URL)", name)
	env := map[string]any{"status": "error", "log_id": "", "error": msg, "is_complete": true}
	return &mcp.CallToolResult{IsError: true, StructuredContent: env, Content: []mcp.Content{&mcp.TextContent{Text: linedJSON(env)}}}
}

// bridgeEntryData gives get_log_by_name's entries their record's data, as
// the bridge's entries carry it ({level, message, timestamp, data});
// mcplogd's lists only say hasData. A record that cannot be read keeps
// hasData alone.
func (t *toolset) bridgeEntryData(ctx context.Context, env map[string]any) {
	entries, _ := asMap(env["result"])["entries"].([]any)
	for _, x := range entries {
		e := asMap(x)
		if e["hasData"] != true || e["data"] != nil {
			continue
		}
		id, err := strconv.ParseUint(fmt.Sprint(e["id"]), 10, 64)
		if err != nil {
			continue
		}
		var data any
		if r, err := t.log.Get(ctx, id); err == nil && json.Unmarshal(r.Data, &data) == nil {
			e["data"] = data
		}
	}
}
