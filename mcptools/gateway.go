package mcptools

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// Gateway is the game servers behind mcplogd (package gateway): their
// tools are offered beside mcplogd's own, and replay_operation sends
// recorded calls to them again.
type Gateway interface {
	// Tools returns the upstreams' tools as offered.
	Tools() []*mcp.Tool
	// Changed returns a channel closed when Tools changes.
	Changed() <-chan struct{}
	// Call forwards a call of an offered tool and records it.
	Call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error)
	// Replay sends a recorded operation again and compares the outcomes.
	Replay(ctx context.Context, id uint64, confirm bool) (oplog.Replay, error)
	// Status reports each upstream's state.
	Status() []oplog.UpstreamStatus
	// Done is closed when the gateway stops.
	Done() <-chan struct{}
}

// syncTools keeps srv's proxied tools equal to gw's, until gw stops.
func syncTools(srv *mcp.Server, gw Gateway) {
	offered := map[string]bool{}
	for {
		changed := gw.Changed()
		now := map[string]bool{}
		for _, tool := range gw.Tools() {
			now[tool.Name] = true
			srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				res, err := gw.Call(ctx, req.Params.Name, req.Params.Arguments)
				if err != nil {
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: oplog.ErrorMessage(err)}}}, nil
				}
				return res, nil
			})
		}
		var gone []string
		for name := range offered {
			if !now[name] {
				gone = append(gone, name)
			}
		}
		if len(gone) > 0 {
			srv.RemoveTools(gone...)
		}
		offered = now
		select {
		case <-changed:
		case <-gw.Done():
			return
		}
	}
}
