package search

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/mcplogd/mcplogd/oplog"
)

// Options configures an Index. A nil *Options means defaults; a zero field
// means its documented default.
type Options struct {
	// SegmentSize is how many IDs one segment (one bleve index) covers.
	// Default 65,536.
	SegmentSize uint64

	// BatchSize is how many records one indexing step reads from the store
	// and indexes at most: fewer when their bytes or words reach the
	// step's bounds (see consts.go). Default 10,000.
	BatchSize int

	// Parallel is how many bleve batches the indexer splits a step into
	// (about equal in words) and runs at once. Default GOMAXPROCS - 1,
	// at least 1 and at most 4: a core is left to searches, the writers
	// and the term sets, which make records searchable first.
	Parallel int

	// TailChunk is how many IDs of not yet indexed records a search reads
	// from the store at a time. Default 4,096.
	TailChunk uint64

	// Walks is how many searches at once evaluate more records above the
	// watermark than one TailChunk (a walk takes a core for up to ~1 µs a
	// record); more wait for a turn, or until their context ends, so that
	// the indexer, which ends the lag, keeps its share. Default GOMAXPROCS.
	Walks int

	// WalkBudget is how long a search may evaluate records above the
	// watermark (a rebuild of a large store leaves them all there): past
	// it, the search answers what it found with TotalExact false and
	// IndexHits.Resume, where the next page goes on, rather than stall.
	// At least one chunk is evaluated per search, so paging always
	// progresses. Default 2s; negative: none.
	WalkBudget time.Duration

	// Interval is how often the indexer looks for new records when nothing
	// wakes it, and how long it gathers records after a wake-up before a
	// small batch. Default 1s (gathering: Interval/10).
	Interval time.Duration

	// Changed wakes the indexer when records arrive (oplog.Log.Changed);
	// nil: the indexer polls every Interval.
	Changed func() <-chan struct{}

	// Completed is the log's journal of completed operations
	// (oplog.Log.CompletedSince): with it, the operations indexed while
	// pending are read again only once they complete; nil: every indexing
	// step and every search reads them all again.
	Completed func(pos uint64) oplog.Completed

	// Logger receives progress and errors; nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.SegmentSize == 0 {
		o.SegmentSize = defaultSegmentSize
	}
	if o.BatchSize <= 0 {
		o.BatchSize = defaultBatchSize
	}
	if o.Parallel <= 0 {
		o.Parallel = min(max(runtime.GOMAXPROCS(0)-1, 1), maxDefaultParallel)
	}
	o.Parallel = min(o.Parallel, o.BatchSize)
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

// Index is a bleve implementation of oplog.Index: one bleve index per
// segment of SegmentSize IDs under dir, fed in the background from the store;
// the records above the watermark are matched at query time (see eval.go),
// so that answers are exact. It is safe for concurrent use.
type Index struct {
	dir  string
	st   oplog.Store
	opts Options
	m    *mapping.IndexMappingImpl
	an   analyzers

	mu          sync.RWMutex // guards segs, watermark, revision and status
	segs        []*segment   // ascending by lo
	watermark   uint64       // every record up to here is in segs (searchable)
	persisted   uint64       // every record up to here is on disk: what meta.json records
	queue       []*persist   // batches not yet on disk, oldest first
	metaWritten uint64       // the persisted watermark meta.json holds
	revision    uint64       // the store generation segs belong to
	state       oplog.IndexState
	rebuildTo   uint64 // while rebuilding: the LastID to reach
	closed      bool
	full        atomic.Bool // the disk was full at the last write (diskfull.go)

	hint     sizeHint      // the largest record the recent reads met (budget.go)
	budget   stepBudget    // what the indexing step takes; under work
	dirty    *dirtySet     // operations indexed while pending
	tail     tailCache     // decoded records above the watermark
	terms    termSets      // the term sets of the chunks above the watermark (terms.go)
	skipped  atomic.Uint64 // chunks a search skipped by their term sets
	steps    atomic.Uint64 // the indexer's looks at the log (tests wait for the first)
	walks    chan struct{} // a turn of a search walking the records above the watermark (Options.Walks)
	unmapped unmapper      // when the store's mapped pages go back (release.go)

	stop        chan struct{}
	done        chan struct{}
	termsDone   chan struct{}
	compacting  atomic.Bool    // a sealed segment is being merged (compact.go)
	compactions sync.WaitGroup // that merge
	reindex     chan chan error
	metaLock    sync.Mutex
	work        sync.Mutex // one indexing step or restart at a time
}

