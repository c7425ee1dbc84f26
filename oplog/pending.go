package oplog

import (
	"sync"
)

// Pending operations, tracked as they change rather than read again: the
// journal of completions lets the search and crash indexes ask only about
// the operations that completed since they last looked (an idle server with
// many never-completed operations then reads none of them), and
// ExpirePending (expire.go) settles the ones that stay pending too long.

// Completed is what Log.CompletedSince answers.
type Completed struct {
	// IDs are the operations completed through the Log after the position
	// asked about, oldest completion first (an ID may repeat).
	IDs []uint64
	// Next is the position to ask from next time: the journal's head.
	Next uint64
	// Lost says the journal no longer holds every completion after the
	// position asked about (it keeps the newest JournalSize), or that the
	// position is not one it gave: the caller must read again every
	// operation it holds as pending.
	Lost bool
}

// JournalSize is how many of the newest completions Log.CompletedSince
// remembers (8 bytes each). A reader that asks at least once per that many
// completions never sees Lost.
const JournalSize = 1 << 16

// journal is a ring of the newest completed operation IDs. Positions count
// completions from 1, so that 0 can mean "only tell me the head".
type journal struct {
	mu   sync.Mutex
	n    uint64   // completions recorded so far
	ring []uint64 // ring[i%JournalSize] is completion i (0-based); allocated at the first
}

func (j *journal) add(id uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ring == nil {
		j.ring = make([]uint64, JournalSize)
	}
	j.ring[j.n%JournalSize] = id
	j.n++
}

func (j *journal) since(pos uint64) Completed {
	j.mu.Lock()
	defer j.mu.Unlock()
	head := j.n + 1
	switch {
	case pos == 0:
		return Completed{Next: head}
	case pos > head || head-pos > JournalSize:
		return Completed{Next: head, Lost: true}
	}
	c := Completed{Next: head}
	if pos < head {
		c.IDs = make([]uint64, 0, head-pos)
		for i := pos - 1; i < j.n; i++ {
			c.IDs = append(c.IDs, j.ring[i%JournalSize])
		}
	}
	return c
}

// CompletedSince returns the operations completed through l after position
// pos, and the position to ask from next. Position 0 returns only the
// current position (Next), no IDs: a reader takes it before it first reads
// the store, then asks from it after each read of the operations it holds
// as pending; an operation that completed after that read is in the answer
// (its commit precedes its entry, its entry precedes Complete's return).
// Lost says the reader must read every pending operation it holds again.
func (l *Log) CompletedSince(pos uint64) Completed { return l.journal.since(pos) }
