package search

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/mcplogd/mcplogd/oplog"
)

// run is the background indexer: it indexes what lies after the watermark
// in batches of BatchSize, whenever the log changes (after gathering for a
// moment, so that a trickle of appends makes few bleve batches) or the
// ticker fires. It reads the store only, so it never slows an append.
func (x *Index) run() {
	defer close(x.done)
	tick := time.NewTicker(x.opts.Interval)
	defer tick.Stop()
	gather := max(x.opts.Interval/10, time.Millisecond)
	lastLog := time.Now()
	for {
		var changed <-chan struct{}
		if x.opts.Changed != nil {
			changed = x.opts.Changed()
		}
		n, err := x.indexOnce()
		if err != nil {
			x.opts.Logger.Error("search indexing failed", "err", err)
		}
		if s := x.Status(); s.State == "rebuilding" && time.Since(lastLog) > 2*time.Second {
			lastLog = time.Now()
			x.opts.Logger.Info("rebuilding search index", "indexedThrough", s.IndexedThrough, "lag", s.Lag, "progress", fmt.Sprintf("%.0f%%", 100*s.Progress))
		}
		if err == nil && n >= x.opts.BatchSize {
			select {
			case <-x.stop:
				return
			default:
				continue
			}
		}
		select {
		case <-x.stop:
			return
		case <-tick.C:
		case <-changed:
			select {
			case <-x.stop:
				return
			case <-time.After(gather):
			}
		}
	}
}

