package search

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// searchTail evaluates q on the records lo..hi, a chunk at a time (a chunk
// k holds IDs k*TailChunk+1..(k+1)*TailChunk), newest first, until col is
// full: on a chunk's postings where it has them, else on its records,
// skipping the chunks whose term set rules q out (but for their operations
// completed since). It holds no lock of the index: the indexer moves on
// meanwhile.
func (x *Index) searchTail(ctx context.Context, q preds, col *collector, lo, hi uint64, rev uint64) error {
	n := x.opts.TailChunk
	x.tail.drop(rev, (lo-1)/n)
	for top := hi; top >= lo; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := (top - 1) / n
		clo := max(lo, k*n+1)
		got, down, err := x.searchChunk(ctx, q, col, k, clo, top, rev)
		if err != nil {
			return err
		}
		col.add(got, down)
		if col.full() || clo == lo {
			return nil
		}
		if !col.deadline.IsZero() && time.Now().After(col.deadline) {
			col.stopped = true // Options.WalkBudget: answer what was found
			return nil
		}
		top = clo - 1
	}
	return nil
}

// searchChunk returns the IDs in clo..top of chunk k that match p, newest
// first, stopping past what col still takes, and the lowest ID it looked
// at. A chunk of large records (more than maxChunkBytes) is evaluated as
// it is read, whole.
func (x *Index) searchChunk(ctx context.Context, q preds, col *collector, k, clo, top, rev uint64) ([]uint64, uint64, error) {
	if q.post != nil && !x.noPost.Load() {
		if post := x.terms.postings(rev, k, clo, top); post != nil {
			x.posted.Add(1)
			return x.searchPosted(ctx, q, post, col, k, clo, top, rev)
		}
	}
	p := q.rec
	recs, fresh, err := x.chunkFor(k, clo, top, rev, q.chunk)
	if errors.Is(err, errBigChunk) {
		got, err := x.evalRange(ctx, p, clo, top)
		return got, clo, err
	}
	if err != nil {
		return nil, 0, err
	}
	var got []uint64
	down := clo
	v := &recView{an: x.an.text}
	for i := len(recs) - 1; i >= 0; i-- {
		r := &recs[i]
		if r.ID > top || r.ID < clo {
			continue
		}
		if f, ok := fresh[r.ID]; ok {
			r = f
		}
		*v = recView{r: r, an: v.an}
		if p(v) {
			got = append(got, r.ID)
			if len(col.ids)+len(got) > col.stop {
				down = r.ID
				break
			}
		}
	}
	return got, down, nil
}

// evalRange returns the IDs of the stored records lo..hi that match p,
// holding one read of them at a time.
func (x *Index) evalRange(ctx context.Context, p pred, lo, hi uint64) ([]uint64, error) {
	var got []uint64
	v := &recView{an: x.an.text}
	err := eachRecord(x.st, &x.hint, lo, hi, func(recs []oplog.Record) bool {
		var bytes int64
		for i := range recs {
			if *v = (recView{r: &recs[i], an: v.an}); p(v) {
				got = append(got, recs[i].ID)
			}
			bytes += recordBytes(&recs[i])
		}
		x.readBytes(bytes)
		return ctx.Err() == nil
	})
	if err == nil {
		err = ctx.Err()
	}
	return got, err
}

// chunkFor returns the records of chunk k to evaluate for clo..top, as
// chunk does; when the chunk's term set rules cp out, only its operations
// completed since the set was built (nil cp: every record).
func (x *Index) chunkFor(k, clo, top, rev uint64, cp cpred) ([]oplog.Record, map[uint64]*oplog.Record, error) {
	ct := x.terms.get(rev, k, clo, top)
	if cp == nil || ct == nil {
		return x.chunk(k, rev)
	}
	ct.mu.RLock()
	may, pending, pos := cp(ct), ct.pending, ct.pos
	ct.mu.RUnlock()
	if may {
		return x.chunk(k, rev)
	}
	x.skipped.Add(1)
	ids := x.dirty.completedSince(pending, pos)
	if len(ids) == 0 {
		return nil, nil, nil
	}
	x.dirty.reads.Add(uint64(len(ids)))
	recs, err := x.getMany(ids)
	slices.SortFunc(recs, func(a, b oplog.Record) int { return cmp.Compare(a.ID, b.ID) })
	return recs, nil, err
}

