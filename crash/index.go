package crash

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Source is what an Index reads: *oplog.Log is one.
type Source interface {
	Tail(ctx context.Context, q oplog.TailQuery) (oplog.Tail, error)
	Get(ctx context.Context, id uint64) (oplog.Record, error)
	Stats() oplog.Stats
	Changed() <-chan struct{}
}

var _ Source = (*oplog.Log)(nil)

// Options configures an Index. A nil *Options means defaults; a zero field
// means its documented default.
type Options struct {
	// Interval is how often the background reader looks at the store when
	// Changed does not wake it, and at most how often it asks again about
	// operations it saw pending. Default one second.
	Interval time.Duration

	// Logger receives the end of the initial build and read errors; nil
	// discards them.
	Logger *slog.Logger

	// Lazy leaves out the background reader: each query reads what it
	// needs. For short-lived processes, which would otherwise spend their
	// life building an index they never ask.
	Lazy bool
}

func (o Options) withDefaults() Options {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Index groups a log's crashes by signature. It implements
// oplog.CrashIndex and is safe for concurrent use.
//
// It holds, per crash record, an entry of 24 bytes (ID, time, source,
// group) in ID order, and per group its signature, title and frames; the
// records themselves stay in the store. Two cursors follow the store: one
// over error and fatal lines, one over operations (1% of records in the
// usual mix), because an operation is appended pending at level info and
// may fail later, in place. Operations seen pending are asked about again
// until they end.
type Index struct {
	src    Source
	opts   Options
	ctx    context.Context // ended by Close
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	revision uint64   // the store generation the entries belong to; 0: not known yet
	lineMark uint64   // every line with an ID <= lineMark has been read
	opMark   uint64   // every operation with an ID <= opMark has been read
	entries  []entry  // ascending ID
	pending  []uint64 // operations read while pending, ascending
	checked  time.Time
	groups   []group
	bySig    map[string]int32
	sources  []string
	bySource map[string]uint32
	traces   map[string]Trace // parsed stacks, bounded: the same few traces repeat
	tracesSz int              // bytes of the keys of traces
	built    bool
	started  time.Time
}

// entry is one crash occurrence.
type entry struct {
	id     uint64
	time   int64 // Unix nanoseconds
	group  int32
	source uint32
}

// group is what every occurrence of one crash shares.
type group struct {
	sig, title string
	frames     []string
	live       int // entries that point here
}

// Bounds of the parsed-stack cache; it is emptied when full. Stacks may be
// up to oplog.MaxStackBytes each.
const (
	maxTraces     = 4096
	maxTraceBytes = 16 << 20
)

// New returns an Index over src and starts its background reader, which
// first reads every retained record (the initial build) and then follows
// new ones. Close stops it.
func New(src Source, opts *Options) *Index {
	var o Options
	if opts != nil {
		o = *opts
	}
	x := &Index{src: src, opts: o.withDefaults(), done: make(chan struct{}), bySig: map[string]int32{},
		bySource: map[string]uint32{}, traces: map[string]Trace{}, started: time.Now()}
	x.ctx, x.cancel = context.WithCancel(context.Background())
	if x.opts.Lazy {
		close(x.done)
	} else {
		go x.run()
	}
	return x
}

var _ oplog.CrashIndex = (*Index)(nil)

// Close stops the background reader and waits for it. Later queries
// return oplog.ErrClosed.
func (x *Index) Close() error {
	x.cancel()
	<-x.done
	return nil
}

// Covered returns the ID through which every record has been read into the
// index; queries read past it themselves.
func (x *Index) Covered() uint64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	return min(x.lineMark, x.opMark)
}

func (x *Index) run() {
	defer close(x.done)
	tick := time.NewTicker(x.opts.Interval)
	defer tick.Stop()
	var fired <-chan struct{}
	for {
		changed := x.src.Changed()
		if changed == fired {
			// The same channel after it fired: the Log is closed and
			// closes us next. Do not spin on it meanwhile.
			changed = nil
		}
		more, err := x.background()
		switch {
		case x.ctx.Err() != nil:
			return
		case errors.Is(err, oplog.ErrClosed):
			<-x.ctx.Done() // the Log is closing and closes us next
			return
		case err != nil:
			x.opts.Logger.Error("crash index: reading the log failed", "err", err)
			changed = nil // wait for the ticker
		case more:
			continue
		}
		select {
		case <-x.ctx.Done():
			return
		case <-changed:
			fired = changed
		case <-tick.C:
		}
	}
}

