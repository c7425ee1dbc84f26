package oplog

import (
	"context"
	"time"
)

// List returns records newest first.
func (l *Log) List(ctx context.Context, q Query) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	var err error
	if q.Count, err = CheckLimit("count", q.Count, DefaultListCount, MaxListCount); err != nil {
		return Page{}, err
	}
	if q.Offset < 0 {
		return Page{}, Errorf(EINVALID, "offset: must not be negative, got %d", q.Offset)
	}
	if err := l.gameFilter(&q.Filter); err != nil {
		return Page{}, err
	}
	if idx := l.getIndex(); idx != nil && q.Since.IsZero() && q.Until.IsZero() && q.Offset+q.Count <= maxIndexedList {
		if st := l.store.Stats(); !l.dense(&q.Filter, &st) {
			return l.listIndexed(ctx, idx, q, &st)
		}
	}
	return l.store.List(q)
}

// listIndexed answers a List whose filters keep few records through the
// index: the store's backward walk would read about a record in denseShare
// or fewer per hit, the index only the hits. Total comes from the counters.
func (l *Log) listIndexed(ctx context.Context, idx Index, q Query, st *Stats) (Page, error) {
	total, err := l.count(&q.Filter, st)
	if err != nil {
		return Page{}, err
	}
	h, err := idx.Search(ctx, &SearchQuery{Filter: q.Filter}, q.Before, q.Offset+q.Count)
	if err != nil {
		if ctx.Err() != nil {
			return Page{}, ctx.Err()
		}
		return l.store.List(q) // the store alone is exact too, only slower here
	}
	recs, err := l.loadHits(h.IDs[min(q.Offset, len(h.IDs)):])
	if err != nil {
		return Page{}, err
	}
	var last uint64
	if h.More && len(h.IDs) > 0 {
		last = h.IDs[len(h.IDs)-1]
	}
	return Page{Records: recs, Total: int64(total), More: h.More, Damaged: l.damageIn(q.Before, last)}, nil
}

// ManyGetter is what a Store that reads several records at once adds
// (package store: one read transaction for a page of hits).
type ManyGetter interface {
	// GetMany returns the records of ids in their order, leaving out the
	// IDs not stored.
	GetMany(ids []uint64) ([]Record, error)
}

// loadHits loads the records of the IDs an index returned, in order,
// skipping those that retention trimmed since the index answered.
func (l *Log) loadHits(ids []uint64) ([]Record, error) {
	if g, ok := l.store.(ManyGetter); ok {
		return g.GetMany(ids)
	}
	recs := make([]Record, 0, len(ids))
	for _, id := range ids {
		r, err := l.store.Get(id)
		if ErrorCode(err) == ENOTFOUND || IsDamaged(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// CheckLimit checks a count or limit of a query: negative is EINVALID,
// naming field; zero means def; more than most is most.
func CheckLimit(field string, n, def, most int) (int, error) {
	if n < 0 {
		return 0, Errorf(EINVALID, "%s: must not be negative, got %d", field, n)
	}
	if n == 0 {
		n = def
	}
	return min(n, most), nil
}

// Tail returns records oldest first after q.SinceID (see TailQuery). With
// q.Wait > 0 and nothing to return, it waits until a record arrives, the
// wait ends (an empty answer, not an error), or ctx is done (ctx's error).
func (l *Log) Tail(ctx context.Context, q TailQuery) (Tail, error) {
	var err error
	if q.Limit, err = CheckLimit("limit", q.Limit, DefaultTailLimit, MaxTailLimit); err != nil {
		return Tail{}, err
	}
	if q.Wait < 0 {
		return Tail{}, Errorf(EINVALID, "wait: must not be negative, got %s", q.Wait)
	}
	if err := l.gameFilter(&q.Filter); err != nil {
		return Tail{}, err
	}
	var deadline <-chan time.Time
	if q.Wait > 0 {
		timer := time.NewTimer(min(q.Wait, MaxWait))
		defer timer.Stop()
		deadline = timer.C
	}
	var dropped uint64
	for {
		changed := l.Changed()
		if err := ctx.Err(); err != nil {
			return Tail{}, err
		}
		t, err := l.store.Tail(q)
		if err != nil {
			return Tail{}, err
		}
		t.Dropped += dropped
		if len(t.Lines) > 0 || t.Reset || t.More || t.Dropped > 0 || len(t.Damaged) > 0 || deadline == nil || l.isClosed() {
			return t, nil
		}
		// Nothing yet: wait past what was scanned, keeping the generation.
		dropped = t.Dropped
		q.SinceID, q.HasSince, q.Revision = t.LastID, true, t.Revision
		select {
		case <-changed:
		case <-deadline:
			return t, nil
		case <-ctx.Done():
			return Tail{}, ctx.Err()
		}
	}
}

// Wait returns nil once a record with an ID above afterID exists, or ctx's
// error when ctx ends first, or ErrClosed.
func (l *Log) Wait(ctx context.Context, afterID uint64) error {
	for {
		changed := l.Changed()
		if l.isClosed() {
			return ErrClosed
		}
		if l.store.Stats().LastID > afterID {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
