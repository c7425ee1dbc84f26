package search

import (
	"context"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// restart drops every set and indexes the log again from its start.
func (x *Index) restart(why string, st oplog.Stats) error {
	x.work.Lock()
	defer x.work.Unlock()
	return x.restartLocked(why, st)
}

// Reindex drops the index and builds it again from the store, in the
// background; it returns once the sets have caught up with the
// records present when it was called, or ctx ends. progress (nil: none)
// is called now and then with the fraction done.
func (x *Index) Reindex(ctx context.Context, progress func(done, total uint64)) error {
	st := x.st.Stats()
	if err := x.restart("reindex asked", st); err != nil {
		return err
	}
	return x.WaitIndexed(ctx, st.LastID, progress)
}

// WaitIndexed returns once every record up to id is in a term set, or
// ctx ends (its error). progress (nil: none) is called as the sets grow.
func (x *Index) WaitIndexed(ctx context.Context, id uint64, progress func(done, total uint64)) error {
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		x.mu.RLock()
		wm, closed := x.terms.covered(x.revision, x.watermark), x.closed
		x.mu.RUnlock()
		if progress != nil {
			progress(min(wm, id), id)
		}
		if wm >= id {
			return nil
		}
		if closed {
			return oplog.ErrClosed
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