// background reads one batch under the lock, so that queries interleave
// with a long build, and reports whether more is ready.
func (x *Index) background() (more bool, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	st := x.src.Stats()
	if min(x.lineMark, x.opMark) < st.LastID || x.revision != st.Revision {
		if err := x.step(x.ctx); err != nil {
			return false, err
		}
	}
	if len(x.pending) > 0 && time.Since(x.checked) >= x.opts.Interval {
		if err := x.recheckPending(x.ctx); err != nil {
			return false, err
		}
	}
	st = x.src.Stats()
	x.trim(&st)
	covered := min(x.lineMark, x.opMark)
	if !x.built && covered >= st.LastID {
		x.built = true
		x.opts.Logger.Info("crash index built", "through", covered, "crashes", len(x.entries), "groups", x.liveGroups(),
			"took", time.Since(x.started).Round(time.Millisecond))
	}
	return covered < st.LastID, nil
}

// catchUp reads every record up to the store's newest ID at the time of
// the call; queries call it so that their answers are exact.
func (x *Index) catchUp(ctx context.Context) error {
	st := x.src.Stats()
	for min(x.lineMark, x.opMark) < st.LastID || x.revision != st.Revision {
		before, rev := min(x.lineMark, x.opMark), x.revision
		if err := x.step(ctx); err != nil {
			return err
		}
		if min(x.lineMark, x.opMark) == before && x.revision == rev {
			break // no progress: nothing past the mark in this generation
		}
	}
	return x.recheckPending(ctx)
}

// step reads one batch of each cursor that is behind.
func (x *Index) step(ctx context.Context) error {
	lines := oplog.TailQuery{Filter: oplog.Filter{MinLevel: oplog.LevelError, Kind: oplog.KindLine},
		SinceID: x.lineMark, HasSince: true, Revision: x.revision, Limit: oplog.MaxTailLimit}
	t, err := x.src.Tail(ctx, lines)
	if err != nil {
		return err
	}
	if x.reset(&t) {
		return nil
	}
	for i := range t.Lines {
		x.add(&t.Lines[i])
	}
	x.lineMark = t.LastID

	ops := oplog.TailQuery{Filter: oplog.Filter{Kind: oplog.KindOp}, SinceID: x.opMark, HasSince: true,
		Revision: x.revision, Limit: oplog.MaxTailLimit}
	if t, err = x.src.Tail(ctx, ops); err != nil {
		return err
	}
	if x.reset(&t) {
		return nil
	}
	for i := range t.Lines {
		r := &t.Lines[i]
		if r.Status == oplog.StatusPending {
			x.pending = append(x.pending, r.ID)
			continue
		}
		x.add(r)
	}
	x.opMark = t.LastID
	return nil
}

// reset starts over when the store was cleared (or replaced): the entries
// belong to a generation that is gone. It reports whether t was dropped.
func (x *Index) reset(t *oplog.Tail) bool {
	if x.revision == t.Revision && !t.Reset {
		return false
	}
	first := x.revision == 0
	x.revision = t.Revision
	if first && !t.Reset {
		return false
	}
	x.entries, x.pending = x.entries[:0], x.pending[:0]
	x.lineMark, x.opMark = 0, 0
	x.groups, x.bySig = nil, map[string]int32{}
	return true
}

// recheckPending asks about the operations seen pending, adding those that
// have since failed with a stack.
func (x *Index) recheckPending(ctx context.Context) error {
	x.checked = time.Now()
	keep := x.pending[:0]
	for i, id := range x.pending {
		r, err := x.src.Get(ctx, id)
		switch {
		case oplog.ErrorCode(err) == oplog.ENOTFOUND:
			continue // trimmed or cleared
		case err != nil:
			x.pending = append(keep, x.pending[i:]...)
			return err
		case r.Status == oplog.StatusPending:
			keep = append(keep, id)
		default:
			x.add(&r)
		}
	}
	x.pending = keep
	return nil
}

