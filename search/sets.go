package search

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// storedSet is a complete chunk's term set once in the sets file: kept
// compressed (encodeSet), decoded when a search tests it (setCache).
type storedSet struct {
	packed        []byte
	from, through uint64
	pos           uint64 // the completions journal's position when its records were read; 0 (read at Open): unknown
}

// load opens the sets file, keeps the sets it holds that still follow one
// another from the log's retained records, and starts the sets after them
// from the records.
func (x *Index) load() error {
	st := x.st.Stats()
	n := x.opts.TailChunk
	old := removeBleveIndex(x.dir)
	f, frames, why, err := openSetFile(x.dir, st.Revision, n)
	if err = x.tolerateFull(err); err != nil {
		return err
	}
	x.file, x.revision = f, st.Revision // f nil: no room for the file; the sets stay in memory (step tries again)
	x.terms.reset(st.Revision, 0)
	var wm, prev uint64
	kept, first := 0, firstRetained(st)
	for i, fr := range frames {
		k, c, err := decodeSet(fr)
		bad := ""
		switch {
		case err != nil:
			bad = fmt.Sprintf("set %d: %v", i, err)
		case i == 0 && k*n >= first: // records before the first set
			bad = fmt.Sprintf("the first set is of chunk %d, the log's records start in chunk %d", k, (first-1)/n)
		case i > 0 && k != prev+1 && k*n >= first: // (chunks retention emptied before they were written are no gap)
			bad = fmt.Sprintf("set %d is of chunk %d, after chunk %d", i, k, prev)
		case c.through > st.LastID:
			bad = "the index is ahead of the log"
		}
		if bad != "" {
			why = bad
			break
		}
		kept = i + 1
		if c.through < (k+1)*n && i == len(frames)-1 { // the growing chunk's, written last
			f.size, f.tail, f.tailThrough = f.size-int64(8+len(fr)), int64(8+len(fr)), c.through
			c.thaw()
			c.first = k*n + 1
			x.terms.chunks[k], x.terms.bytes = c, c.size
			break
		}
		x.terms.stored[k] = &storedSet{packed: fr, from: c.from, through: c.through}
		x.terms.storedBytes += int64(len(fr))
		wm, prev = c.through, k
	}
	if kept < len(frames) {
		if err := x.tolerateFull(f.rewrite(st.Revision, n, frames[:kept])); err != nil {
			return err
		}
	}
	x.watermark, x.terms.through, x.persisted = wm, wm, wm
	for _, c := range x.terms.chunks {
		x.terms.through, x.persisted = c.through, c.through
	}
	switch {
	case why != "":
		x.opts.Logger.Warn("search index: rebuilding the term sets from a record", "id", wm+1, "reason", why)
	case old:
		x.opts.Logger.Info("search index: the older index was removed; its term sets are built from the log", "records", st.Records)
	}
	if st.LastID > x.terms.through+n { // more than a chunk to build
		x.state, x.rebuildTo = oplog.IndexRebuilding, st.LastID
	}
	return x.trimSets(st)
}

// removeBleveIndex removes what an older mcplogd kept in dir (bleve's
// segments and their meta.json), reporting whether there was any.
func removeBleveIndex(dir string) bool {
	ents, _ := os.ReadDir(dir)
	old := false
	for _, e := range ents {
		if isBleveFile(e) {
			old = true
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
	return old
}

// run keeps the term sets up with the log: each step adds the records
// after them, then writes the chunks they completed to the sets file.
func (x *Index) run() {
	x.loop(x.step)
}

// warming builds the postings the stored chunks lack (postAgain) and
// decodes the newest chunks (warm) when a step asks, on its own goroutine,
// so that the sets never wait for it.
func (x *Index) warming() {
	for {
		select {
		case <-x.stop:
			return
		case <-x.warms:
		}
		if err := x.postAgain(); err != nil {
			x.opts.Logger.Error("search: reading the records for the chunks' postings failed", "err", err)
		}
		if err := x.warm(); err != nil {
			x.opts.Logger.Error("search: reading the newest records failed", "err", err)
		}
	}
}

// loop is the index's background loop: it runs step again at once while
// step says there is more, and otherwise when the ticker fires or the log
// changes, until the index stops. The log's Changed channel is taken
// before each step, so that an append during it wakes the next.
func (x *Index) loop(step func() (more bool)) {
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
		}
	}
}

