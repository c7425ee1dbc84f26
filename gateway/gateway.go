// Package gateway puts mcplogd in front of game servers' own MCP servers
// ("upstreams"): their tools are offered to the agent under mcplogd's
// endpoint, every call is forwarded and recorded as an operation (answered
// later when it outlives its timeout), their console is mirrored into the
// log, and recorded calls can be replayed. It talks to upstreams with the
// go-sdk MCP client, over Streamable HTTP or stdio.
package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// Options configures a Gateway. A nil *Options means defaults; a zero field
// means its documented default.
type Options struct {
	// Reserved are tool names an upstream tool must not take (mcplogd's
	// own): a clashing upstream tool is offered as NAME__tool.
	Reserved []string

	// Version is sent to upstreams as the client's version.
	Version string

	// Logger receives connection events and errors; nil discards them.
	Logger *slog.Logger

	// MinBackoff and MaxBackoff bound the wait between reconnection
	// attempts. Defaults 250ms and 10s.
	MinBackoff, MaxBackoff time.Duration

	// ConnectTimeout bounds connecting and listing tools. Default 10s.
	ConnectTimeout time.Duration

	// KeepAlive pings a connected upstream this often, so that a dead one is
	// noticed between calls. Default 5s.
	KeepAlive time.Duration
}

func (o Options) withDefaults() Options {
	if o.MinBackoff <= 0 {
		o.MinBackoff = 250 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Gateway is the set of upstreams behind mcplogd. It is safe for
// concurrent use.
type Gateway struct {
	log  *oplog.Log
	opts Options
	ups  []*upstream

	ctx    context.Context // ends at Close: the calls and loops
	cancel context.CancelFunc
	loops  sync.WaitGroup
	calls  sync.WaitGroup

	mu      sync.Mutex
	changed chan struct{} // closed when the tool list changes
	names   map[string]route
	list    []*mcp.Tool
	closed  bool
}

// route is where an offered tool name leads.
type route struct {
	u    *upstream
	tool string // the upstream's own name
}

// New starts connecting to ups (in the background: an upstream that is
// down is retried, not an error). Names must be unique.
func New(l *oplog.Log, ups []Upstream, opts *Options) (*Gateway, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	g := &Gateway{log: l, opts: o.withDefaults(), changed: make(chan struct{}), names: map[string]route{}}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	seen := map[string]bool{}
	for _, cfg := range ups {
		if seen[cfg.Name] {
			g.cancel()
			return nil, oplog.Errorf(oplog.EINVALID, "upstream %s is given twice", cfg.Name)
		}
		seen[cfg.Name] = true
		g.ups = append(g.ups, &upstream{cfg: cfg, g: g, mirror: newMirror(cfg.Name, l, g.opts.Logger), state: "connecting", since: time.Now().UTC()})
		if err := g.settle(cfg.Name); err != nil {
			g.cancel()
			return nil, err
		}
	}
	for _, u := range g.ups {
		g.loops.Go(func() { u.run(g.ctx) })
	}
	return g, nil
}

// settle completes, as cancelled, the operations of upstream name that an
// earlier mcplogd left pending: it was killed before their outcome was
// recorded, and nothing will complete them now.
func (g *Gateway) settle(name string) error {
	ctx := context.Background()
	q := oplog.SearchQuery{Filter: oplog.Filter{Kind: oplog.KindOp, Source: name}, Status: oplog.StatusPending, Limit: oplog.MaxSearchLimit}
	var ids []uint64
	for {
		p, err := g.log.Search(ctx, q)
		if oplog.ErrorCode(err) == oplog.EUNAVAILABLE { // no index: the newest operations
			pg, err := g.log.List(ctx, oplog.Query{Filter: q.Filter, Count: oplog.MaxListCount})
			if err != nil {
				return err
			}
			for _, r := range pg.Records {
				if r.Status == oplog.StatusPending {
					ids = append(ids, r.ID)
				}
			}
			break
		} else if err != nil {
			return err
		}
		for _, h := range p.Hits {
			ids = append(ids, h.Record.ID)
		}
		if q.Cursor = p.NextCursor; q.Cursor == "" {
			break
		}
	}
	for _, id := range ids {
		_, err := g.log.Complete(ctx, id, oplog.Completion{Status: oplog.StatusCancelled,
			Error: "mcplogd stopped before this call's outcome was recorded"})
		if err != nil && oplog.ErrorCode(err) != oplog.ECONFLICT {
			return err
		}
	}
	if len(ids) > 0 {
		g.opts.Logger.Warn("calls left pending by an earlier run recorded as cancelled", "upstream", name, "count", len(ids))
	}
	return nil
}

// Close stops every upstream; calls still running end as cancelled.
func (g *Gateway) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return oplog.ErrClosed
	}
	g.closed = true
	g.mu.Unlock()
	g.cancel()
	g.calls.Wait()
	g.loops.Wait()
	return nil
}