// add indexes r if it is a crash.
func (x *Index) add(r *oplog.Record) {
	t, ok := x.trace(r)
	if !ok {
		return
	}
	sig := t.Signature()
	g, ok := x.bySig[sig]
	if !ok {
		g = int32(len(x.groups))
		x.groups = append(x.groups, group{sig: sig, title: t.Title(), frames: slices.Clone(t.Frames)})
		x.bySig[sig] = g
	}
	x.groups[g].live++
	src, ok := x.bySource[r.Source]
	if !ok {
		src = uint32(len(x.sources))
		name := strings.Clone(r.Source) // not a view into the decoded record
		x.sources = append(x.sources, name)
		x.bySource[name] = src
	}
	e := entry{id: r.ID, time: r.Time.UnixNano(), group: g, source: src}
	if n := len(x.entries); n == 0 || x.entries[n-1].id < e.id {
		x.entries = append(x.entries, e)
		return
	}
	// An operation that failed after later records were read.
	i, found := slices.BinarySearchFunc(x.entries, e.id, func(e entry, id uint64) int { return cmp.Compare(e.id, id) })
	if found {
		x.groups[g].live--
		return
	}
	x.entries = slices.Insert(x.entries, i, e)
}

// trace returns r's normalised trace when r is a crash: an error or fatal
// line with a stack, or an operation that failed with a stack (in its
// stack field, or as an error text of several lines with frames).
func (x *Index) trace(r *oplog.Record) (Trace, bool) {
	if r.Level < oplog.LevelError {
		return Trace{}, false
	}
	stack, message := r.Stack, r.Text
	if r.Kind == oplog.KindOp {
		message = r.Error
		if stack == "" {
			stack = r.Error
			if !strings.Contains(strings.TrimSpace(stack), "\n") {
				return Trace{}, false
			}
		}
	}
	if stack == "" {
		return Trace{}, false
	}
	t, ok := x.traces[stack]
	if !ok {
		t = Parse(stack)
		if len(x.traces) >= maxTraces || x.tracesSz+len(stack) > maxTraceBytes {
			clear(x.traces)
			x.tracesSz = 0
		}
		x.traces[strings.Clone(stack)] = t
		x.tracesSz += len(stack)
	}
	if r.Kind == oplog.KindOp && r.Stack == "" && t.NumFrames() == 0 {
		return Trace{}, false // an error message, not a stack
	}
	return t.WithHead(message), true
}

// trim drops the entries and pending operations that retention removed.
func (x *Index) trim(st *oplog.Stats) {
	if st.Revision != x.revision {
		return // the next step resets
	}
	low := st.FirstID
	if st.Records == 0 {
		low = st.LastID + 1
	}
	i, _ := slices.BinarySearchFunc(x.entries, low, func(e entry, id uint64) int { return cmp.Compare(e.id, id) })
	if i > 0 {
		for _, e := range x.entries[:i] {
			x.groups[e.group].live--
		}
		x.entries = slices.Delete(x.entries, 0, i)
		x.compactGroups()
	}
	j, _ := slices.BinarySearch(x.pending, low)
	x.pending = slices.Delete(x.pending, 0, j)
}

// compactGroups forgets groups without occurrences once they are the
// majority, so that memory follows what is retained.
func (x *Index) compactGroups() {
	live := x.liveGroups()
	if dead := len(x.groups) - live; dead < 1024 || dead < live {
		return
	}
	remap := make([]int32, len(x.groups))
	kept := x.groups[:0]
	clear(x.bySig)
	for i, g := range x.groups {
		if g.live == 0 {
			remap[i] = -1
			continue
		}
		remap[i] = int32(len(kept))
		x.bySig[g.sig] = int32(len(kept))
		kept = append(kept, g)
	}
	clear(x.groups[len(kept):])
	x.groups = kept
	for i := range x.entries {
		x.entries[i].group = remap[x.entries[i].group]
	}
}

func (x *Index) liveGroups() int {
	n := 0
	for i := range x.groups {
		if x.groups[i].live > 0 {
			n++
		}
	}
	return n
}

// agg gathers one group's matching occurrences.
type agg struct {
	count             int
	first, last       int64
	exampleID, lastID uint64
	sources           []uint32
}