// tailCache keeps the records of the chunks above the watermark that
// searches read whole, decoded, up to maxTailCached records and
// maxTailCachedBytes: reading and decoding was most of a search's time
// during a lag. A record does not change once stored but for an operation
// that completes: the operations pending when a chunk was read are read
// again by each search. A chunk of more than maxChunkBytes is never kept
// (nor held whole by a search): big remembers it, so that it is not read
// again to learn it.
type tailCache struct {
	mu     sync.Mutex
	rev    uint64 // the store generation of the chunks
	chunks map[uint64]*tailChunk
	bytes  int64 // of the chunks' records (recordBytes)
	big    map[uint64]bool
	max    uint64 // records kept; 0: maxTailCached
}

// errBigChunk is chunk's answer for a chunk of more than maxChunkBytes.
var errBigChunk = errors.New("search: chunk too large to hold")

// limit is how many records the cache keeps: maxTailCached, or max when a
// test set it.
func (t *tailCache) limit() uint64 {
	if t.max != 0 {
		return t.max
	}
	return maxTailCached
}

type tailChunk struct {
	recs    []oplog.Record // oldest first
	bytes   int64          // theirs (recordBytes)
	pending []uint64       // the operations pending when read
	pos     uint64         // the journal's position before they were read
}

// drop forgets the chunks below k, and all of them if the store's
// generation is no longer rev.
func (t *tailCache) drop(rev, k uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rev != rev {
		t.rev, t.chunks, t.bytes, t.big = rev, map[uint64]*tailChunk{}, 0, map[uint64]bool{}
	}
	for c, ch := range t.chunks {
		if c < k {
			delete(t.chunks, c)
			t.bytes -= ch.bytes
		}
	}
	for c := range t.big {
		if c < k {
			delete(t.big, c)
		}
	}
}

// warm reads the newest whole chunks that no search has read yet into the
// cache, newest first, while it has room, so that the first search after
// a burst finds them decoded (reading and decoding 100,000 records is
// ~70 ms). The index calls it when a step leaves nothing more to do.
func (x *Index) warm() error {
	st := x.st.Stats()
	x.mu.RLock()
	rev := x.revision
	x.mu.RUnlock()
	n := x.opts.TailChunk
	if rev != st.Revision {
		return nil
	}
	low := (max(st.FirstID, st.GenStart, 1) - 1) / n // the chunk of the lowest record
	x.tail.drop(rev, low)
	if st.LastID < (low+1)*n {
		return nil
	}
	for k := st.LastID/n - 1; k >= low; k-- { // (k+1)*n <= LastID: whole chunks
		t := &x.tail
		t.mu.Lock()
		_, cached := t.chunks[k]
		big := t.big[k]
		admit := t.admits(k, n)
		t.mu.Unlock()
		if !cached && !big && !admit {
			return nil // the cache is full of newer chunks
		}
		if !cached && !big {
			if _, _, err := x.chunk(k, rev); err != nil && !errors.Is(err, errBigChunk) {
				return err
			}
		}
		if k == 0 {
			return nil
		}
	}
	return nil
}

// admits reports whether chunk k can be kept: when the cache is full, a
// chunk newer than its oldest one is (the oldest is dropped then), as
// searches read the newest records first and the indexer reaches the
// oldest soonest. Under t.mu.
func (t *tailCache) admits(k, n uint64) bool {
	return !t.full(n) || len(t.chunks) > 0 && t.oldest() < k
}

// keep caches chunk k, dropping the oldest chunks while the cache is full.
// Under t.mu.
func (t *tailCache) keep(k, n uint64, c *tailChunk) {
	for (t.full(n) || t.bytes+c.bytes > maxTailCachedBytes) && len(t.chunks) > 0 {
		o := t.oldest()
		t.bytes -= t.chunks[o].bytes
		delete(t.chunks, o)
	}
	t.chunks[k] = c
	t.bytes += c.bytes
}

