package search

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/mcplogd/mcplogd/oplog"
)

// Options configures an Index. A nil *Options means defaults; a zero field
// means its documented default.
type Options struct {
	// TailChunk is how many IDs one chunk covers: the records a term set
	// holds the terms of, and a search reads from the store at a time.
	// Default 4,096.
	TailChunk uint64

	// Walks is how many searches at once evaluate more records than one
	// TailChunk (a walk takes a core for up to ~1 µs a record); more wait
	// for a turn, or until their context ends. Default GOMAXPROCS.
	Walks int

	// WalkBudget is how long a search may evaluate records: past it, the
	// search answers what it found with TotalExact false and
	// IndexHits.Resume, where the next page goes on, rather than stall.
	// At least one chunk is evaluated per search, so paging always
	// progresses. Default 2s; negative: none.
	WalkBudget time.Duration

	// Interval is how often the index looks for new records when nothing
	// wakes it. Default 1s.
	Interval time.Duration

	// Changed wakes the index when records arrive (oplog.Log.Changed);
	// nil: it polls every Interval.
	Changed func() <-chan struct{}

	// Completed is the log's journal of completed operations
	// (oplog.Log.CompletedSince): with it, the operations read while
	// pending are read again only once they complete; nil: every search
	// reads them all again.
	Completed func(pos uint64) oplog.Completed

	// Logger receives progress and errors; nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.TailChunk == 0 {
		o.TailChunk = defaultTailChunk
	}
	if o.Walks <= 0 {
		o.Walks = runtime.GOMAXPROCS(0)
	}
	if o.WalkBudget == 0 {
		o.WalkBudget = defaultWalkBudget
	}
	if o.Interval <= 0 {
		o.Interval = defaultInterval
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Index is mcplogd's implementation of oplog.Index: the term set of each
// chunk of TailChunk IDs, built in the background from the store and, once
// the chunk is complete, kept compressed in memory and in the sets file
// under dir; a search tests the sets newest first and evaluates its query
// on the records of the chunks they do not rule out (see doc.go). It is
// safe for concurrent use.
type Index struct {
	dir  string
	st   oplog.Store
	opts Options
	m    *mapping.IndexMappingImpl
	an   analyzers

	mu        sync.RWMutex // guards file, watermark, revision, state and closed
	file      *setFile     // the sets file; nil once closed
	watermark uint64       // every record up to here is in a complete chunk's set in the sets file
	persisted uint64       // every record up to here is in a set in the sets file (the growing chunk's too)
	revision  uint64       // the store generation the sets belong to
	state     oplog.IndexState
	rebuildTo uint64 // while rebuilding: the LastID to reach
	closed    bool
	full      atomic.Bool // the disk was full at the last write (diskfull.go)

	hint     sizeHint      // the largest record the recent reads met (budget.go)
	dirty    *dirtySet     // the journal of completed operations
	tail     tailCache     // decoded records of the newest chunks
	terms    termSets      // the chunks' term sets (terms.go)
	skipped  atomic.Uint64 // chunks a search skipped by their term sets or postings
	posted   atomic.Uint64 // chunks a search read the postings of
	noPost   atomic.Bool   // searches use no postings (tests)
	steps    atomic.Uint64 // the index's looks at the log (tests wait for the first)
	walks    chan struct{} // a turn of a search walking records (Options.Walks)
	unmapped unmapper      // when the store's mapped pages go back (release.go)

	stop  chan struct{}
	done  sync.WaitGroup // the background loops
	warms chan struct{}  // asks the warming loop to run (tail.go's warm)
	work  sync.Mutex     // one step or restart at a time
}

var _ oplog.Index = (*Index)(nil)

// Open opens the index in dir (creating it) over st, and starts building
// the term sets of what the sets file does not hold. A missing, damaged or
// older index is not an error: what is lost of it is built again from st
// in the background, while searches stay exact by evaluating the records
// that no set covers. Errors are for a dir that cannot be created or written.
func Open(dir string, st oplog.Store, opts *Options) (*Index, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o = o.withDefaults()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	x := &Index{dir: dir, st: st, opts: o, m: newMapping(), state: oplog.IndexIdle, stop: make(chan struct{}),
		warms: make(chan struct{}, 1), dirty: newDirtySet(o.Completed), walks: make(chan struct{}, o.Walks)}
	x.an = newAnalyzers(x.m)
	if m, ok := st.(mappedReleaser); ok {
		x.unmapped.unmap = m.ReleaseMapped
	}
	if err := x.load(); err != nil {
		return nil, err
	}
	if h, ok := st.(sealHolder); ok {
		h.HoldSealing(x.behind)
	}
	x.done.Go(x.run)
	x.done.Go(x.warming)
	return x, nil
}

// sealHolder is a store that compresses its records in the background
// (store.DB): the index holds that while it is behind (behind). Right after
// a burst, compressing the burst's records took a core from the index's
// catch-up, which then also had to expand the blocks it read.
type sealHolder interface{ HoldSealing(held func() bool) }

// behind reports whether more than holdBehind records are in no term set
// yet, the index running: a backlog to catch up, not the few records a
// steady trickle keeps waiting for the next step.
func (x *Index) behind() bool {
	st := x.st.Stats()
	x.mu.RLock()
	defer x.mu.RUnlock()
	return !x.closed && x.terms.covered(x.revision, x.watermark)+holdBehind < st.LastID
}

// Status reports the watermark, the lag and what the index is doing.
func (x *Index) Status() oplog.IndexStatus {
	st := x.st.Stats()
	x.mu.RLock()
	defer x.mu.RUnlock()
	wm := max(x.watermark, x.persisted)
	s := oplog.IndexStatus{SegmentsThrough: wm, IndexedThrough: wm, State: x.state, Segments: x.terms.storedCount()}
	if x.revision == st.Revision {
		s.IndexedThrough = min(x.terms.covered(x.revision, wm), st.LastID)
	}
	if st.LastID > wm {
		s.SegmentLag = st.LastID - wm
	}
	if st.LastID > s.IndexedThrough {
		s.Lag = st.LastID - s.IndexedThrough
	}
	if x.state == oplog.IndexRebuilding && x.rebuildTo > 0 {
		s.Progress = min(float64(s.IndexedThrough)/float64(x.rebuildTo), 1)
	}
	s.Bytes = dirSize(x.dir)
	return s
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// Close stops the index's background work and closes the sets file.
func (x *Index) Close() error {
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return oplog.ErrClosed
	}
	x.closed = true
	x.mu.Unlock()
	if h, ok := x.st.(sealHolder); ok {
		h.HoldSealing(nil)
	}
	close(x.stop)
	x.done.Wait()
	x.work.Lock()
	defer x.work.Unlock()
	if err := x.tolerateFull(x.writeGrowing(x.st.Stats(), true)); err != nil {
		x.opts.Logger.Error("search index: writing the growing term set failed", "err", err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.file == nil {
		return nil
	}
	err := x.file.Close()
	x.file = nil
	return err
}
