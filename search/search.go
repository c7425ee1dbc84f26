package search

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcplogd/mcplogd/oplog"
)

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
		if n%ctxCheckEvery == ctxCheckEvery-1 && ctx.Err() != nil {
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
		id, ok := parseDocID(ext)
		if !ok {
			return out, fmt.Errorf("document %q is no record's", ext)
		}
		if id >= lo && id <= hi && (keep == nil || keep(id)) {
			out = append(out, id)
		}
	}
}

// Search returns the IDs of the records matching q below before (0: no
// bound), newest first: first the records above the watermark, on which
// the query is evaluated as they are read from the store (see eval.go),
// then the segments, newest first, until limit+1 are found. Operations
// indexed while pending are matched as they now stand.
func (x *Index) Search(ctx context.Context, q *oplog.SearchQuery, before uint64, limit int) (oplog.IndexHits, error) {
	c, err := x.an.compile(q)
	if err != nil {
		return oplog.IndexHits{}, err
	}
	ev := x.an.evaluator(x.m)
	p, err := ev.compileEval(c)
	if err != nil {
		return oplog.IndexHits{}, oplog.Errorf(oplog.EINVALID, "query: %v", err)
	}
	cp := ev.chunkPred(c)
	recs := &recordReader{st: x.st, onRead: x.readBytes}
	ctx = context.WithValue(ctx, recordsKey{}, recs)
	h, err := x.search(ctx, c, p, cp, before, limit)
	if x.repair(err) {
		h, err = x.search(ctx, c, p, cp, before, limit) // damage.go: the index starts over
	}
	if err == nil {
		err = recs.error()
	}
	return h, err
}

// search walks down from the newest ID: the records above the watermark
// are evaluated without the index's lock, then, under it, the segments
// searched below the watermark seen before that walk (the watermark only
// grows, and what it passed stays in the segments); should it have fallen
// (a rebuild), the gap is walked too. So each record is looked at once.
func (x *Index) search(ctx context.Context, c *compiled, p pred, cp cpred, before uint64, limit int) (oplog.IndexHits, error) {
	st := x.st.Stats()
	lowest := max(st.FirstID, st.GenStart, 1)
	upper := st.LastID
	if before > 0 {
		upper = min(upper, before-1)
	}
	h := oplog.IndexHits{Terms: c.terms}
	col := &collector{upper: upper, limit: limit, down: upper + 1}
	if x.opts.WalkBudget > 0 {
		col.deadline = time.Now().Add(x.opts.WalkBudget)
	}
	top := upper
	for first := true; ; first = false {
		x.mu.RLock()
		if x.closed {
			x.mu.RUnlock()
			return h, oplog.ErrClosed
		}
		wm := x.watermark
		if x.revision != st.Revision {
			wm = 0 // the segments hold a cleared generation: use none of them
		}
		if first {
			h.IndexedThrough = wm
		}
		if top < lowest || col.full() {
			x.mu.RUnlock()
			break
		}
		if top <= wm {
			err := x.searchSegments(ctx, c, p, col, lowest, top)
			x.mu.RUnlock()
			if err != nil {
				return h, err
			}
			break
		}
		x.mu.RUnlock()
		lo := max(wm+1, lowest)
		if err := x.walk(ctx, p, cp, col, lo, top, st.Revision); err != nil {
			return h, err
		}
		if col.stopped {
			break
		}
		top = lo - 1
	}
	col.result(&h, lowest, st.LastID, before)
	return h, nil
}

// searchSegments searches the segments' IDs in lowest..top, newest
// segment first, until col is full; the operations indexed while pending
// are matched by p instead. Under x.mu (read).
func (x *Index) searchSegments(ctx context.Context, c *compiled, p pred, col *collector, lowest, top uint64) error {
	col.dirty = x.dirty.snapshot()
	pend, err := x.matchDirty(p, col.dirty, lowest, top)
	if err != nil {
		return err
	}
	col.pend = pend
	for i := len(x.segs) - 1; i >= 0; i-- {
		s := x.segs[i]
		if s.lo > top {
			continue
		}
		if s.hi < lowest {
			break
		}
		lo, hi := max(s.lo, lowest), min(s.hi, top)
		if c.confirms {
			if done, err := x.searchWindows(ctx, s, c, col, lo, hi); done || err != nil {
				return err
			}
			continue
		}
		got, err := x.safeSegmentIDs(ctx, s, c, lo, hi)
		if err != nil {
			return err
		}
		col.add(got, lo)
		if col.full() {
			return nil
		}
	}
	col.down = lowest
	return nil
}