// Status reports each upstream's state.
func (g *Gateway) Status() []oplog.UpstreamStatus {
	out := make([]oplog.UpstreamStatus, len(g.ups))
	for i, u := range g.ups {
		out[i] = u.status()
	}
	return out
}

// Changed returns a channel closed when the offered tools change.
func (g *Gateway) Changed() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.changed
}

// Tools returns the upstreams' tools as offered: their own names, or
// NAME__tool where two upstreams (or mcplogd itself) offer the same name.
func (g *Gateway) Tools() []*mcp.Tool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.list
}

// toolsChanged rebuilds the offered list from every upstream's tools.
func (g *Gateway) toolsChanged() {
	count := map[string]int{}
	for _, r := range g.opts.Reserved {
		count[r]++
	}
	all := make([][]*mcp.Tool, len(g.ups))
	for i, u := range g.ups {
		all[i] = u.toolList()
		for _, t := range all[i] {
			count[t.Name]++
		}
	}
	names := map[string]route{}
	var list []*mcp.Tool
	for i, u := range g.ups {
		for _, t := range all[i] {
			name := t.Name
			if count[name] > 1 {
				name = u.cfg.Name + "__" + t.Name
			}
			offered := *t
			offered.Name = name
			if name != t.Name {
				offered.Description = fmt.Sprintf("[%s] %s", u.cfg.Name, t.Description)
			}
			if !objectSchema(t.InputSchema) {
				// MCP asks for an object schema, and the SDK's server refuses
				// any other: offer the tool with one that takes anything.
				g.opts.Logger.Warn("upstream tool without an object input schema; offered as taking any object", "upstream", u.cfg.Name, "tool", t.Name)
				offered.InputSchema = map[string]any{"type": "object"}
			}
			names[name] = route{u: u, tool: t.Name}
			list = append(list, &offered)
		}
	}
	slices.SortFunc(list, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	g.mu.Lock()
	defer g.mu.Unlock()
	g.names, g.list = names, list
	close(g.changed)
	g.changed = make(chan struct{})
}

// objectSchema reports whether s is a JSON schema of type object.
func objectSchema(s any) bool {
	b, err := json.Marshal(s)
	if err != nil {
		return false
	}
	var v struct {
		Type any `json:"type"`
	}
	return json.Unmarshal(b, &v) == nil && v.Type == "object"
}

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
		ReplayOf: replayOf, StartTime: time.Now().UTC()}}
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
			"isError": res.IsError, "text": cut(resultText(res), 4096)})
	}
	if res.IsError {
		c.Status, c.Error = oplog.StatusError, resultText(res)
		u.noteCrash(ctx, c.Error)
		c.Error = cut(c.Error, oplog.MaxTextBytes)
	}
	return res, c
}

// cut shortens s to at most n bytes, at a character boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	i := n - len(mark)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + mark
}

// resultText joins a result's text contents.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 {
		return "the upstream answered isError without text"
	}
	return strings.Join(parts, "\n")
}

// messageText renders a log message's data: a string as it is, anything
// else as JSON.
func messageText(data any) string {
	if s, ok := data.(string); ok {
		return s
	}
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Sprint(data)
	}
	return string(b)
}

// noteCrash records a traceback that an upstream's error carries (the ECS
// seed answers world-touching tools with the stored traceback after a
// crash) as one fatal line, once per connection and traceback, so that
// find_crashes sees it.
func (u *upstream) noteCrash(ctx context.Context, text string) {
	i := strings.Index(text, "stack traceback:")
	if i < 0 {
		i = strings.Index(text, "\n\tat ") // Java
	}
	if i < 0 {
		return
	}
	u.mu.Lock()
	seen := u.crashes[text]
	if u.crashes != nil {
		u.crashes[text] = true
	}
	u.mu.Unlock()
	if seen {
		return
	}
	head := strings.TrimSpace(text[:i])
	if head == "" {
		head = u.cfg.Name + " crashed"
	}
	r := oplog.Record{Kind: oplog.KindLine, Source: u.cfg.Name, Name: "crash", Level: oplog.LevelFatal,
		Text: firstLine(head), Stack: strings.TrimSpace(text)}
	if err := u.g.log.Append(context.WithoutCancel(ctx), []oplog.Record{r}); err != nil {
		u.g.opts.Logger.Error("cannot record an upstream crash", "upstream", u.cfg.Name, "err", err)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Done is closed when the gateway stops.
func (g *Gateway) Done() <-chan struct{} { return g.ctx.Done() }
