package search

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/blevesearch/bleve/v2"

	"github.com/mcplogd/mcplogd/oplog"
)

// tailCache holds in-memory bleve indexes (same mapping as the segments) of
// the records above the watermark, one per TailChunk of IDs. A search
// builds the chunks it needs, newest first, and extends the newest one as
// records arrive; chunks at or below the watermark are dropped. So a
// record is searchable the moment its append returns, with the same
// analysis and query semantics as in the segments.
type tailCache struct {
	x      *Index
	mu     sync.Mutex
	chunks map[uint64]*memChunk // by chunk number
}

type memChunk struct {
	idx     bleve.Index
	through uint64   // every record of the chunk up to here is indexed
	span    span     // the times of its documents
	times   *timeCol // and each one
}

func (t *tailCache) bounds(k uint64) (lo, hi uint64) {
	n := t.x.opts.TailChunk
	return k*n + 1, (k + 1) * n
}

func (t *tailCache) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, c := range t.chunks {
		_ = c.idx.Close()
		delete(t.chunks, k)
	}
}

// search calls fn with the IDs in lo..hi that match c, one chunk at a
// time, newest first, until fn returns false.
func (t *tailCache) search(ctx context.Context, c *compiled, lo, hi uint64, fn func(chunkLo uint64, ids []uint64) bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, c := range t.chunks {
		if _, chi := t.bounds(k); chi < lo {
			_ = c.idx.Close()
			delete(t.chunks, k)
		}
	}
	n := t.x.opts.TailChunk
	for k := (hi - 1) / n; ; k-- {
		clo, chi := t.bounds(k)
		ch, err := t.chunk(k, min(chi, hi))
		if err != nil {
			return err
		}
		var ids []uint64
		look := func() timeLookup { return ch.times.get }
		if keep, ok := c.plan(ch.span, look); ok {
			var l timeLookup
			if c.times {
				l = look()
			}
			ids, err = searchIDs(ctx, ch.idx, t.x.m, c.q, max(lo, clo), min(hi, chi), keep, l, nil)
			if err != nil {
				return err
			}
		}
		if !fn(max(lo, clo), ids) || clo <= lo || k == 0 {
			return nil
		}
	}
}

// chunk returns chunk k indexed through upto at least.
func (t *tailCache) chunk(k, upto uint64) (*memChunk, error) {
	clo, chi := t.bounds(k)
	c := t.chunks[k]
	if c == nil {
		idx, err := bleve.NewMemOnly(t.x.m)
		if err != nil {
			return nil, fmt.Errorf("index: in-memory chunk: %w", err)
		}
		c = &memChunk{idx: idx, through: clo - 1, span: newSpan(), times: newTimeCol(clo, chi-clo+1)}
		t.chunks[k] = c
	}
	for c.through < upto {
		tl, err := t.x.st.Tail(oplog.TailQuery{SinceID: c.through, HasSince: true, Limit: int(min(chi-c.through, maxReadBatch))})
		if err != nil {
			return nil, err
		}
		b := c.idx.NewBatch()
		var pending []uint64
		sp := newSpan()
		for i := range tl.Lines {
			r := &tl.Lines[i]
			if r.ID > chi {
				break
			}
			if err := b.IndexAdvanced(t.x.an.document(r)); err != nil {
				return nil, err
			}
			sp.add(r.Time)
			c.times.set(r)
			if r.Kind == oplog.KindOp && !r.IsComplete() {
				pending = append(pending, r.ID)
			}
		}
		t.x.dirty.add(pending...)
		if err := c.idx.Batch(b); err != nil {
			return nil, err
		}
		c.span.merge(sp)
		next := min(tl.LastID, chi)
		if tl.Reset || next <= c.through {
			break // the store moved on (cleared): nothing more here
		}
		c.through = next
	}
	return c, nil
}

// dirtySet holds the operations that were indexed while pending: their
// status and level may have changed since, so their hits in the indexes
// are ignored and they are matched as they now stand in the store instead.
// There are few: an operation leaves the set when it is indexed complete.
type dirtySet struct {
	mu  sync.Mutex
	ids map[uint64]bool

	cacheMu  sync.Mutex
	cacheKey string // the ids and statuses the cached index holds
	cache    bleve.Index
}

func newDirtySet() *dirtySet { return &dirtySet{ids: map[uint64]bool{}} }

func (d *dirtySet) add(ids ...uint64) {
	if len(ids) == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range ids {
		d.ids[id] = true
	}
}

func (d *dirtySet) remove(ids ...uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range ids {
		delete(d.ids, id)
	}
}

func (d *dirtySet) snapshot() map[uint64]bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return maps.Clone(d.ids)
}

// match returns the IDs of ids in lo..hi whose current record matches q,
// using a small in-memory index rebuilt only when the set or a status changed.
func (d *dirtySet) match(ctx context.Context, x *Index, c *compiled, ids map[uint64]bool, lo, hi uint64) ([]uint64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var recs []oplog.Record
	times := map[uint64]int64{}
	key := make([]byte, 0, 16*len(ids))
	sorted := make([]uint64, 0, len(ids))
	for id := range ids {
		if id >= lo && id <= hi {
			sorted = append(sorted, id)
		}
	}
	slices.Sort(sorted)
	for _, id := range sorted {
		r, err := x.st.Get(id)
		if oplog.ErrorCode(err) == oplog.ENOTFOUND {
			continue
		} else if err != nil {
			return nil, err
		}
		recs = append(recs, r)
		times[r.ID] = r.Time.UnixNano()
		key = fmt.Appendf(key, "%d:%d,", r.ID, r.Status)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	d.cacheMu.Lock()
	defer d.cacheMu.Unlock()
	if d.cache == nil || d.cacheKey != string(key) {
		if d.cache != nil {
			_ = d.cache.Close()
		}
		idx, err := bleve.NewMemOnly(x.m)
		if err != nil {
			return nil, err
		}
		b := idx.NewBatch()
		for i := range recs {
			if err := b.IndexAdvanced(x.an.document(&recs[i])); err != nil {
				return nil, err
			}
		}
		if err := idx.Batch(b); err != nil {
			return nil, err
		}
		d.cache, d.cacheKey = idx, string(key)
	}
	look := func(id uint64) (int64, bool) {
		t, ok := times[id]
		return t, ok
	}
	var keep func(uint64) bool
	if !c.rng.none() {
		keep = func(id uint64) bool {
			t, ok := times[id]
			return ok && c.rng.in(t)
		}
	}
	return searchIDs(ctx, d.cache, x.m, c.q, lo, hi, keep, look, nil)
}
