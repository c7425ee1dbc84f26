package search

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/mcplogd/mcplogd/oplog"
)

// run is the background indexer: it indexes what lies after the watermark
// in batches of BatchSize, whenever the log changes (after gathering for a
// moment, so that a trickle of appends makes few bleve batches) or the
// ticker fires. It reads the store only, so it never slows an append.
func (x *Index) run() {
	defer close(x.done)
	lastLog := time.Now()
	var y yielding
	var rel releaser // release.go
	x.loop(max(x.opts.Interval/10, time.Millisecond), func() bool {
		if x.yields(&y) {
			if err := x.warm(); err != nil { // the newest records decoded for the first searches
				x.opts.Logger.Error("search: reading the records above the watermark failed", "err", err)
			}
			select {
			case <-x.stop:
			case <-time.After(yieldFor):
			}
			return true
		}
		var done stepDone
		var err error
		if !x.stillFull() { // diskfull.go
			done, err = x.indexOnce()
			err = x.tolerateFull(err)
		}
		if err != nil {
			x.opts.Logger.Error("search indexing failed", "err", err)
		} else {
			rel.indexed(done.n, done.bytes, done.more, time.Now())
			x.readN(done.n, done.bytes, !done.more)
		}
		if err == nil && !done.more {
			x.compactNext() // compact.go
		}
		if err == nil {
			if err := x.warm(); err != nil {
				x.opts.Logger.Error("search: reading the records above the watermark failed", "err", err)
			}
		}
		if s := x.Status(); s.State == oplog.IndexRebuilding && time.Since(lastLog) > rebuildLogEvery {
			lastLog = time.Now()
			x.opts.Logger.Info("rebuilding search index", "indexedThrough", s.IndexedThrough, "lag", s.Lag, "progress", fmt.Sprintf("%.0f%%", 100*s.Progress))
		}
		x.steps.Add(1)
		return err == nil && done.more
	})
}

// loop is a background loop of the index (the indexer, the term sets):
// it runs step again at once while step says there is more, and otherwise
// when the ticker fires or the log changes (then after gathering appends
// for gather, if not 0), until the index stops. The log's Changed channel
// is taken before each step, so that an append during it wakes the next.
func (x *Index) loop(gather time.Duration, step func() (more bool)) {
	tick := time.NewTicker(x.opts.Interval)
	defer tick.Stop()
	for {
		var changed <-chan struct{}
		if x.opts.Changed != nil {
			changed = x.opts.Changed()
		}
		if step() {
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
			if gather > 0 {
				select {
				case <-x.stop:
					return
				case <-time.After(gather):
				}
			}
		}
	}
}

// yielding is what the indexer saw at its last look at the log.
type yielding struct {
	last  uint64    // the log's LastID
	at    time.Time // when
	since time.Time // when it began to wait; zero: it is not waiting
	sets  uint64    // how far the term sets covered the log
}

// yields reports whether the indexer's next step waits, leaving the cores
// to the term sets and a burst being written, for at most yieldMax in a
// row: while the term sets are behind the log, moving, and can reach its end
// (a set costs a record ~10 µs of a core, a segment ~60 µs: the sets end
// the lag that searches walk), or while records arrive at yieldRate or
// more, the sets keep up with them and the segments are less than half
// the sets' bound behind. The segments then catch up once the burst and
// the sets end. (Building segments took a third of the cores from a
// burst of HTTP ingest: 80,000-115,000 lines/s against 100,000-165,000
// with the indexer yielding; yielding while the sets catch up too, 200,000
// lines came at 72,000-126,000 lines/s against 53,000-82,000 and the sets
// caught up 0.8-1.0 s after the burst against 1.4-1.6 s.)
func (x *Index) yields(y *yielding) bool {
	st, now := x.st.Stats(), time.Now()
	x.mu.RLock()
	wm, rev, state := x.watermark, x.revision, x.state
	x.mu.RUnlock()
	hot := !y.at.IsZero() && st.LastID > y.last &&
		float64(st.LastID-y.last) >= yieldRate*now.Sub(y.at).Seconds()
	y.last, y.at = st.LastID, now
	sets := x.terms.covered(rev, wm)
	keepUp := hot && st.LastID-wm < maxTermSetRecords/2 && sets+yieldUncovered >= st.LastID
	catching := sets > y.sets && x.terms.catching(rev, wm, st.LastID) // and they moved since the last look
	y.sets = sets
	if state == oplog.IndexRebuilding || rev != st.Revision || !keepUp && !catching {
		y.since = time.Time{}
		return false
	}
	if y.since.IsZero() {
		y.since = now
	}
	if now.Sub(y.since) >= yieldMax {
		y.since = time.Time{} // one step, then it may wait again
		return false
	}
	return true
}

