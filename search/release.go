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
// Large records count by their bytes too: releaseBytes of them count as
// releaseBacklog records (300 records of 1 MiB left 300 MB of the log
// resident).
const (
	releaseBacklog = 1 << 16
	releaseBytes   = 16 << 20
	releaseEvery   = 30 * time.Second
	unmapIdle      = 1 << 12
)

// mappedReleaser is a store that can drop the pages of its file it has
// mapped (store.DB).
type mappedReleaser interface{ ReleaseMapped() error }

// backlog counts records read, large ones by their bytes too.
type backlog struct {
	n     int
	bytes int64
}

func (b *backlog) add(n int, bytes int64) { b.n, b.bytes = b.n+n, b.bytes+bytes }

// over reports whether it holds n records or more, or releaseBytes.
func (b *backlog) over(n int) bool { return b.n >= n || b.bytes >= releaseBytes }

// unmapper counts the records the indexers (bleve's and the term sets')
// read since the store's mapped pages last went back, and the bytes of
// those searches read (readBytes).
type unmapper struct {
	mu    sync.Mutex
	read  backlog
	unmap func() error // the store's ReleaseMapped; nil if it has none
}

// readN is told that an indexer read n records of bytes (recordBytes;
// caughtUp: it has read everything there was) and lets the store release
// its mapped pages when enough were read. Its error is the store's.
func (u *unmapper) readN(n int, bytes int64, caughtUp bool) error {
	if u.unmap == nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.read.add(n, bytes)
	enough := releaseBacklog
	if caughtUp {
		enough = unmapIdle
	}
	if !u.read.over(enough) {
		return nil
	}
	u.read = backlog{}
	return u.unmap()
}

// releaser counts what the indexer indexed since it last gave memory back.
type releaser struct {
	backlog backlog
	last    time.Time
	free    func() // debug.FreeOSMemory; tests count the calls
}

// indexed is told each step's record count n and bytes (more: records are
// waiting still) and gives memory back when a catch-up large enough has
// just ended.
func (r *releaser) indexed(n int, bytes int64, more bool, now time.Time) {
	r.backlog.add(n, bytes)
	if more || !r.backlog.over(releaseBacklog) || now.Sub(r.last) < releaseEvery {
		return
	}
	r.backlog, r.last = backlog{}, now
	if r.free == nil {
		r.free = debug.FreeOSMemory
	}
	r.free()
}

// readN tells the unmapper that an indexer read n records of bytes.
func (x *Index) readN(n int, bytes int64, caughtUp bool) {
	if err := x.unmapped.readN(n, bytes, caughtUp); err != nil {
		x.opts.Logger.Warn("search: releasing the store's mapped pages failed", "err", err)
	}
}

// readBytes tells the unmapper that a search read records of bytes: a
// search that reads large records (cut.go, a chunk evaluated as it is
// read, a segment's times) lets their pages go too.
func (x *Index) readBytes(bytes int64) { x.readN(0, bytes, false) }
