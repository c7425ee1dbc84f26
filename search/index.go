package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcplogd/mcplogd/oplog"
)

// Options configures an Index. A nil *Options means defaults; a zero field
// means its documented default.
type Options struct {
	// SegmentSize is how many IDs one segment (one bleve index) covers.
	// Default 65,536.
	SegmentSize uint64

	// BatchSize is how many records the indexer reads from the store and
	// indexes in one bleve batch. Default 10,000.
	BatchSize int

	// Parallel is how many bleve batches (of BatchSize/Parallel records
	// at most) the indexer runs at once. Default GOMAXPROCS, at most 4.
	Parallel int

	// TailChunk is how many IDs one in-memory index of not yet indexed
	// records covers. Default 4,096.
	TailChunk uint64

	// Interval is how often the indexer looks for new records when nothing
	// wakes it, and how long it gathers records after a wake-up before a
	// small batch. Default 1s (gathering: Interval/10).
	Interval time.Duration

	// Changed wakes the indexer when records arrive (oplog.Log.Changed);
	// nil: the indexer polls every Interval.
	Changed func() <-chan struct{}

	// Logger receives progress and errors; nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.SegmentSize == 0 {
		o.SegmentSize = 1 << 16
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 10_000
	}
	if o.Parallel <= 0 {
		o.Parallel = min(runtime.GOMAXPROCS(0), 4)
	}
	o.Parallel = min(o.Parallel, o.BatchSize)
	if o.TailChunk == 0 {
		o.TailChunk = 4096
	}
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Index is a bleve implementation of oplog.Index: one bleve index per
// segment of SegmentSize IDs under dir, fed in the background from the store,
// and in-memory indexes of the records above the watermark built at query
// time, so that answers are exact. It is safe for concurrent use.
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

	dirty *dirtySet  // operations indexed while pending
	tail  *tailCache // in-memory indexes above the watermark

	stop     chan struct{}
	done     chan struct{}
	reindex  chan chan error
	metaLock sync.Mutex
	work     sync.Mutex // one indexing step or restart at a time
}

var _ oplog.Index = (*Index)(nil)

// scorchConfig makes a batch return once it is searchable, without waiting
// for it to reach the disk: the persister writes (and merges) in the
// background, on the other core, while the next batch is analysed. What
// meta.json records as indexed is only what a persisted callback confirmed.
// A new map each time: bleve writes into the one it is given (its path).
func scorchConfig() map[string]any { return map[string]any{"unsafe_batch": true} }

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
}

// lookup returns s's time column, filled from st first if s was opened from disk.
func (s *segment) lookup(st oplog.Store) (timeLookup, error) {
	if err := s.times.fill(st, s.hi); err != nil {
		return nil, err
	}
	return s.times.get, nil
}

// metaFile is DATA/index/meta.json.
type metaFile struct {
	MappingVersion int           `json:"mappingVersion"`
	Revision       uint64        `json:"revision"`
	IndexedThrough uint64        `json:"indexedThrough"`
	SegmentSize    uint64        `json:"segmentSize"`
	Segments       []segmentMeta `json:"segments"`
}

type segmentMeta struct {
	Lo   uint64 `json:"lo"`
	Docs uint64 `json:"docs"`
	Time span   `json:"time"` // absent (not Known) in an older meta.json: never skipped
}

const metaName = "meta.json"

// Open opens the index in dir (creating it) over st, and starts the
// background indexer. A missing, unreadable, corrupt or older-mapping index
// is not an error: it is dropped and rebuilt from st in the background,
// while searches stay exact through in-memory indexes of what is not yet
// indexed. Errors are for a dir that cannot be created or written.
func Open(dir string, st oplog.Store, opts *Options) (*Index, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o = o.withDefaults()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	x := &Index{dir: dir, st: st, opts: o, m: newMapping(), state: "idle", stop: make(chan struct{}),
		done: make(chan struct{}), reindex: make(chan chan error), dirty: newDirtySet()}
	x.an = newAnalyzers(x.m)
	x.tail = &tailCache{x: x, chunks: map[uint64]*memChunk{}}
	if err := x.load(); err != nil {
		return nil, err
	}
	go x.run()
	return x, nil
}