// full reports whether one more chunk of n records is over the limit (or
// its records' bytes are at maxTailCachedBytes); oldest is the lowest
// chunk kept (there is one). Under t.mu.
func (t *tailCache) full(n uint64) bool {
	return uint64(len(t.chunks)+1)*n > t.limit() || t.bytes >= maxTailCachedBytes
}
func (t *tailCache) oldest() uint64 { return slices.Min(slices.Collect(maps.Keys(t.chunks))) }

// chunk returns the stored records of chunk k and, by ID, the current
// record of each operation that was pending when they were read.
func (x *Index) chunk(k, rev uint64) ([]oplog.Record, map[uint64]*oplog.Record, error) {
	t := &x.tail
	t.mu.Lock()
	c := t.chunks[k]
	t.mu.Unlock()
	if c == nil {
		n := x.opts.TailChunk
		t.mu.Lock()
		big := t.rev == rev && t.big[k]
		t.mu.Unlock()
		if big {
			return nil, nil, errBigChunk
		}
		pos := x.dirty.mark()
		recs, bytes, whole, err := x.readRange(k*n+1, (k+1)*n, maxChunkBytes)
		if err != nil {
			return nil, nil, err
		}
		if !whole {
			t.mu.Lock()
			if t.rev == rev {
				t.big[k] = true
			}
			t.mu.Unlock()
			return nil, nil, errBigChunk
		}
		c = &tailChunk{recs: recs, bytes: bytes, pos: pos}
		for i := range recs {
			if recs[i].Kind == oplog.KindOp && !recs[i].IsComplete() {
				c.pending = append(c.pending, recs[i].ID)
			}
		}
		// Only a whole chunk is kept: the last one grows as records arrive.
		if len(recs) > 0 && recs[len(recs)-1].ID == (k+1)*n {
			t.mu.Lock()
			if t.rev == rev && t.admits(k, n) {
				t.keep(k, n, c)
			}
			t.mu.Unlock()
		}
	}
	ids := x.dirty.completedSince(c.pending, c.pos)
	if len(ids) == 0 {
		return c.recs, nil, nil
	}
	x.dirty.reads.Add(uint64(len(ids)))
	now, err := x.getMany(ids)
	if err != nil {
		return nil, nil, err
	}
	fresh := make(map[uint64]*oplog.Record, len(now))
	for i := range now {
		fresh[now[i].ID] = &now[i]
	}
	return c.recs, fresh, nil
}

// readRange returns the stored records lo..hi, oldest first, and their
// bytes (recordBytes), unless they are more than maxBytes (whole false).
func (x *Index) readRange(lo, hi uint64, maxBytes int64) (recs []oplog.Record, bytes int64, whole bool, err error) {
	whole = true
	err = eachRecord(x.st, &x.hint, lo, hi, func(batch []oplog.Record) bool {
		if len(batch) == 0 {
			return true
		}
		for i := range batch {
			bytes += recordBytes(&batch[i])
		}
		if bytes > maxBytes {
			recs, whole = nil, false
			return false
		}
		if recs == nil { // room for the records there are, copied once
			recs = make([]oplog.Record, 0, min(hi, max(x.st.Stats().LastID, batch[len(batch)-1].ID))-lo+1)
		}
		recs = append(recs, batch...)
		return true
	})
	return recs, bytes, whole, err
}

// getMany reads the stored records of ids, leaving out those not stored.
func (x *Index) getMany(ids []uint64) ([]oplog.Record, error) {
	if g, ok := x.st.(oplog.ManyGetter); ok {
		return g.GetMany(ids)
	}
	var recs []oplog.Record
	for _, id := range ids {
		r, err := x.st.Get(id)
		if oplog.ErrorCode(err) == oplog.ENOTFOUND || oplog.IsDamaged(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}
