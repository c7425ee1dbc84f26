package search

import (
	"context"
	"slices"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Search returns the IDs of the records matching q below before (0: no
// bound), newest first: it walks the chunks down from the newest,
// skipping those whose term set rules q out and evaluating q on the
// records of the others (see tail.go), until limit+1 are found.
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
	st := x.st.Stats()
	lowest := max(st.FirstID, st.GenStart, 1)
	upper := st.LastID
	if before > 0 {
		upper = min(upper, before-1)
	}
	x.mu.RLock()
	closed, wm := x.closed, x.watermark
	x.mu.RUnlock()
	if closed {
		return oplog.IndexHits{}, oplog.ErrClosed
	}
	h := oplog.IndexHits{Terms: c.terms, IndexedThrough: x.terms.covered(st.Revision, wm)}
	col := &collector{upper: upper, limit: limit, stop: limit, down: upper + 1}
	if upper-lowest < exactTotalIDs {
		col.stop = int(exactTotalIDs) // a small log is walked whole: its total is exact
	}
	if x.opts.WalkBudget > 0 {
		col.deadline = time.Now().Add(x.opts.WalkBudget)
	}
	if upper >= lowest {
		q := preds{rec: p, chunk: ev.chunkPred(c), post: ev.postPred(c), sc: &scratch{}}
		if err := x.walk(ctx, q, col, lowest, upper, st.Revision); err != nil {
			return h, err
		}
	}
	col.result(&h, lowest, st.LastID, before)
	return h, nil
}

// collector gathers a search's IDs, newest first, down from upper.
type collector struct {
	upper uint64
	limit int // the page
	stop  int // the walk ends past this many: limit, or more for an exact total
	ids   []uint64
	found int64
	down  uint64 // every ID in [down, upper] has been searched

	deadline time.Time // the end of Options.WalkBudget; zero: none
	stopped  bool      // the walk stopped at deadline, not full and not at the bottom
}

// add takes the IDs found from down up, in no order.
func (col *collector) add(got []uint64, down uint64) {
	col.found += int64(len(got))
	slices.Sort(got)
	slices.Reverse(got)
	col.ids = append(col.ids, got...)
	col.down = down
}

// full reports whether the walk found what it stops at: a page of limit
// and one more, or every match of a small log.
func (col *collector) full() bool {
	return len(col.ids) > col.stop
}

// result fills h with the page and the total, estimated from the share
// of IDs searched when the search stopped early.
func (col *collector) result(h *oplog.IndexHits, lowest, lastID, before uint64) {
	ids, found := col.ids, col.found
	complete := col.down <= lowest
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

// walk is searchTail, in a turn of Options.Walks when it may read more
// than one chunk.
func (x *Index) walk(ctx context.Context, q preds, col *collector, lo, hi uint64, rev uint64) error {
	if hi-lo < x.opts.TailChunk {
		return x.searchTail(ctx, q, col, lo, hi, rev)
	}
	select {
	case x.walks <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-x.walks }()
	return x.searchTail(ctx, q, col, lo, hi, rev)
}

// preds is a query compiled for records, for chunks' term sets and for
// their postings (nil: none used).
type preds struct {
	rec   pred
	chunk cpred
	post  ppred
	sc    *scratch // post's bitmaps
}
