package search

import (
	"context"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// restart drops every segment and indexes the log again from its start.
func (x *Index) restart(why string, st oplog.Stats) error {
	x.work.Lock()
	defer x.work.Unlock()
	return x.restartLocked(why, st)
}

func (x *Index) restartLocked(why string, st oplog.Stats) error {
	x.opts.Logger.Info("search index starts over", "reason", why)
	x.mu.Lock()
	segs := x.segs
	x.segs, x.watermark, x.persisted, x.queue, x.revision = nil, 0, 0, nil, st.Revision
	x.state, x.rebuildTo = oplog.IndexIdle, 0
	if st.Records > 0 {
		x.state, x.rebuildTo = oplog.IndexRebuilding, st.LastID
	}
	x.mu.Unlock()
	for _, s := range segs {
		_ = s.idx.Close()
	}
	x.dirty.reset()
	if err := removeSegments(x.dir, nil); err != nil {
		return err
	}
	return x.writeMeta()
}

// Reindex drops the index and builds it again from the store, in the
// background indexer; it returns once the indexer has caught up with the
// records present when it was called, or ctx ends. progress (nil: none)
// is called now and then with the fraction done.
func (x *Index) Reindex(ctx context.Context, progress func(done, total uint64)) error {
	st := x.st.Stats()
	if err := x.restart("reindex asked", st); err != nil {
		return err
	}
	return x.WaitIndexed(ctx, st.LastID, progress)
}

// WaitIndexed returns once the watermark reaches id, or ctx ends (its
// error). progress (nil: none) is called as the watermark moves.
func (x *Index) WaitIndexed(ctx context.Context, id uint64, progress func(done, total uint64)) error {
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		x.mu.RLock()
		wm, closed := x.watermark, x.closed
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
