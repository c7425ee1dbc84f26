package search

import (
	"slices"
	"sync/atomic"

	"github.com/mcplogd/mcplogd/oplog"
)

// dirtySet reads the log's journal of completed operations
// (Options.Completed). A chunk's term set and its decoded records are of
// the operations as they stood when read; those pending then, which the
// journal names as completed since, are read again by the searches that
// test the chunk and matched as they now stand. An idle server with many
// operations that never complete reads none of them again. Without a
// journal every operation read pending is read again by every search.
type dirtySet struct {
	journal func(pos uint64) oplog.Completed // nil: no journal
	reads   atomic.Uint64                    // records of operations read again
}

func newDirtySet(journal func(uint64) oplog.Completed) *dirtySet {
	return &dirtySet{journal: journal}
}

// mark returns the journal's position, taken before reading records;
// 0 without a journal.
func (d *dirtySet) mark() uint64 {
	if d.journal == nil {
		return 0
	}
	return d.journal(0).Next
}

// completedSince returns, of ids (the operations of a chunk read pending
// at the journal's position pos), those that may have completed since:
// the ones the journal names, all of them without a journal.
func (d *dirtySet) completedSince(ids []uint64, pos uint64) []uint64 {
	if d.journal == nil || pos == 0 || len(ids) == 0 {
		return ids
	}
	c := d.journal(pos)
	if c.Lost {
		return ids
	}
	in := make(map[uint64]bool, len(ids))
	for _, id := range ids {
		in[id] = true
	}
	var out []uint64
	for _, id := range c.IDs {
		if in[id] {
			out = append(out, id)
			in[id] = false // once
		}
	}
	slices.Sort(out)
	return out
}

// PendingReads returns how many records of operations indexed or read
// while pending the indexer and searches have read again. With
// Options.Completed, an operation that stays pending is read once after
// it is indexed (or the index opened) and again only once it completes.
func (x *Index) PendingReads() uint64 { return x.dirty.reads.Load() }