// stepDone is what an indexing step read: n records of bytes
// (recordBytes), and whether more are waiting.
type stepDone struct {
	n     int
	bytes int64
	more  bool
}

// indexOnce indexes one step after the watermark, reindexes completed
// operations that were indexed while pending, drops segments that
// retention emptied, and records the new watermark. It returns what it
// read.
func (x *Index) indexOnce() (done stepDone, err error) {
	x.work.Lock()
	defer x.work.Unlock()
	st := x.st.Stats()
	x.mu.RLock()
	wm, rev := x.watermark, x.revision
	x.mu.RUnlock()
	if rev != st.Revision {
		return done, x.restartLocked("the log was cleared", st)
	}
	pos := x.dirty.mark() // before any read of an operation that refreshPending may hold
	x.dirty.trim(st.FirstID)
	t, weights, err := x.readStep(wm, rev) // budget.go
	if err != nil {
		return done, err
	}
	if t.Reset {
		return done, x.restartLocked("the log was cleared", x.st.Stats())
	}
	done = stepDone{n: len(t.Lines), bytes: x.budget.bytes, more: t.More}
	step := x.beginStep(t.LastID)
	released := false
	defer func() {
		if !released { // an error: the step never completes, holding the persisted watermark back
			x.mu.Lock()
			step.left--
			step.failed = true
			x.mu.Unlock()
		}
	}()
	jobs, ops, err := x.batches(t.Lines, weights, step)
	if err != nil {
		return done, err
	}
	if err := x.runBatches(jobs, step); err != nil {
		return done, err
	}
	x.dirty.add(ops.pending...)
	x.dirty.remove(ops.done...)
	if err := x.refreshPending(wm, pos); err != nil {
		return done, err
	}
	dropped, metaStale := x.endStep(step, &t, st)
	released = true
	for _, s := range dropped {
		_ = s.idx.Close()
		if err := removeSegments(x.dir, x.keepNames()); err != nil {
			return done, err
		}
	}
	if len(dropped) == 0 && !metaStale {
		return done, nil
	}
	return done, x.writeMetaSync(false)
}

// beginStep queues a step that reaches through: it holds the persisted
// watermark back until it has queued every batch and each is on disk.
func (x *Index) beginStep(through uint64) *persist {
	step := &persist{through: through, left: 1} // the step itself, until it has queued every batch
	x.mu.Lock()
	x.queue = append(x.queue, step)
	x.mu.Unlock()
	return step
}

// job is one bleve batch of an indexing step, for one segment.
type job struct {
	s *segment
	b *bleve.Batch
}

// opIDs are the operations a step indexed, pending or ended.
type opIDs struct{ pending, done []uint64 }

