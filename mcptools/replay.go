package mcptools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

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

func (t *toolset) replayOperation(ctx context.Context, _ *mcp.CallToolRequest, in replayIn) (replayOut, error) {
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