// indexOnce indexes one batch after the watermark, reindexes completed
// operations that were indexed while pending, drops segments that
// retention emptied, and records the new watermark. It returns how many
// records it read.
func (x *Index) indexOnce() (n int, err error) {
	x.work.Lock()
	defer x.work.Unlock()
	st := x.st.Stats()
	x.mu.RLock()
	wm, rev := x.watermark, x.revision
	x.mu.RUnlock()
	if rev != st.Revision {
		return 0, x.restartLocked("the log was cleared", st)
	}
	t, err := x.st.Tail(oplog.TailQuery{SinceID: wm, HasSince: true, Revision: rev, Limit: x.opts.BatchSize})
	if err != nil {
		return 0, err
	}
	if t.Reset {
		return 0, x.restartLocked("the log was cleared", x.st.Stats())
	}
	// Group by segment: one bleve batch per segment touched.
	var pending, done []uint64
	step := &persist{through: t.LastID, left: 1} // the step itself, until it has queued every batch
	x.mu.Lock()
	x.queue = append(x.queue, step)
	x.mu.Unlock()
	released := false
	defer func() {
		if !released { // an error: the step never completes, holding the persisted watermark back
			x.mu.Lock()
			step.left--
			step.failed = true
			x.mu.Unlock()
		}
	}()
	type job struct {
		s *segment
		b *bleve.Batch
	}
	var jobs []job
	for i := 0; i < len(t.Lines); {
		lo := x.segLo(t.Lines[i].ID)
		j := i
		for j < len(t.Lines) && x.segLo(t.Lines[j].ID) == lo && j-i < x.opts.BatchSize/x.opts.Parallel {
			j++
		}
		s, err := x.segmentFor(lo)
		if err != nil {
			return 0, err
		}
		b := s.idx.NewBatch()
		sp := newSpan()
		for k := i; k < j; k++ {
			r := &t.Lines[k]
			if err := b.IndexAdvanced(x.an.document(r)); err != nil {
				return 0, err
			}
			sp.add(r.Time)
			if r.Kind == oplog.KindOp && !r.IsComplete() {
				pending = append(pending, r.ID)
			} else if r.Kind == oplog.KindOp {
				done = append(done, r.ID)
			}
		}
		s.times.mu.Lock()
		for k := i; k < j; k++ {
			s.times.set(&t.Lines[k])
		}
		s.times.mu.Unlock()
		x.mu.Lock()
		step.left++
		// Before the batch is searchable and long before the watermark
		// passes it: a search never sees a document outside the span.
		s.span.merge(sp)
		x.mu.Unlock()
		b.SetPersistedCallback(func(err error) { x.persistedBatch(step, err) })
		jobs = append(jobs, job{s, b})
		i = j
	}
	// Several batches at once: while one is analysed (in parallel), another
	// builds its segment (on one core).
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, x.opts.Parallel)
	for n, jb := range jobs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := jb.s.idx.Batch(jb.b); err != nil {
				x.persistedBatch(step, err)
				errs[n] = fmt.Errorf("index %s: %w", segName(jb.s.lo), err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	x.dirty.add(pending...)
	x.dirty.remove(done...)
	if err := x.refreshPending(wm); err != nil {
		return 0, err
	}
	x.mu.Lock()
	if t.LastID > x.watermark {
		x.watermark = t.LastID
	}
	step.left--
	released = true
	x.advancePersisted()
	metaStale := x.persisted != x.metaWritten
	if x.state == "rebuilding" && x.watermark >= x.rebuildTo || x.state == "indexing" && !t.More {
		x.state = "idle"
		if x.rebuildTo > 0 {
			x.opts.Logger.Info("search index rebuilt", "indexedThrough", x.watermark)
			x.rebuildTo = 0
		}
	} else if t.More && x.state == "idle" {
		x.state = "indexing"
	}
	dropped := x.dropTrimmed(st)
	for _, s := range x.segs {
		if n, err := s.idx.DocCount(); err == nil {
			s.docs = n
		}
	}
	x.mu.Unlock()
	for _, s := range dropped {
		_ = s.idx.Close()
		if err := removeSegments(x.dir, x.keepNames()); err != nil {
			return 0, err
		}
	}
	if len(dropped) == 0 && !metaStale {
		return len(t.Lines), nil
	}
	return len(t.Lines), x.writeMeta()
}

// persistedBatch is a batch's persisted callback (or its failure).
func (x *Index) persistedBatch(step *persist, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	step.left--
	if err != nil {
		step.failed = true
		x.opts.Logger.Error("search index batch not persisted", "err", err)
	}
	x.advancePersisted()
}

// advancePersisted moves the persisted watermark over the steps whose every
// batch is on disk, in order; a failed step holds it back for good (the
// records are indexed again at the next start). Under x.mu.
func (x *Index) advancePersisted() {
	for len(x.queue) > 0 && x.queue[0].left == 0 && !x.queue[0].failed {
		x.persisted = max(x.persisted, x.queue[0].through)
		x.queue = x.queue[1:]
	}
}

// refreshPending reindexes the operations at or below wm that were indexed
// while pending and have completed (or gone) since.
func (x *Index) refreshPending(wm uint64) error {
	var done []uint64
	for id := range x.dirty.snapshot() {
		if id > wm {
			continue
		}
		r, err := x.st.Get(id)
		switch {
		case oplog.ErrorCode(err) == oplog.ENOTFOUND:
			done = append(done, id)
			continue
		case err != nil:
			return err
		case !r.IsComplete():
			continue
		}
		s, err := x.segmentFor(x.segLo(id))
		if err != nil {
			return err
		}
		b := s.idx.NewBatch()
		if err := b.IndexAdvanced(x.an.document(&r)); err != nil {
			return err
		}
		sp := newSpan()
		sp.add(r.Time)
		s.times.mu.Lock()
		s.times.set(&r)
		s.times.mu.Unlock()
		x.mu.Lock()
		s.span.merge(sp)
		x.mu.Unlock()
		if err := s.idx.Batch(b); err != nil {
			return err
		}
		done = append(done, id)
	}
	x.dirty.remove(done...)
	return nil
}

func (x *Index) segLo(id uint64) uint64 { return (id-1)/x.opts.SegmentSize*x.opts.SegmentSize + 1 }

// segmentFor returns the segment starting at lo, creating it.
func (x *Index) segmentFor(lo uint64) (*segment, error) {
	x.mu.RLock()
	for _, s := range x.segs {
		if s.lo == lo {
			x.mu.RUnlock()
			return s, nil
		}
	}
	x.mu.RUnlock()
	path := filepath.Join(x.dir, segName(lo))
	_ = removeSegments(x.dir, x.keepNames()) // leftovers of a segment meta.json did not list
	idx, err := bleve.NewUsing(path, x.m, scorch.Name, scorch.Name, scorchConfig())
	if err != nil {
		return nil, fmt.Errorf("index: create %s: %w", segName(lo), err)
	}
	s := &segment{lo: lo, hi: lo + x.opts.SegmentSize - 1, span: newSpan(), times: newTimeCol(lo, x.opts.SegmentSize), idx: idx}
	s.times.full = true // new: the indexer sets every time
	x.mu.Lock()
	x.segs = append(x.segs, s)
	slices.SortFunc(x.segs, func(a, b *segment) int { return compare(a.lo, b.lo) })
	x.mu.Unlock()
	return s, nil
}

func compare(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (x *Index) keepNames() map[string]bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	keep := map[string]bool{}
	for _, s := range x.segs {
		keep[segName(s.lo)] = true
	}
	return keep
}

// dropTrimmed removes from segs (under x.mu) the segments whose every ID is
// below the store's first retained record, and returns them.
func (x *Index) dropTrimmed(st oplog.Stats) []*segment {
	first := st.FirstID
	if first == 0 {
		first = st.LastID + 1 // empty: nothing is retained
	}
	var dropped []*segment
	x.segs = slices.DeleteFunc(x.segs, func(s *segment) bool {
		if s.hi < first && s.hi <= x.watermark {
			dropped = append(dropped, s)
			return true
		}
		return false
	})
	return dropped
}

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
	x.state, x.rebuildTo = "idle", 0
	if st.Records > 0 {
		x.state, x.rebuildTo = "rebuilding", st.LastID
	}
	x.mu.Unlock()
	for _, s := range segs {
		_ = s.idx.Close()
	}
	x.tail.reset()
	x.dirty.mu.Lock()
	clear(x.dirty.ids)
	x.dirty.mu.Unlock()
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
	tick := time.NewTicker(50 * time.Millisecond)
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
