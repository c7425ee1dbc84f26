package mcptools

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

type replayIn struct {
	logIDIn
	Confirm bool `json:"confirm,omitempty" jsonschema:"true to replay a tool not marked read-only"`
}

type replayOut struct {
	Original resultOut `json:"original"`
	Replay   resultOut `json:"replay"`
	Same     bool      `json:"same" jsonschema:"the two results are equal as JSON"`
	Diff     string    `json:"diff,omitempty" jsonschema:"where they differ, briefly"`
}

var replaying = &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(true), OpenWorldHint: jsonschema.Ptr(true)}

func (o replayOut) text() string {
	h := "replay_operation: same result"
	if !o.Same {
		h = "replay_operation: the results differ: " + oplog.OneLine(o.Diff, false)
	}
	return lines(h, []string{replayLine("original", &o.Original), replayLine("replay", &o.Replay)})
}

// replayLine is one operation of a replay in a line: ID, tool, status,
// duration and its result or error, cut to DefaultMaxTextChars.
func replayLine(what string, r *resultOut) string {
	l := fmt.Sprintf("%s #%d %s %s", what, r.ID, r.Tool, r.Status)
	if r.DurationMs != nil {
		l += fmt.Sprintf(" %dms", *r.DurationMs)
	}
	out := r.Error
	if out == "" {
		out = string(r.Result)
	}
	if c, clipped := cut(oplog.OneLine(out, false), DefaultMaxTextChars); clipped {
		out = c + "…"
	}
	return l + ": " + out
}

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
