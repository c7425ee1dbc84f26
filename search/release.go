package search

import (
	"runtime/debug"
	"sync"
	"time"
)

// After a catch-up of releaseBacklog records or more, once the indexer is
// idle again, the memory the catch-up used goes back to the operating
// system at once (at most every releaseEvery). Indexing a burst leaves its
// garbage on the heap until the runtime's next forced collection, and the
// pages with the process for minutes after that: after 1,000,000 records,
// ~130 MiB of the ~210 MiB anonymous RSS was that, and 58 MiB remained
// after a collection.
//
// A store read through a memory mapping (bbolt) keeps every page the
// indexers read in the process's resident set: 237 MiB of a 258 MiB log
// after 1,000,000 records. Such a store lets go of them (mappedReleaser)
// after every releaseBacklog records the indexers read, and when one
// catches up after unmapIdle or more; the pages stay in the page cache.
const (
	releaseBacklog = 1 << 16
	releaseEvery   = 30 * time.Second
	unmapIdle      = 1 << 12
)

// mappedReleaser is a store that can drop the pages of its file it has
// mapped (store.DB).
type mappedReleaser interface{ ReleaseMapped() error }

// unmapper counts the records the indexers (bleve's and the term sets')
// read since the store's mapped pages last went back.
type unmapper struct {
	mu    sync.Mutex
	read  int
	unmap func() error // the store's ReleaseMapped; nil if it has none
}

// readN is told that an indexer read n records (caughtUp: it has read
// everything there was) and lets the store release its mapped pages when
// enough were read. Its error is the store's.
func (u *unmapper) readN(n int, caughtUp bool) error {
	if u.unmap == nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.read += n
	if u.read < releaseBacklog && (!caughtUp || u.read < unmapIdle) {
		return nil
	}
	u.read = 0
	return u.unmap()
}

// releaser counts what the indexer indexed since it last gave memory back.
type releaser struct {
	backlog int
	last    time.Time
	free    func() // debug.FreeOSMemory; tests count the calls
}

// indexed is told each step's record count n (batch: the step's size, so a
// full step means more is waiting) and gives memory back when a catch-up
// large enough has just ended.
func (r *releaser) indexed(n, batch int, now time.Time) {
	r.backlog += n
	if n >= batch || r.backlog < releaseBacklog || now.Sub(r.last) < releaseEvery {
		return
	}
	r.backlog, r.last = 0, now
	if r.free == nil {
		r.free = debug.FreeOSMemory
	}
	r.free()
}

// readN tells the unmapper that an indexer read n records.
func (x *Index) readN(n int, caughtUp bool) {
	if err := x.unmapped.readN(n, caughtUp); err != nil {
		x.opts.Logger.Warn("search: releasing the store's mapped pages failed", "err", err)
	}
}