// load opens what meta.json lists, or starts over.
func (x *Index) load() error {
	stats := x.st.Stats()
	fresh := func(why string) error {
		if why != "" {
			x.opts.Logger.Warn("search index will be rebuilt", "dir", x.dir, "reason", why, "records", stats.Records)
		}
		for _, s := range x.segs {
			_ = s.idx.Close()
		}
		x.segs, x.watermark, x.persisted, x.revision = nil, 0, 0, stats.Revision
		if stats.Records > 0 {
			x.state, x.rebuildTo = "rebuilding", stats.LastID
		}
		if err := removeSegments(x.dir, nil); err != nil {
			return err
		}
		return x.writeMeta()
	}
	b, err := os.ReadFile(filepath.Join(x.dir, metaName))
	if errors.Is(err, os.ErrNotExist) {
		return fresh(map[bool]string{true: "no index", false: ""}[stats.Records > 0])
	}
	var m metaFile
	switch {
	case err != nil:
		return fresh("meta.json: " + err.Error())
	case json.Unmarshal(b, &m) != nil:
		return fresh("meta.json is corrupt")
	case m.MappingVersion != MappingVersion:
		return fresh(fmt.Sprintf("mapping version %d, want %d", m.MappingVersion, MappingVersion))
	case m.SegmentSize != x.opts.SegmentSize:
		return fresh(fmt.Sprintf("segment size %d, want %d", m.SegmentSize, x.opts.SegmentSize))
	case m.Revision != stats.Revision:
		return fresh("the log was cleared or replaced")
	case m.IndexedThrough > stats.LastID:
		return fresh("the index is ahead of the log")
	}
	x.revision, x.watermark, x.persisted = m.Revision, m.IndexedThrough, m.IndexedThrough
	keep := map[string]bool{}
	for _, sm := range m.Segments {
		s, err := x.openSegment(sm)
		if err != nil {
			// Everything from this segment up is indexed again.
			x.opts.Logger.Warn("search index segment is corrupt; rebuilding from it", "segment", segName(sm.Lo), "err", err)
			x.watermark = min(x.watermark, sm.Lo-1)
			x.persisted = x.watermark
			x.state, x.rebuildTo = "rebuilding", stats.LastID
			break
		}
		x.segs = append(x.segs, s)
		keep[segName(sm.Lo)] = true
	}
	if err := removeSegments(x.dir, keep); err != nil {
		return err
	}
	if err := x.writeMeta(); err != nil {
		return err
	}
	return x.loadPending()
}

// openSegment opens one segment and checks it against what meta.json says.
// bleve may panic on a mangled file; that is corruption too.
func (x *Index) openSegment(sm segmentMeta) (s *segment, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic opening: %v", r)
		}
	}()
	idx, err := bleve.OpenUsing(filepath.Join(x.dir, segName(sm.Lo)), scorchConfig())
	if err != nil {
		return nil, err
	}
	n, err := idx.DocCount()
	hi := sm.Lo + x.opts.SegmentSize - 1
	if err == nil && n > x.opts.SegmentSize {
		err = fmt.Errorf("%d documents in a segment of %d IDs", n, x.opts.SegmentSize)
	}
	if err == nil {
		// Read the whole segment once: a damaged file fails here, not in a search.
		_, err = idx.Search(bleve.NewSearchRequestOptions(query.NewMatchAllQuery(), 1, 0, false))
	}
	if err != nil {
		_ = idx.Close()
		return nil, err
	}
	return &segment{lo: sm.Lo, hi: hi, docs: n, span: sm.Time, times: newTimeCol(sm.Lo, x.opts.SegmentSize), idx: idx}, nil
}

// loadPending finds the operations indexed while pending: they may have
// completed since, and are matched from the store until indexed again.
func (x *Index) loadPending() error {
	tq := query.NewTermQuery(oplog.StatusPending.String())
	tq.SetField("status")
	for _, s := range x.segs {
		ids, err := searchIDs(context.Background(), s.idx, x.m, tq, s.lo, s.hi, nil, nil, nil)
		if err != nil {
			return fmt.Errorf("index: %s: %w", segName(s.lo), err)
		}
		x.dirty.add(ids...)
	}
	return nil
}

func segName(lo uint64) string { return fmt.Sprintf("seg-%020d", lo) }

