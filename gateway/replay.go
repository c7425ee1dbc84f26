package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// Replay sends the recorded operation id again, with its recorded
// arguments, to the upstream that answered it, records the new operation
// with ReplayOf = id, waits for its outcome and compares the two. A tool
// the upstream does not mark readOnlyHint needs confirm.
func (g *Gateway) Replay(ctx context.Context, id uint64, confirm bool) (oplog.Replay, error) {
	// An outcome is committed just after its answer: a replay sent at once
	// may find it pending for a moment.
	wctx, cancel := context.WithTimeout(ctx, settleWait)
	orig, err := g.log.AwaitComplete(wctx, id)
	cancel()
	if err != nil && (orig.ID == 0 || ctx.Err() != nil) {
		return oplog.Replay{}, err
	}
	if orig.Kind == oplog.KindOp && !orig.IsComplete() {
		return oplog.Replay{}, oplog.Errorf(oplog.EINVALID, "log_id: operation %d is still pending; replay it once it has completed (get_result waits for it)", id)
	}
	if orig.Kind != oplog.KindOp {
		return oplog.Replay{}, oplog.Errorf(oplog.EINVALID, "log_id: record %d is a console line, not an operation", id)
	}
	if !orig.IsForwarded() {
		return oplog.Replay{}, oplog.Errorf(oplog.EINVALID, "log_id: operation %d was not forwarded by this gateway (it was written through the API, or recorded before mcplogd marked the calls it forwarded); only calls the gateway made itself can be replayed",
			id)
	}
	var u *upstream
	for _, c := range g.ups {
		if c.cfg.Name == orig.Source {
			u = c
		}
	}
	if u == nil {
		var names []string
		for _, c := range g.ups {
			names = append(names, c.cfg.Name)
		}
		return oplog.Replay{}, oplog.Errorf(oplog.EINVALID, "log_id: operation %d came from %q, which is not an upstream of this server (upstreams: %s); only calls made through the gateway can be replayed",
			id, orig.Source, strings.Join(names, ", "))
	}
	if t := u.tool(orig.Tool); !confirm && (t == nil || t.Annotations == nil || !t.Annotations.ReadOnlyHint) {
		return oplog.Replay{}, oplog.Errorf(oplog.EINVALID, "confirm: %s on %s is not marked read-only, so sending it again may change the game; pass confirm: true to replay it", orig.Tool, u.cfg.Name)
	}
	op := g.start(ctx, u, orig.Tool, orig.Arguments, id)
	select {
	case <-op.done:
	case <-ctx.Done():
		op.cancel()
		<-op.done
	}
	<-op.ready
	if op.err != nil {
		return oplog.Replay{}, op.err
	}
	again, err := g.log.AwaitComplete(context.WithoutCancel(ctx), op.id)
	if err != nil {
		return oplog.Replay{}, err
	}
	diff := compare(&orig, &again)
	return oplog.Replay{Original: orig, Replay: again, Same: len(diff) == 0, Diff: strings.Join(diff, "; ")}, nil
}

// compare lists where two operations' outcomes differ: status, error and
// result (as JSON values, _meta left out), at most maxDiffs places.
func compare(a, b *oplog.Record) []string {
	var out []string
	if a.Status != b.Status {
		out = append(out, fmt.Sprintf("status: %s → %s", a.Status, b.Status))
	}
	if a.Error != b.Error && (a.Result == nil || b.Result == nil) {
		out = append(out, fmt.Sprintf("error: %s → %s", brief(a.Error), brief(b.Error)))
	}
	diffJSON("result", value(a.Result), value(b.Result), &out)
	if len(out) > maxDiffs {
		out = append(out[:maxDiffs], fmt.Sprintf("and %d more", len(out)-maxDiffs))
	}
	return out
}

// value decodes a recorded result, without its _meta.
func value(raw json.RawMessage) any {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "_meta")
	}
	return v
}

func diffJSON(path string, a, b any, out *[]string) {
	if len(*out) > maxDiffs || reflect.DeepEqual(a, b) {
		return
	}
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			var keys []string
			for k := range x {
				keys = append(keys, k)
			}
			for k := range y {
				if _, ok := x[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				diffJSON(path+"."+k, x[k], y[k], out)
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok && len(x) == len(y) {
			for i := range x {
				diffJSON(fmt.Sprintf("%s[%d]", path, i), x[i], y[i], out)
			}
			return
		}
	}
	*out = append(*out, fmt.Sprintf("%s: %s → %s", path, jsonBrief(a), jsonBrief(b)))
}

func jsonBrief(v any) string {
	if v == nil {
		return "(none)"
	}
	b, _ := json.Marshal(v)
	return brief(string(b))
}

func brief(s string) string {
	if len(s) <= briefBytes {
		return s
	}
	return oplog.ClipBytes(s, briefBytes) + "…"
}