// FindCrashes answers q exactly: it first reads what the background reader
// has not, then groups the matching entries. q.Limit must be positive
// (oplog.Log.FindCrashes sees to it).
func (x *Index) FindCrashes(ctx context.Context, q oplog.CrashQuery) (oplog.CrashPage, error) {
	if x.ctx.Err() != nil {
		return oplog.CrashPage{}, oplog.ErrClosed
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.catchUp(ctx); err != nil {
		return oplog.CrashPage{}, err
	}
	st := x.src.Stats()
	x.trim(&st)

	src, anySource := uint32(0), q.Source == ""
	if !anySource {
		var ok bool
		if src, ok = x.bySource[q.Source]; !ok {
			return oplog.CrashPage{Groups: []oplog.CrashGroup{}, LastID: st.LastID}, nil
		}
	}
	since, until := int64(-1<<63), int64(1<<63-1)
	if !q.Since.IsZero() {
		since = q.Since.UnixNano()
	}
	if !q.Until.IsZero() {
		until = q.Until.UnixNano()
	}
	aggs := make([]agg, len(x.groups))
	var hit []int32
	for i := range x.entries {
		e := &x.entries[i]
		if e.time < since || e.time >= until || !anySource && e.source != src {
			continue
		}
		a := &aggs[e.group]
		if a.count == 0 {
			hit = append(hit, e.group)
			a.first, a.last, a.exampleID = e.time, e.time, e.id
		}
		a.count++
		a.first, a.last, a.lastID = min(a.first, e.time), max(a.last, e.time), e.id
		if !slices.Contains(a.sources, e.source) {
			a.sources = append(a.sources, e.source)
		}
	}
	slices.SortFunc(hit, func(g, h int32) int {
		if c := cmp.Compare(aggs[h].last, aggs[g].last); c != 0 {
			return c
		}
		return cmp.Compare(aggs[h].lastID, aggs[g].lastID)
	})
	page := oplog.CrashPage{Groups: make([]oplog.CrashGroup, 0, min(len(hit), q.Limit)), Total: len(hit), LastID: st.LastID}
	for _, g := range hit[:min(len(hit), q.Limit)] {
		a, gr := &aggs[g], &x.groups[g]
		cg := oplog.CrashGroup{Signature: gr.sig, Title: gr.title, Frames: slices.Clone(gr.frames), Count: a.count,
			FirstSeen: time.Unix(0, a.first).UTC(), LastSeen: time.Unix(0, a.last).UTC(), ExampleID: a.exampleID, LastID: a.lastID}
		for _, s := range a.sources {
			cg.Sources = append(cg.Sources, x.sources[s])
		}
		slices.Sort(cg.Sources)
		page.Groups = append(page.Groups, cg)
	}
	if q.Buckets > 0 && len(page.Groups) > 0 {
		x.histograms(&page, hit[:len(page.Groups)], aggs, since, until, src, anySource, q)
	}
	return page, nil
}

// histograms fills the Histogram of page's groups (hit, in the same order)
// with a second pass over the entries; see oplog.CrashQuery.Buckets.
func (x *Index) histograms(page *oplog.CrashPage, hit []int32, aggs []agg, since, until int64, src uint32, anySource bool, q oplog.CrashQuery) {
	from, to := int64(1<<63-1), int64(-1<<63)
	for i := range aggs {
		if aggs[i].count > 0 {
			from, to = min(from, aggs[i].first), max(to, aggs[i].last)
		}
	}
	if !q.Since.IsZero() {
		from = since
	}
	if q.Until.IsZero() {
		to++ // just after the latest
	} else {
		to = until
	}
	if to <= from {
		to = from + 1
	}
	pos := make(map[int32]int, len(hit))
	for i, g := range hit {
		pos[g] = i
		page.Groups[i].Histogram = make([]int, q.Buckets)
	}
	span := float64(to - from)
	for i := range x.entries {
		e := &x.entries[i]
		if e.time < from || e.time >= to || !anySource && e.source != src {
			continue
		}
		if p, ok := pos[e.group]; ok {
			b := min(int(float64(e.time-from)/span*float64(q.Buckets)), q.Buckets-1)
			page.Groups[p].Histogram[b]++
		}
	}
	page.HistogramFrom, page.HistogramUntil = time.Unix(0, from).UTC(), time.Unix(0, to).UTC()
}