// batches groups recs by segment and by share of the step, one bleve batch
// for each (Parallel shares of about equal weights, the records' words),
// and records their times and spans.
func (x *Index) batches(recs []oplog.Record, weights []int, step *persist) ([]job, opIDs, error) {
	var jobs []job
	var ops opIDs
	total := 0
	for _, w := range weights {
		total += w
	}
	share := (total + x.opts.Parallel - 1) / x.opts.Parallel
	batched, next := 0, share // the weight of the records batched, and where the share being filled ends
	for i := 0; i < len(recs); {
		lo := x.segLo(recs[i].ID)
		j := i
		for j < len(recs) && x.segLo(recs[j].ID) == lo && (j == i || batched < next) {
			batched += weights[j]
			j++
		}
		for batched >= next {
			next += share
		}
		s, err := x.segmentFor(lo)
		if err != nil {
			return nil, ops, err
		}
		b, err := x.batch(s, recs[i:j], step, &ops)
		if err != nil {
			return nil, ops, err
		}
		b.SetPersistedCallback(func(err error) { x.persistedBatch(step, err) })
		jobs = append(jobs, job{s, b})
		i = j
	}
	return jobs, ops, nil
}

// batch builds the bleve batch of recs, all in segment s, counts it in
// step, sets the records' times in s's column and widens s's span, noting
// the operations in ops.
func (x *Index) batch(s *segment, recs []oplog.Record, step *persist, ops *opIDs) (*bleve.Batch, error) {
	b := s.idx.NewBatch()
	sp := newSpan()
	for k := range recs {
		r := &recs[k]
		if err := b.IndexAdvanced(x.an.document(r)); err != nil {
			return nil, err
		}
		sp.add(r.Time)
		if r.Kind == oplog.KindOp && !r.IsComplete() {
			ops.pending = append(ops.pending, r.ID)
		} else if r.Kind == oplog.KindOp {
			ops.done = append(ops.done, r.ID)
		}
	}
	s.times.mu.Lock()
	for k := range recs {
		s.times.set(&recs[k])
	}
	s.times.mu.Unlock()
	x.mu.Lock()
	step.left++
	// Before the batch is searchable and long before the watermark
	// passes it: a search never sees a document outside the span.
	s.span.merge(sp)
	x.mu.Unlock()
	return b, nil
}

// runBatches runs several batches at once: while one is analysed (in
// parallel), another builds its segment (on one core).
func (x *Index) runBatches(jobs []job, step *persist) error {
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
	return errors.Join(errs...)
}

// endStep moves the watermark past t, releases step, updates the state,
// and takes out the segments retention emptied (returned, to be closed).
// metaStale says whether meta.json lags the persisted watermark.
func (x *Index) endStep(step *persist, t *oplog.Tail, st oplog.Stats) (dropped []*segment, metaStale bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if t.LastID > x.watermark {
		x.watermark = t.LastID
	}
	step.left--
	x.advancePersisted()
	metaStale = x.persisted != x.metaWritten
	if x.state == oplog.IndexRebuilding && x.watermark >= x.rebuildTo || x.state == oplog.IndexIndexing && !t.More {
		x.state = oplog.IndexIdle
		if x.rebuildTo > 0 {
			x.opts.Logger.Info("search index rebuilt", "indexedThrough", x.watermark)
			x.rebuildTo = 0
		}
	} else if t.More && x.state == oplog.IndexIdle {
		x.state = oplog.IndexIndexing
	}
	dropped = x.dropTrimmed(st)
	for _, s := range x.segs {
		if n, err := s.idx.DocCount(); err == nil {
			s.docs = n
		}
	}
	return dropped, metaStale
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
// while pending and have completed (or gone) since; those still pending
// are held (see dirtySet), by the journal's position pos taken before.
func (x *Index) refreshPending(wm, pos uint64) error {
	var done, still []uint64
	defer func() { x.dirty.hold(still, pos) }()
	for id := range x.dirty.snapshot() {
		if id > wm {
			continue
		}
		x.dirty.reads.Add(1)
		r, err := x.st.Get(id)
		switch {
		case oplog.ErrorCode(err) == oplog.ENOTFOUND || oplog.IsDamaged(err): // trimmed, or in a damaged block: gone
			done = append(done, id)
			continue
		case err != nil:
			return err
		case !r.IsComplete():
			still = append(still, id)
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
