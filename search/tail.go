package search

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/mcplogd/mcplogd/oplog"
)

// searchTail evaluates p on the records lo..hi, read from the store
// TailChunk IDs at a time, newest first, until col is full. It holds no
// lock of the index: the indexer moves on meanwhile.
func (x *Index) searchTail(ctx context.Context, p pred, col *collector, lo, hi uint64) error {
	n := x.opts.TailChunk
	v := &recView{an: x.an.text}
	for top := hi; top >= lo; {
		if err := ctx.Err(); err != nil {
			return err
		}
		clo := lo
		if top-lo >= n {
			clo = top - n + 1
		}
		recs, err := x.readRange(clo, top)
		if err != nil {
			return err
		}
		var got []uint64
		down := clo
		for i := len(recs) - 1; i >= 0; i-- {
			*v = recView{r: &recs[i], an: v.an}
			if p(v) {
				got = append(got, recs[i].ID)
				if len(col.ids)+len(got) > col.limit {
					down = recs[i].ID
					break
				}
			}
		}
		col.add(got, down)
		if col.full() || clo == lo {
			return nil
		}
		top = clo - 1
	}
	return nil
}

// readRange returns the stored records lo..hi, oldest first.
func (x *Index) readRange(lo, hi uint64) ([]oplog.Record, error) {
	var recs []oplog.Record
	for since := lo - 1; since < hi; {
		tl, err := x.st.Tail(oplog.TailQuery{SinceID: since, HasSince: true, Limit: int(min(hi-since, maxReadBatch))})
		if err != nil {
			return nil, err
		}
		for i := range tl.Lines {
			if tl.Lines[i].ID <= hi {
				recs = append(recs, tl.Lines[i])
			}
		}
		if tl.Reset || tl.LastID <= since || len(tl.Lines) == 0 {
			break // the store moved on (cleared): nothing more here
		}
		since = tl.LastID
	}
	return recs, nil
}

// dirtySet holds the operations that were indexed while pending: their
// status and level may have changed since, so their hits in the indexes
// are ignored and they are matched as they now stand in the store instead.
// There are few: an operation leaves the set when it is indexed complete.
type dirtySet struct {
	mu  sync.Mutex
	ids map[uint64]bool
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

// matchDirty returns the IDs of ids in lo..hi whose current record matches p.
func (x *Index) matchDirty(p pred, ids map[uint64]bool, lo, hi uint64) ([]uint64, error) {
	var sorted []uint64
	for id := range ids {
		if id >= lo && id <= hi {
			sorted = append(sorted, id)
		}
	}
	if len(sorted) == 0 {
		return nil, nil
	}
	slices.Sort(sorted)
	recs, err := x.getMany(sorted)
	if err != nil {
		return nil, err
	}
	var out []uint64
	v := &recView{an: x.an.text}
	for i := range recs {
		*v = recView{r: &recs[i], an: v.an}
		if p(v) {
			out = append(out, recs[i].ID)
		}
	}
	return out, nil
}

// getMany reads the stored records of ids, leaving out those not stored.
func (x *Index) getMany(ids []uint64) ([]oplog.Record, error) {
	if g, ok := x.st.(oplog.ManyGetter); ok {
		return g.GetMany(ids)
	}
	var recs []oplog.Record
	for _, id := range ids {
		r, err := x.st.Get(id)
		if oplog.ErrorCode(err) == oplog.ENOTFOUND {
			continue
		} else if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}
