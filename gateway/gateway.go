package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

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

	// Runs records the processes of cmd: upstreams as their games' runs:
	// called at each start of one (the first and every restart) with the
	// upstream's name (the source its calls are recorded under), its
	// command and the process ID, it stores the start of a run of that
	// source and returns where the process's standard error is parsed and
	// how its end is stored. An error is logged and the process runs
	// unrecorded. nil: standard error is discarded and no markers are
	// written (how a process ended is still known, ProcessEnd).
	// cmd/mcplogd passes follow.StartOutput: what `mcplogd run` records.
	Runs func(source string, command []string, pid int) (ProcessRun, error)
}

func (o Options) withDefaults() Options {
	if o.MinBackoff <= 0 {
		o.MinBackoff = defaultMinBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = defaultMaxBackoff
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = defaultConnectTimeout
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = defaultKeepAlive
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
		m := newMirror(cfg.Name, l, g.opts.Logger)
		m.runsOwned = cfg.RunsOwned || (len(cfg.Command) > 0 && g.opts.Runs != nil)
		g.ups = append(g.ups, &upstream{cfg: cfg, g: g, mirror: m, state: oplog.UpstreamConnecting, since: time.Now().UTC(),
			procs: processes{ended: make(chan struct{})}})
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
		if game := g.log.Game(u.cfg.Name); game != u.cfg.Name {
			out[i].Game = game
		}
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

// Done is closed when the gateway stops.
func (g *Gateway) Done() <-chan struct{} { return g.ctx.Done() }
