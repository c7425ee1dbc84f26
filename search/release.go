package search

import (
	"runtime/debug"
	"time"
)

// After a catch-up of releaseBacklog records or more, once the indexer is
// idle again, the memory the catch-up used goes back to the operating
// system at once (at most every releaseEvery). Indexing a burst leaves its
// garbage on the heap until the runtime's next forced collection, and the
// pages with the process for minutes after that: after 1,000,000 records,
// ~130 MiB of the ~210 MiB anonymous RSS was that, and 58 MiB remained
// after a collection.
const (
	releaseBacklog = 1 << 16
	releaseEvery   = 30 * time.Second
)

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