// firstWindow is the IDs of the first window searchWindows searches.
const firstWindow = 4096

// searchWindows searches segment s's IDs lo..hi for a query that confirms
// its phrases on the records, in windows of IDs from the newest down,
// each twice the one before, until col is full (done): bleve finds the
// candidates in no order, and confirming each of a segment's candidates
// read all of them to find the newest 50 (a phrase of two common words,
// 35 ms). Only the candidates of the window are read.
func (x *Index) searchWindows(ctx context.Context, s *segment, c *compiled, col *collector, lo, hi uint64) (done bool, err error) {
	rr, _ := ctx.Value(recordsKey{}).(*recordReader)
	if rr != nil {
		defer rr.window(0, 0)
	}
	for size, top := uint64(firstWindow), hi; ; size *= 2 {
		wlo := lo
		if top-lo+1 > size {
			wlo = top - size + 1
		}
		if rr != nil {
			rr.window(wlo, top)
		}
		got, err := x.safeSegmentIDs(ctx, s, c, wlo, top)
		if err != nil {
			return false, err
		}
		col.add(got, wlo)
		if col.full() {
			return true, nil
		}
		if wlo == lo {
			return false, nil
		}
		top = wlo - 1
	}
}

// collector gathers a search's IDs, newest first, down from upper.
type collector struct {
	dirty map[uint64]bool // operations indexed while pending: matched by pend, not by the segments
	pend  []uint64        // those of dirty that match as they now stand, below the records walked
	upper uint64
	limit int
	ids   []uint64
	found int64
	down  uint64 // every ID in [down, upper] has been searched

	deadline time.Time // the end of Options.WalkBudget; zero: none
	stopped  bool      // the walk stopped at deadline, not full and not at the bottom
}

// add takes the IDs found from down up, in no order.
func (col *collector) add(got []uint64, down uint64) {
	got = slices.DeleteFunc(got, func(id uint64) bool { return col.dirty[id] })
	col.found += int64(len(got))
	slices.Sort(got)
	slices.Reverse(got)
	col.ids = append(col.ids, got...)
	col.down = down
}

// full reports whether a page of limit and one more is found.
func (col *collector) full() bool {
	return len(col.ids)+countIn(col.pend, col.down, col.upper) > col.limit
}

// result fills h with the page: the pending operations searched over
// merged in, and the total, estimated from the share of IDs searched
// when the search stopped early.
func (col *collector) result(h *oplog.IndexHits, lowest, lastID, before uint64) {
	ids, found := col.ids, col.found
	complete := col.down <= lowest
	for _, id := range col.pend {
		if id >= col.down && id <= col.upper {
			ids = append(ids, id)
			found++
		}
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	ids = slices.Compact(ids)
	h.More = len(ids) > col.limit
	h.IDs = ids[:min(len(ids), col.limit)]
	if col.stopped && !h.More {
		h.More, h.Resume = true, col.down // past the walk's budget: go on below what was searched
	}
	h.Total = found
	h.TotalExact = complete && before == 0
	if !complete && col.upper >= col.down {
		span := float64(lastID - lowest + 1)
		h.Total = int64(float64(found) * span / float64(col.upper-col.down+1))
	}
}

// segmentIDs returns the IDs in lo..hi of the documents of s that match c,
// skipping s when its time span is outside c's range.
func (x *Index) segmentIDs(ctx context.Context, s *segment, c *compiled, lo, hi uint64) ([]uint64, error) {
	var lerr error
	look := func() timeLookup {
		l, err := s.lookup(x.st, x.readBytes)
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

// walk is searchTail, in a turn of Options.Walks when it may read more
// than one chunk.
func (x *Index) walk(ctx context.Context, p pred, cp cpred, col *collector, lo, hi uint64, rev uint64) error {
	if hi-lo < x.opts.TailChunk {
		return x.searchTail(ctx, p, cp, col, lo, hi, rev)
	}
	select {
	case x.walks <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-x.walks }()
	return x.searchTail(ctx, p, cp, col, lo, hi, rev)
}
