package crash

import (
	"context"
	"errors"
	"log/slog"
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
	Runs(ctx context.Context, source string) ([]oplog.RunInfo, error)
}

var _ Source = (*oplog.Log)(nil)

// completions is what a Source may offer besides: its journal of completed
// operations (oplog.Log.CompletedSince), so that the operations seen
// pending are read again only once they complete. Without it, they are all
// read again every Options.Interval.
type completions interface {
	CompletedSince(pos uint64) oplog.Completed
}

var _ completions = (*oplog.Log)(nil)

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
		o.Interval = defaultInterval
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Index groups a log's crashes by signature. It implements
// oplog.CrashIndex and is safe for concurrent use.
//
// It holds, per crash record, an entry of 32 bytes (ID, time, source,
// run, group) in ID order, and per group its signature, title and frames; the
// records themselves stay in the store. Two cursors follow the store: one
// over error and fatal lines, one over operations (1% of records in the
// usual mix), because an operation is appended pending at level info and
// may fail later, in place. Operations seen pending are asked about again
// once they end, as the Log's journal of completions tells (all of them
// every Interval with a Source that has none).
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
	journal  func(pos uint64) oplog.Completed // the source's journal of completions; nil: none
	jpos     uint64                           // the journal's position when pending was last brought up to date
	reads    uint64                           // pending operations read again (for tests)
	groups   []group
	bySig    map[string]int32
	sources  []string
	bySource map[string]uint32
	traces   map[string]Trace    // parsed stacks, bounded: the same few traces repeat
	tracesSz int                 // bytes of the keys of traces
	fatal    map[runOf]fatalLine // each run's last crash by a fatal line, once it had one
	absorbed map[uint64]int32    // fatal lines that are more of a crash's dump: their crash's group
	header   uint64              // a dump's header (or a crash's reason) that the entry being added takes in
	reason   uint64              // of them, a failed assertion the dump was for: its message titles the crash (reasonBefore)
	replaced int32               // the group of the header the entry being added replaces; -1: none
	built    bool
	started  time.Time
}

// entry is one crash occurrence.
type entry struct {
	id     uint64
	time   int64 // Unix nanoseconds
	group  int32
	source uint32
	run    uint32 // the run of its source (oplog.Record.Run); 0: not known
	level  oplog.Level
	flags  uint8
}

// Entry flags.
const (
	// fromMarker: an exit marker at level error or fatal, an occurrence
	// only when it is its run's crash (oplog.RunInfo.CrashID): a signal or
	// a failing status with nothing before it that explains it.
	fromMarker uint8 = 1 << iota
	// bare: a fatal line without a stack, the first of its run (a crash
	// handler's "Program crashed with signal 11"), grouped by its message.
	bare
	// logged: a line whose own message is not its stack's exception (a
	// logger's "could not load level" above the exception it caught).
	logged
	// restates: a report that says only how the process ended, the
	// frames its crash's (Valgrind's "Process terminating with default
	// action of signal 6 (SIGABRT)" after the failed assertion that
	// aborted): after a first fatal line with a stack, more of its crash.
	restates
)

// group is what every occurrence of one crash shares.
type group struct {
	sig, title string
	frames     []string
	compile    bool   // compiler diagnostics (ClassCompile)
	scripted   bool   // its first stack has a frame of the game's own scripts (projectFrame): causeBefore's choice
	cause      uint64 // the exception its newest game's fatal line gave up on (causeBefore); the assertion its newest dump was for (reasonBefore)
	live       int    // entries that point here
}

// runOf names a run of a source in the index.
type runOf struct{ source, run uint32 }

// fatalLine is the fatal line that began a crash's dump.
type fatalLine struct {
	id   uint64
	time int64
}

// New returns an Index over src and starts its background reader, which
// first reads every retained record (the initial build) and then follows
// new ones. Close stops it.
func New(src Source, opts *Options) *Index {
	var o Options
	if opts != nil {
		o = *opts
	}
	x := &Index{src: src, opts: o.withDefaults(), done: make(chan struct{}), bySig: map[string]int32{},
		bySource: map[string]uint32{}, traces: map[string]Trace{}, fatal: map[runOf]fatalLine{}, absorbed: map[uint64]int32{}, replaced: -1, started: time.Now()}
	if j, ok := src.(completions); ok {
		x.journal = j.CompletedSince
	}
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