// step is one step of run; more: there is more to do at once.
func (x *Index) step() (more bool) {
	x.work.Lock()
	defer x.work.Unlock()
	defer x.steps.Add(1)
	st := x.st.Stats()
	x.mu.RLock()
	rev, closed := x.revision, x.closed
	x.mu.RUnlock()
	if closed {
		return false
	}
	if rev != st.Revision {
		if err := x.restartLocked("the log was cleared or replaced", st); err != nil {
			x.opts.Logger.Error("search index: starting over failed", "err", err)
			return false
		}
	}
	if err := x.tolerateFull(x.reopenFile(st)); err != nil {
		x.opts.Logger.Error("search index: opening the sets file failed", "err", err)
	}
	n, bytes, err := x.buildTerms()
	if err != nil {
		x.opts.Logger.Error("search: reading the records for the term sets failed", "err", err)
		return false
	}
	if err := x.tolerateFull(x.persistSets(st)); err != nil {
		x.opts.Logger.Error("search index: writing the term sets failed", "err", err)
	}
	caughtUp := x.terms.covered(st.Revision, 0) >= x.st.Stats().LastID
	if err := x.tolerateFull(x.writeGrowing(st, caughtUp)); err != nil {
		x.opts.Logger.Error("search index: writing the growing term set failed", "err", err)
	}
	if err := x.tolerateFull(x.trimSets(st)); err != nil {
		x.opts.Logger.Error("search index: dropping the sets retention passed failed", "err", err)
	}
	x.readN(n, bytes, n < termsStep)
	x.setState(x.st.Stats())
	more = n >= termsStep || bytes >= releaseBytes
	if !more {
		select {
		case x.warms <- struct{}{}:
		default: // asked already
		}
	}
	return more
}

// reopenFile opens the sets file that Open found no room to create.
// Under x.work.
func (x *Index) reopenFile(st oplog.Stats) error {
	x.mu.RLock()
	missing := x.file == nil && !x.closed
	x.mu.RUnlock()
	if !missing {
		return nil
	}
	f, _, _, err := openSetFile(x.dir, st.Revision, x.opts.TailChunk) // (a new file: Open found none it could keep)
	if err != nil {
		return err
	}
	x.roomAgain()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return f.Close()
	}
	x.file = f
	return nil
}

// setState says what the index is doing: rebuilding until the sets reach
// what the log held when that began, indexing while records are in none.
func (x *Index) setState(st oplog.Stats) {
	x.mu.Lock()
	defer x.mu.Unlock()
	covered := x.terms.covered(x.revision, x.watermark)
	switch {
	case x.state == oplog.IndexRebuilding && covered < x.rebuildTo:
	case covered < st.LastID:
		x.state = oplog.IndexIndexing
	default:
		x.state, x.rebuildTo = oplog.IndexIdle, 0
	}
}

// persistSets writes the complete chunks above the watermark to the sets
// file, in order and with one sync, and moves them from the growing sets
// to the stored ones.
func (x *Index) persistSets(st oplog.Stats) error {
	x.mu.RLock()
	wm, rev, file := x.watermark, x.revision, x.file
	x.mu.RUnlock()
	if file == nil {
		return nil
	}
	n := x.opts.TailChunk
	t := &x.terms
	var ks []uint64
	var cs []*chunkTerms
	var sets [][]byte
	for k := max(wm, max(st.FirstID, st.GenStart, 1)-1) / n; ; k++ { // from the chunk of the next record
		t.mu.Lock()
		c := t.chunks[k]
		ok := t.rev == rev && c != nil
		t.mu.Unlock()
		if !ok {
			break
		}
		c.mu.RLock()
		complete := c.complete
		c.mu.RUnlock()
		if !complete {
			break
		}
		ks, cs, sets = append(ks, k), append(cs, c), append(sets, encodeSet(k, c))
	}
	if len(sets) == 0 {
		return nil
	}
	if err := file.append(sets...); err != nil {
		return err
	}
	x.roomAgain()
	t.mu.Lock()
	if t.rev == rev {
		for i, k := range ks {
			c := cs[i]
			t.stored[k] = &storedSet{packed: sets[i], from: c.from, through: c.through, pos: c.pos}
			t.storedBytes += int64(len(sets[i]))
			delete(t.chunks, k)
			t.bytes -= c.size
			c.mu.Lock()
			post := c.post
			c.post = nil
			c.mu.Unlock()
			t.keepPost(k, post)
		}
	}
	t.mu.Unlock()
	for i, k := range ks {
		t.cache.put(k, cs[i])
	}
	x.mu.Lock()
	x.watermark = max(x.watermark, cs[len(cs)-1].through)
	x.mu.Unlock()
	return nil
}