// removeSegments deletes the segment directories of dir not in keep.
func removeSegments(dir string, keep map[string]bool) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "seg-") && !keep[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("index: %w", err)
			}
		}
	}
	return nil
}

// writeMeta records the watermark and the segments, atomically.
func (x *Index) writeMeta() error {
	x.metaLock.Lock()
	defer x.metaLock.Unlock()
	x.mu.RLock()
	m := metaFile{MappingVersion: MappingVersion, Revision: x.revision, IndexedThrough: x.persisted, SegmentSize: x.opts.SegmentSize}
	for _, s := range x.segs {
		// Taken with the watermark: the span covers every document it counts.
		m.Segments = append(m.Segments, segmentMeta{Lo: s.lo, Docs: s.docs, Time: s.span})
	}
	x.mu.RUnlock()
	b, _ := json.Marshal(m)
	tmp := filepath.Join(x.dir, metaName+".tmp")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(x.dir, metaName))
	}
	if err != nil {
		return fmt.Errorf("index: write %s: %w", metaName, err)
	}
	x.mu.Lock()
	x.metaWritten = m.IndexedThrough
	x.mu.Unlock()
	return nil
}

// Status reports the watermark, the lag and what the indexer is doing.
func (x *Index) Status() oplog.IndexStatus {
	st := x.st.Stats()
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := oplog.IndexStatus{IndexedThrough: x.watermark, State: x.state, Segments: len(x.segs)}
	if st.LastID > x.watermark {
		s.Lag = st.LastID - x.watermark
	}
	if x.state == "rebuilding" && x.rebuildTo > 0 {
		s.Progress = min(float64(x.watermark)/float64(x.rebuildTo), 1)
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
	close(x.stop)
	<-x.done
	x.mu.RLock()
	segs := slices.Clone(x.segs)
	x.mu.RUnlock()
	var errs []error
	for _, s := range segs {
		// Persists what was introduced; the persisted callbacks take x.mu.
		errs = append(errs, s.idx.Close())
	}
	errs = append(errs, x.writeMeta())
	x.mu.Lock()
	defer x.mu.Unlock()
	x.segs = nil
	x.tail.reset()
	return errors.Join(errs...)
}

// searchIDs returns the IDs in lo..hi of the documents of bi that match q
// and that keep (nil: any) keeps, in no order; look gives the records' times
// to a time range of the query string. It walks bleve's searcher unscored,
// without a collector.
func searchIDs(ctx context.Context, bi bleve.Index, m mapping.IndexMapping, q query.Query, lo, hi uint64, keep func(uint64) bool, look timeLookup, out []uint64) ([]uint64, error) {
	if look != nil {
		ctx = context.WithValue(ctx, lookupKey{}, look)
	}
	ai, err := bi.Advanced()
	if err != nil {
		return out, err
	}
	r, err := ai.Reader()
	if err != nil {
		return out, err
	}
	defer r.Close()
	sr, err := q.Searcher(ctx, r, m, search.SearcherOptions{Score: "none"})
	if err != nil {
		return out, err
	}
	defer sr.Close()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(sr.DocumentMatchPoolSize(), 0), IndexReader: r}
	for n := 0; ; n++ {
		if n%1024 == 1023 && ctx.Err() != nil {
			return out, ctx.Err()
		}
		dm, err := sr.Next(sctx)
		if err != nil {
			return out, err
		}
		if dm == nil {
			return out, nil
		}
		ext, err := r.ExternalID(dm.IndexInternalID)
		sctx.DocumentMatchPool.Put(dm)
		if err != nil {
			return out, err
		}
		id, err := strconv.ParseUint(ext, 10, 64)
		if err != nil {
			return out, fmt.Errorf("document %q: %w", ext, err)
		}
		if id >= lo && id <= hi && (keep == nil || keep(id)) {
			out = append(out, id)
		}
	}
}

// Search returns the IDs of the records matching q below before (0: no
// bound), newest first: first the records above the watermark, matched in
// in-memory indexes with the same mapping, then the segments, newest first,
// until limit+1 are found. Operations indexed while pending are matched as
// they now stand.
func (x *Index) Search(ctx context.Context, q *oplog.SearchQuery, before uint64, limit int) (oplog.IndexHits, error) {
	c, err := x.an.compile(q)
	if err != nil {
		return oplog.IndexHits{}, err
	}
	recs := &recordReader{st: x.st}
	ctx = context.WithValue(ctx, recordsKey{}, recs)
	h, err := x.search(ctx, c, before, limit)
	if err == nil {
		err = recs.error()
	}
	return h, err
}

