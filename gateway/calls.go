package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	proc := u.processStart() // a cmd: upstream's process the call goes to; 0 for HTTP
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
		g.calls.Go(func() { g.watchCrashed(cctx, op, cancel) })
		res, c, died := g.forward(cctx, u, tool, args)
		<-op.ready
		var settled bool
		if op.err == nil && (died || cctx.Err() != nil && g.ctx.Err() == nil) {
			// The game may have crashed under the call: its answer is
			// the crash, once the log says so (crashed.go in oplog).
			if r, ok := g.awaitCrashed(context.WithoutCancel(cctx), u, op.id, died, proc); ok {
				oplog.AddComeback(cctx, g.log, &r)
				res, settled = crashedResult(r), true
			}
		}
		if op.err == nil {
			res = withLogID(res, op.id)
		}
		op.done <- res
		if died && op.err == nil && !settled {
			// settled as crashed since awaitCrashed looked: a broken
			// connection says less than that
			r, err := g.log.Get(context.WithoutCancel(cctx), op.id)
			settled = err == nil && r.Status == oplog.StatusCrashed
		}
		if op.err == nil && !settled {
			_, err := g.log.Complete(context.WithoutCancel(cctx), op.id, c)
			if oplog.ErrorCode(err) == oplog.EINVALID { // never left pending: the status, at least
				_, err = g.log.Complete(context.WithoutCancel(cctx), op.id, oplog.Completion{Status: c.Status,
					Error: "mcplogd could not record this call's outcome: " + oplog.ErrorMessage(err)})
			}
			switch {
			case oplog.ErrorCode(err) == oplog.ECONFLICT: // settled meanwhile (crashed, expired): that stands
				g.opts.Logger.Debug("an upstream call was settled before its outcome", "upstream", u.cfg.Name, "log_id", op.id)
			case err != nil:
				g.opts.Logger.Error("cannot record an upstream call's outcome", "upstream", u.cfg.Name, "log_id", op.id, "err", err)
			}
		}
		u.mu.Lock()
		u.pending--
		u.mu.Unlock()
	})
	return op
}

// crashedWait bounds how long the answer of a call whose upstream died
// under it waits for the game's crash to be recorded (its standard error
// and exit, a followed log's crash): the agent then learns the crash
// rather than a broken connection, within the 2 s an agent is told to
// expect. A run known to have ended otherwise stops the wait at once.
const crashedWait = 1500 * time.Millisecond

// endRecordWait bounds how much longer that wait goes on once the process
// has exited but its end is not recorded yet (its last output read, its
// exit marker stored: milliseconds, but longer on a loaded machine): the
// crash a moment late says more than a broken connection.
const endRecordWait = 10 * time.Second

// crashedPoll is how often that wait looks at the call's run.
const crashedPoll = 25 * time.Millisecond

// watchCrashed cancels the call when the log settles it as crashed while
// the upstream has not answered (the crash came through a followed log or
// an exit marker while the connection hangs), so the agent is answered at
// once. It returns when ctx ends.
func (g *Gateway) watchCrashed(ctx context.Context, op *call, cancel context.CancelFunc) {
	select {
	case <-op.ready:
	case <-ctx.Done():
		return
	}
	if op.err != nil {
		return
	}
	if r, err := g.log.AwaitComplete(ctx, op.id); err == nil && r.Status == oplog.StatusCrashed {
		cancel()
	}
}

// awaitCrashed returns operation id once the log completed it as crashed,
// settling it itself when its run has ended crashed (a fatal record with
// no exit marker yet). When the upstream died under the call (died), it
// waits up to crashedWait for the crash to be recorded: for a cmd:
// upstream, for the end of its process proc (up to endRecordWait more
// once it has exited and its end is being recorded; the exit marker of a run
// that ended crashed settles the call as it is stored, oplog's
// crashed.go; a clean end stops the wait); else it only looks. ok is
// false when the call did not crash, as far as is known by then: the
// caller answers and records what the upstream said.
func (g *Gateway) awaitCrashed(ctx context.Context, u *upstream, id uint64, died bool, proc int) (oplog.Record, bool) {
	deadline := time.Now()
	if died {
		deadline = deadline.Add(crashedWait)
	}
	if died && proc > 0 {
		wctx, cancel := context.WithDeadline(ctx, deadline)
		end, ok := u.awaitEnd(wctx, proc)
		cancel()
		if !ok && ctx.Err() == nil && u.exited(proc) {
			wctx, cancel := context.WithTimeout(ctx, endRecordWait)
			end, ok = u.awaitEnd(wctx, proc)
			cancel()
		}
		switch {
		case ok && !end.Crashed:
			return oplog.Record{}, false
		case ok && end.ExitID == 0: // its end could not be stored: the call says it still
			r, err := g.log.Complete(ctx, id, oplog.Completion{Status: oplog.StatusCrashed,
				Error: oplog.ClipBytes("the game crashed during this call: "+end.Text, oplog.MaxCrashedErrorBytes)})
			return r, err == nil
		}
	}
	for {
		r, err := g.log.Get(ctx, id)
		switch {
		case err != nil:
			return oplog.Record{}, false
		case r.Status == oplog.StatusCrashed:
			return r, true
		case r.IsComplete():
			return oplog.Record{}, false
		}
		if done, _ := g.log.SettleCrashed(ctx, u.cfg.Name, r.Run); len(done) > 0 {
			continue // ours among them, or completed otherwise: Get says
		}
		if !time.Now().Before(deadline) || g.runEnded(ctx, u.cfg.Name, r.Run) {
			return oplog.Record{}, false
		}
		select {
		case <-time.After(crashedPoll):
		case <-g.ctx.Done():
			return oplog.Record{}, false
		}
	}
}

// runEnded reports whether run of source is known to have ended other
// than crashed: no crash will settle its calls.
func (g *Gateway) runEnded(ctx context.Context, source string, run uint64) bool {
	runs, err := g.log.Runs(ctx, source)
	if err != nil {
		return false
	}
	for _, r := range runs {
		if r.Run == run {
			return r.Ended() && r.Outcome != oplog.OutcomeCrashed
		}
	}
	return false
}

// upstreamAnswered reports whether err is a JSON-RPC error the upstream answered
// with, rather than a connection that broke or closed under the call.
func upstreamAnswered(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code != codeClientClosing && we.Code != codeRejected
}

// The go-sdk's errors for a call no answer came to: its session dropped it
// while closing (codeClientClosing); its HTTP request failed (codeRejected:
// "rejected by transport", the POST that carries a call and, from a server
// that answers with plain JSON, its answer; an EOF there is the game dying
// under the call).
const (
	codeClientClosing = -32003
	codeRejected      = -32005
)

// crashedResult is the agent's answer for a call the log settled as
// crashed: its error text, which names the crash, its record and how the
// run ended (at most oplog.MaxCrashedErrorBytes).
func crashedResult(r oplog.Record) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: r.Error}}}
}

// forward sends the call and says how it ended; died says the upstream
// failed under it (its connection broke, its process ended) rather than
// answering.
func (g *Gateway) forward(ctx context.Context, u *upstream, tool string, args json.RawMessage) (*mcp.CallToolResult, oplog.Completion, bool) {
	fail := func(st oplog.Status, msg string) (*mcp.CallToolResult, oplog.Completion, bool) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, oplog.Completion{Status: st, Error: msg}, false
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
		res, c, _ := fail(oplog.StatusError, fmt.Sprintf("upstream %s failed on %s: %v", u.cfg.Name, tool, err))
		return res, c, !upstreamAnswered(err)
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
	return res, c, false
}
