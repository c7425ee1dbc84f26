package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// pendingAnswer is what a call that outlived its timeout answers.
type pendingAnswer struct {
	Status     string `json:"status"`
	LogID      uint64 `json:"log_id"`
	IsComplete bool   `json:"is_complete"`
	Message    string `json:"message"`
}

// Call forwards a call of the offered tool name with args (a JSON object)
// and records it as an operation. An argument timeout (milliseconds) that
// the upstream's schema does not declare is taken off: when the upstream
// has not answered by then, the answer is {status: "pending", log_id} and
// get_result gives the outcome later. The upstream's result comes back
// unchanged, with _meta.log_id set.
func (g *Gateway) Call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	g.mu.Lock()
	rt, ok := g.names[name]
	g.mu.Unlock()
	if !ok {
		return nil, oplog.Errorf(oplog.ENOTFOUND, "no upstream offers the tool %q", name)
	}
	fwd, wait, err := splitTimeout(args, rt.u.tool(rt.tool))
	if err != nil {
		return nil, err
	}
	op := g.start(ctx, rt.u, rt.tool, fwd, 0)
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case res := <-op.done:
		return res, nil
	case <-timeout:
	case <-ctx.Done():
		if wait == 0 {
			// The agent gave up without asking for a later answer: so
			// does the upstream call (the recorded operation says so).
			op.cancel()
			return <-op.done, nil
		}
	}
	<-op.ready
	if op.err != nil {
		return nil, fmt.Errorf("%s goes on, but mcplogd could not record it: %w", name, op.err)
	}
	select {
	case res := <-op.done: // it answered meanwhile
		return res, nil
	default:
	}
	p := pendingAnswer{Status: "pending", LogID: op.id, IsComplete: false,
		Message: fmt.Sprintf("%s has not answered within %s; it goes on. get_result with log_id %d gives the outcome.", name, wait, op.id)}
	b, _ := json.Marshal(p)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: p,
		Meta: mcp.Meta{"log_id": op.id}}, nil
}

// splitTimeout takes the timeout argument off args unless tool's schema
// declares it, and returns it as a duration.
func splitTimeout(args json.RawMessage, tool *mcp.Tool) (json.RawMessage, time.Duration, error) {
	if len(args) == 0 || string(args) == "null" {
		return json.RawMessage("{}"), 0, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return nil, 0, oplog.Errorf(oplog.EINVALID, "arguments: not a JSON object: %v", err)
	}
	raw, ok := m["timeout"]
	if !ok {
		return args, 0, nil
	}
	var ms float64
	err := json.Unmarshal(raw, &ms)
	var str string
	if err != nil && json.Unmarshal(raw, &str) == nil { // "5000", as some clients send numbers
		ms, err = strconv.ParseFloat(strings.TrimSpace(str), 64)
	}
	if err != nil || ms < 0 {
		return nil, 0, oplog.Errorf(oplog.EINVALID, "timeout: want milliseconds as a non-negative number, got %s", raw)
	}
	if !declares(tool, "timeout") {
		delete(m, "timeout")
		args, _ = json.Marshal(m)
	}
	return args, time.Duration(ms * float64(time.Millisecond)), nil
}

