package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/google/jsonschema-go/jsonschema"
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

// ---- replay_operation ----

type replayIn struct {
	logIDIn
	Confirm bool `json:"confirm,omitempty" jsonschema:"must be true to replay a tool the upstream does not mark read-only"`
}

type replayOut struct {
	Original resultOut `json:"original"`
	Replay   resultOut `json:"replay"`
	Same     bool      `json:"same" jsonschema:"the two results are equal as JSON"`
	Diff     string    `json:"diff,omitempty" jsonschema:"where they differ, briefly"`
}

var replaying = &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(true), OpenWorldHint: jsonschema.Ptr(true)}

func (t *mcpTools) replayOperation(ctx context.Context, _ *mcp.CallToolRequest, in replayIn) (replayOut, error) {
	id, err := logID(in.LogID, in.LogID2)
	if err != nil {
		return replayOut{}, err
	}
	if t.opts.Gateway == nil {
		return replayOut{}, oplog.Errorf(oplog.EUNAVAILABLE, "replay_operation: this server has no upstreams (start it with --upstream NAME=URL); only calls made through them can be replayed")
	}
	r, err := t.opts.Gateway.Replay(ctx, id, in.Confirm)
	if err != nil {
		return replayOut{}, err
	}
	return replayOut{Original: resultOf(&r.Original), Replay: resultOf(&r.Replay), Same: r.Same, Diff: r.Diff}, nil
}

func resultOf(r *oplog.Record) resultOut {
	return resultOut{ID: r.ID, Tool: r.Tool, Status: r.Status.String(), IsComplete: r.IsComplete(), Result: r.Result, Error: r.Error,
		StartTime: formatTime(r.StartTime), EndTime: formatTime(r.EndTime), DurationMs: durationMs(r)}
}

// ToolNames returns the names of mcplogd's own MCP tools, which upstream
// tools must not shadow.
func ToolNames() []string {
	_, t := newMCPServer(nil, nil)
	names := make([]string, len(t.help))
	for i, h := range t.help {
		names[i] = h.Name
	}
	return names
}

// ---- POST /api/v1/operations/:id/replay ----

type replayRequest struct {
	Confirm bool `json:"confirm"`
}

type replayAnswer struct {
	Original oplog.Record `json:"original"`
	Replay   oplog.Record `json:"replay"`
	Same     bool         `json:"same"`
	Diff     string       `json:"diff,omitempty"`
}

func (s *Server) replay(c echo.Context) error {
	id, err := parseID(c.Param("id"))
	if err != nil {
		return err
	}
	var req replayRequest
	if b, err := readBody(c); err != nil {
		return err
	} else if len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &req); err != nil {
			return oplog.Errorf(oplog.EINVALID, "body: want {\"confirm\": true|false}: %v", err)
		}
	}
	if s.opts.Gateway == nil {
		return oplog.Errorf(oplog.EUNAVAILABLE, "replay: this server has no upstreams (start it with --upstream NAME=URL)")
	}
	r, err := s.opts.Gateway.Replay(c.Request().Context(), id, req.Confirm)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, replayAnswer{Original: r.Original, Replay: r.Replay, Same: r.Same, Diff: r.Diff})
}

// Replay asks the server to send operation id again to its upstream (see
// Gateway.Replay).
func (c *Client) Replay(ctx context.Context, id uint64, confirm bool) (oplog.Replay, error) {
	var a replayAnswer
	err := c.do(ctx, http.MethodPost, "/api/v1/operations/"+strconv.FormatUint(id, 10)+"/replay", nil, replayRequest{Confirm: confirm}, &a)
	return oplog.Replay{Original: a.Original, Replay: a.Replay, Same: a.Same, Diff: a.Diff}, err
}