func (x *Index) search(ctx context.Context, c *compiled, before uint64, limit int) (oplog.IndexHits, error) {
	st := x.st.Stats()
	lowest := max(st.FirstID, st.GenStart, 1)
	upper := st.LastID
	if before > 0 {
		upper = min(upper, before-1)
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.closed {
		return oplog.IndexHits{}, oplog.ErrClosed
	}
	wm := x.watermark
	if x.revision != st.Revision {
		wm = 0 // the segments hold a cleared generation: use none of them
	}
	h := oplog.IndexHits{Terms: c.terms, IndexedThrough: wm}
	dirty := x.dirty.snapshot()
	pend, err := x.dirty.match(ctx, x, c, dirty, lowest, upper)
	if err != nil {
		return h, err
	}
	var ids []uint64
	var found int64
	down := upper + 1 // every ID in [down, upper] has been searched
	// Above the watermark: in-memory chunks, newest first.
	if upper > wm && upper >= lowest {
		err := x.tail.search(ctx, c, max(wm+1, lowest), upper, func(chunkLo uint64, got []uint64) bool {
			got = slices.DeleteFunc(got, func(id uint64) bool { return dirty[id] })
			found += int64(len(got))
			slices.Sort(got)
			slices.Reverse(got)
			ids = append(ids, got...)
			down = chunkLo
			return len(ids)+countIn(pend, down, upper) <= limit
		})
		if err != nil {
			return h, err
		}
		if len(ids)+countIn(pend, down, upper) <= limit {
			down = max(wm+1, lowest)
		}
	}
	if len(ids)+countIn(pend, down, upper) <= limit && x.revision == st.Revision {
		all := true
		top := min(upper, wm)
		for i := len(x.segs) - 1; i >= 0; i-- {
			s := x.segs[i]
			if s.lo > top {
				continue
			}
			if s.hi < lowest {
				break
			}
			lo, hi := max(s.lo, lowest), min(s.hi, top)
			got, err := x.segmentIDs(ctx, s, c, lo, hi)
			if err != nil {
				return h, fmt.Errorf("index: %s: %w", segName(s.lo), err)
			}
			got = slices.DeleteFunc(got, func(id uint64) bool { return dirty[id] })
			found += int64(len(got))
			slices.Sort(got)
			slices.Reverse(got)
			ids = append(ids, got...)
			down = lo
			if len(ids)+countIn(pend, down, upper) > limit {
				all = false
				break
			}
		}
		if all {
			down = lowest
		}
	}
	complete := down <= lowest
	for _, id := range pend {
		if id >= down && id <= upper {
			ids = append(ids, id)
			found++
		}
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	ids = slices.Compact(ids)
	h.More = len(ids) > limit
	h.IDs = ids[:min(len(ids), limit)]
	h.Total = found
	h.TotalExact = complete && before == 0
	if !complete && upper >= down {
		span := float64(st.LastID - lowest + 1)
		h.Total = int64(float64(found) * span / float64(upper-down+1))
	}
	return h, nil
}

// segmentIDs returns the IDs in lo..hi of the documents of s that match c,
// skipping s when its time span is outside c's range.
func (x *Index) segmentIDs(ctx context.Context, s *segment, c *compiled, lo, hi uint64) ([]uint64, error) {
	var lerr error
	look := func() timeLookup {
		l, err := s.lookup(x.st)
		if err != nil {
			lerr = err
			return func(uint64) (int64, bool) { return 0, false }
		}
		return l
	}
	keep, ok := c.plan(s.span, look)
	if !ok || lerr != nil {
		return nil, lerr
	}
	var l timeLookup
	if c.times {
		if l = look(); lerr != nil {
			return nil, lerr
		}
	}
	s.times.mu.RLock()
	defer s.times.mu.RUnlock()
	return searchIDs(ctx, s.idx, x.m, c.q, lo, hi, keep, l, nil)
}

func countIn(ids []uint64, lo, hi uint64) int {
	n := 0
	for _, id := range ids {
		if id >= lo && id <= hi {
			n++
		}
	}
	return n
}