// declares reports whether tool's input schema has the property name.
func declares(tool *mcp.Tool, name string) bool {
	if tool == nil || tool.InputSchema == nil {
		return false
	}
	b, err := json.Marshal(tool.InputSchema)
	if err != nil {
		return false
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(b, &s)
	_, ok := s.Properties[name]
	return ok
}

func withLogID(res *mcp.CallToolResult, id uint64) *mcp.CallToolResult {
	out := *res
	out.Meta = mcp.Meta{}
	for k, v := range res.Meta {
		out.Meta[k] = v
	}
	out.Meta["log_id"] = id
	return &out
}

// call is one forwarded call in flight.
type call struct {
	ready  chan struct{} // closed once the operation is recorded, or could not be
	id     uint64        // the operation's ID, after ready
	err    error         // why it could not be recorded, after ready
	done   chan *mcp.CallToolResult
	cancel context.CancelFunc
}

// start records the call as a pending operation and forwards it at the same
// time: the upstream does not wait for the commit, nor the commit for the
// upstream. done receives the agent's answer (an upstream or transport
// error as an isError result, with _meta.log_id) as soon as both are done;
// the outcome's commit follows (get_result waits for it; an outcome lost to
// a kill is settled by the next start, see settle). A call that could not
// be recorded is still answered, without log_id.
func (g *Gateway) start(ctx context.Context, u *upstream, tool string, args json.RawMessage, replayOf uint64) *call {
	rec := []oplog.Record{{Kind: oplog.KindOp, Source: u.cfg.Name, Tool: tool, Arguments: args, Status: oplog.StatusPending,
		ReplayOf: replayOf, StartTime: time.Now().UTC(), Data: oplog.ForwardedData()}}
	cctx, cancel := context.WithCancel(g.ctx)
	op := &call{ready: make(chan struct{}), done: make(chan *mcp.CallToolResult, 1), cancel: cancel}
	u.mu.Lock()
	u.pending++
	u.mu.Unlock()
	g.calls.Go(func() {
		op.err = g.log.Append(context.WithoutCancel(ctx), rec)
		op.id = rec[0].ID
		if op.err != nil {
			g.opts.Logger.Error("cannot record an upstream call", "upstream", u.cfg.Name, "tool", tool, "err", op.err)
		}
		close(op.ready)
	})
	g.calls.Go(func() {
		defer cancel()
		res, c := g.forward(cctx, u, tool, args)
		<-op.ready
		if op.err == nil {
			res = withLogID(res, op.id)
		}
		op.done <- res
		if op.err == nil {
			_, err := g.log.Complete(context.WithoutCancel(cctx), op.id, c)
			if oplog.ErrorCode(err) == oplog.EINVALID { // never left pending: the status, at least
				_, err = g.log.Complete(context.WithoutCancel(cctx), op.id, oplog.Completion{Status: c.Status,
					Error: "mcplogd could not record this call's outcome: " + oplog.ErrorMessage(err)})
			}
			if err != nil {
				g.opts.Logger.Error("cannot record an upstream call's outcome", "upstream", u.cfg.Name, "log_id", op.id, "err", err)
			}
		}
		u.mu.Lock()
		u.pending--
		u.mu.Unlock()
	})
	return op
}

// forward sends the call and says how it ended.
func (g *Gateway) forward(ctx context.Context, u *upstream, tool string, args json.RawMessage) (*mcp.CallToolResult, oplog.Completion) {
	fail := func(st oplog.Status, msg string) (*mcp.CallToolResult, oplog.Completion) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, oplog.Completion{Status: st, Error: msg}
	}
	s, err := u.current()
	if err != nil {
		return fail(oplog.StatusError, oplog.ErrorMessage(err))
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	switch {
	case err != nil && g.ctx.Err() != nil:
		return fail(oplog.StatusCancelled, fmt.Sprintf("mcplogd stopped before %s answered %s", u.cfg.Name, tool))
	case err != nil && ctx.Err() != nil:
		return fail(oplog.StatusCancelled, fmt.Sprintf("the call of %s was cancelled", tool))
	case err != nil:
		return fail(oplog.StatusError, fmt.Sprintf("upstream %s failed on %s: %v", u.cfg.Name, tool, err))
	}
	b, _ := json.Marshal(res)
	c := oplog.Completion{Status: oplog.StatusSuccess, Result: b}
	if len(b) > oplog.MaxJSONBytes { // the agent gets it all; the record says what it was
		c.Result, _ = json.Marshal(map[string]any{"omitted": fmt.Sprintf("the result was %d bytes, over the %d a record keeps", len(b), oplog.MaxJSONBytes),
			"isError": res.IsError, "text": cut(resultText(res), maxSummaryBytes)})
	}
	if res.IsError {
		c.Status, c.Error = oplog.StatusError, resultText(res)
		u.noteCrash(ctx, c.Error)
		c.Error = cut(c.Error, oplog.MaxTextBytes)
	}
	return res, c
}
