package search

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcplogd/mcplogd/oplog"
)

// dirtySet holds the operations that were indexed while pending. Those in
// ids may have completed since: their hits in the indexes are ignored and
// they are matched as they now stand in the store instead, until indexed
// again. Those in held were read pending after they were indexed and have
// not completed since, by the log's journal of completions
// (Options.Completed): their indexed document is current, so neither a
// search nor the indexer reads them again until the journal names them. An
// idle server with many operations that never complete reads none of them.
// Without a journal every operation indexed pending stays in ids and is
// read again by every indexer step and every search.
type dirtySet struct {
	mu      sync.Mutex
	ids     map[uint64]bool
	held    map[uint64]bool
	pos     uint64                           // the journal's position when held was last brought up to date
	low     uint64                           // the oldest retained ID when last trimmed
	journal func(pos uint64) oplog.Completed // nil: no journal
	reads   atomic.Uint64                    // records of operations in ids read again
}

func newDirtySet(journal func(uint64) oplog.Completed) *dirtySet {
	return &dirtySet{ids: map[uint64]bool{}, held: map[uint64]bool{}, journal: journal}
}

func (d *dirtySet) add(ids ...uint64) {
	if len(ids) == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range ids {
		d.ids[id] = true
		delete(d.held, id)
	}
}

func (d *dirtySet) remove(ids ...uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range ids {
		delete(d.ids, id)
		delete(d.held, id)
	}
}

// trim forgets the operations below first, the oldest retained ID:
// retention removed them, and one that never completes would otherwise
// stay in held for good.
func (d *dirtySet) trim(first uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if first <= d.low {
		return
	}
	d.low = first
	for id := range d.held {
		if id < first {
			delete(d.held, id)
		}
	}
}

// reset forgets every operation: the index starts over.
func (d *dirtySet) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.ids)
	clear(d.held)
}

// snapshot returns the operations to match from the store, after moving
// those of held that completed into them.
func (d *dirtySet) snapshot() map[uint64]bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.syncLocked()
	return maps.Clone(d.ids)
}

// syncLocked moves the operations of held that the journal says completed
// into ids (all of them when it lost track). Under d.mu.
func (d *dirtySet) syncLocked() {
	if d.journal == nil {
		return
	}
	c := d.journal(d.pos)
	if d.pos == 0 || c.Lost {
		for id := range d.held {
			d.ids[id] = true
		}
		clear(d.held)
	} else {
		for _, id := range c.IDs {
			if d.held[id] {
				delete(d.held, id)
				d.ids[id] = true
			}
		}
	}
	d.pos = c.Next
}

// mark returns the journal's position, taken before reading operations
// that hold may then keep; 0 without a journal.
func (d *dirtySet) mark() uint64 {
	if d.journal == nil {
		return 0
	}
	return d.journal(0).Next
}

// hold moves the operations of ids read pending after the journal's
// position pos into held, unless the journal says they completed since.
func (d *dirtySet) hold(ids []uint64, pos uint64) {
	if d.journal == nil || pos == 0 || len(ids) == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.syncLocked()
	c := d.journal(pos)
	if c.Lost {
		return
	}
	done := make(map[uint64]bool, len(c.IDs))
	for _, id := range c.IDs {
		done[id] = true
	}
	for _, id := range ids {
		if d.ids[id] && !done[id] {
			delete(d.ids, id)
			d.held[id] = true
		}
	}
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