// writeGrowing writes the growing chunk's set to the sets file, after the
// complete ones, when it changed since it was last and tailEvery passed,
// or force (the sets caught up with the log): a restart then builds
// nothing the sets file held a second before. Under x.work.
func (x *Index) writeGrowing(st oplog.Stats, force bool) error {
	x.mu.RLock()
	wm, rev, file := x.watermark, x.revision, x.file
	x.mu.RUnlock()
	n := x.opts.TailChunk
	k := max(wm, max(st.FirstID, st.GenStart, 1)-1) / n
	t := &x.terms
	t.mu.Lock()
	c := t.chunks[k]
	ok := t.rev == rev && c != nil && file != nil
	t.mu.Unlock()
	if !ok {
		return nil
	}
	c.mu.RLock()
	if c.complete || !file.tailStale(c.through, force) {
		c.mu.RUnlock()
		return nil
	}
	snap := c.snapshot()
	c.mu.RUnlock()
	if err := file.writeTail(encodeSet(k, snap), snap.through); err != nil {
		return err
	}
	x.roomAgain()
	x.mu.Lock()
	x.persisted = max(x.persisted, snap.through)
	x.mu.Unlock()
	return nil
}

// trimSets drops the sets of the chunks retention emptied, and rewrites
// the sets file once most of it is theirs.
func (x *Index) trimSets(st oplog.Stats) error {
	first := firstRetained(st)
	t := &x.terms
	t.mu.Lock()
	for k, s := range t.stored {
		if s.through < first {
			t.dropPost(k)
			delete(t.stored, k)
			t.storedBytes -= int64(len(s.packed))
			t.deadBytes += int64(len(s.packed)) + 8
		}
	}
	rewrite := t.deadBytes > t.storedBytes && t.deadBytes > minRewriteBytes
	var keep [][]byte
	if rewrite {
		for _, k := range slices.Sorted(maps.Keys(t.stored)) {
			keep = append(keep, t.stored[k].packed)
		}
	}
	rev := t.rev
	t.mu.Unlock()
	if !rewrite {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.file == nil {
		return nil
	}
	if err := x.file.rewrite(rev, x.opts.TailChunk, keep); err != nil {
		return err
	}
	x.persisted = x.watermark // the growing chunk's set is written again by the next step
	t.mu.Lock()
	t.deadBytes = 0
	t.mu.Unlock()
	return nil
}

// firstRetained is the lowest ID the log can still hold: its first
// record's, the generation's start, or, when retention emptied it, the
// next ID.
func firstRetained(st oplog.Stats) uint64 {
	first := st.FirstID
	if first == 0 {
		first = st.LastID + 1 // empty: nothing is retained
	}
	return max(first, st.GenStart, 1)
}

// restartLocked drops every set and builds them again from the log's
// start. Under x.work.
func (x *Index) restartLocked(why string, st oplog.Stats) error {
	x.opts.Logger.Info("search index starts over", "reason", why)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return oplog.ErrClosed
	}
	x.watermark, x.persisted, x.revision = 0, 0, st.Revision
	x.state, x.rebuildTo = oplog.IndexIdle, 0
	if st.Records > 0 {
		x.state, x.rebuildTo = oplog.IndexRebuilding, st.LastID
	}
	x.terms.reset(st.Revision, 0)
	if x.file == nil {
		return nil
	}
	return x.file.rewrite(st.Revision, x.opts.TailChunk, nil)
}