var _ oplog.Index = (*Index)(nil)

// scorchConfig makes a batch return once it is searchable, without waiting
// for it to reach the disk: the persister writes (and merges) in the
// background, on the other core, while the next batch is analysed. What
// meta.json records as indexed is only what a persisted callback confirmed.
// A new map each time: bleve writes into the one it is given (its path).
func scorchConfig() map[string]any {
	c := map[string]any{"unsafe_batch": true}
	for k, v := range scorchTuning {
		c[k] = v
	}
	return c
}

// scorchTuning is added to every segment's scorch config: the benchmarks
// of index variants set it (see BenchmarkIndexVariants).
var scorchTuning map[string]any

// persist tracks the batches of one indexing step until they are on disk.
type persist struct {
	through uint64 // the watermark the step reached
	left    int    // batches not yet persisted
	failed  bool
}

// segment is one bleve index holding the records with IDs lo..hi.
type segment struct {
	lo, hi uint64
	docs   uint64   // documents as of the last meta write
	span   span     // the times of its documents; under Index.mu
	times  *timeCol // its records' times
	idx    bleve.Index

	compacted bool // merged into one file once sealed, or being merged (compact.go); under Index.mu

	checked atomic.Int64 // when a failed search last checked its files (damage.go), unix ns
}

// lookup returns s's time column, filled from st first if s was opened
// from disk (read is told what that read).
func (s *segment) lookup(st oplog.Store, read func(bytes int64)) (timeLookup, error) {
	if err := s.times.fill(st, s.hi, read); err != nil {
		return nil, err
	}
	return s.times.get, nil
}

// Open opens the index in dir (creating it) over st, and starts the
// background indexer. A missing, unreadable, corrupt or older-mapping index
// is not an error: it is dropped and rebuilt from st in the background,
// while searches stay exact by matching what is not yet indexed directly. Errors are for a dir that cannot be created or written.
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
		done: make(chan struct{}), termsDone: make(chan struct{}), reindex: make(chan chan error), dirty: newDirtySet(o.Completed),
		walks: make(chan struct{}, o.Walks)}
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
	go x.run()
	go x.runTerms()
	return x, nil
}

// sealHolder is a store that compresses its records in the background
// (store.DB): the index holds that while it is behind (behind). Right after
// a burst, compressing the burst's records took a core from the index's
// catch-up, which then also had to expand the blocks it read.
type sealHolder interface{ HoldSealing(held func() bool) }

// behind reports whether more than a step's records (BatchSize) are in no
// segment yet, the indexer running: a backlog to catch up, not the few
// records that a steady trickle keeps waiting for the next step.
func (x *Index) behind() bool {
	last := x.st.Stats().LastID
	x.mu.RLock()
	defer x.mu.RUnlock()
	return !x.closed && x.watermark+uint64(x.opts.BatchSize) < last
}

// Status reports the watermark, the lag and what the indexer is doing.
func (x *Index) Status() oplog.IndexStatus {
	st := x.st.Stats()
	x.mu.RLock()
	defer x.mu.RUnlock()
	wm := x.watermark
	s := oplog.IndexStatus{SegmentsThrough: wm, IndexedThrough: wm, State: x.state, Segments: len(x.segs)}
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
		s.Progress = min(float64(wm)/float64(x.rebuildTo), 1)
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

// Close stops the indexer and closes every segment.
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
	<-x.done
	<-x.termsDone
	x.mu.RLock()
	segs := slices.Clone(x.segs)
	x.mu.RUnlock()
	var errs []error
	for _, s := range segs {
		// Persists what was introduced; the persisted callbacks take x.mu.
		errs = append(errs, s.idx.Close())
	}
	x.compactions.Wait() // its segment closed, a merge returns
	errs = append(errs, x.tolerateFull(x.writeMeta()))
	x.mu.Lock()
	defer x.mu.Unlock()
	x.segs = nil
	return errors.Join(errs...)
}
