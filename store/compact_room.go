package store

import (
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// A compaction that fails is not tried again until the file grows
// (compactFailed): each copy on a full disk would fail. But a file on a
// full disk cannot grow, and once room is made nothing else wakes the
// sealer, which compacts: appends may have stopped with the disk, and a
// seal the full disk stopped leaves loose records, which no compaction
// copies (worthCompacting). So when a copy fails for lack of room, or a
// seal left loose records on a disk without room for a copy, a watcher
// looks every roomPoll at the room of the data file's file system, and
// once a copy of what is live would fit, it wakes the sealer and lets the
// compaction be tried again (the sealer, on its goroutine, clears
// compactFailed: takeRoom). It ends there, or at Close.

// roomPoll is how often the watcher looks at the file system's room; a
// variable for the tests.
var roomPoll = 5 * time.Second

// roomWatch is the watcher's state (DB.room).
type roomWatch struct {
	waiting  atomic.Bool  // a copy or a seal met a full disk: room is awaited
	found    atomic.Bool  // room was found; the sealer has not taken it yet
	watching atomic.Bool  // the watcher runs
	need     atomic.Int64 // the room awaited, in bytes
}

// awaitRoom starts the watcher when err, a compaction's failure, says the
// disk is full, or, err nil, when a seal left loose records on a disk
// without room for a copy of what is live. The sealer's goroutine calls it.
func (d *DB) awaitRoom(err error) {
	if err != nil && !oplog.IsNoSpace(err) || err == nil && d.loose.Load() < int64(codec.BlockTarget) {
		return
	}
	need := min(d.Size()-d.FreeBytes(), compactMaxLive) + 1<<20
	if room, known := freeSpace(filepath.Dir(d.path)); err == nil && (!known || room >= need) {
		return // the seal was held, not stopped by the disk
	}
	d.room.need.Store(need)
	d.room.waiting.Store(true)
	if d.room.watching.CompareAndSwap(false, true) {
		d.done.Add(1) // the sealer, which calls this, is counted: Close still waits
		go d.watchRoom()
	}
}

// takeRoom clears compactFailed when the watcher found room since the
// sealer last looked; the sealer's goroutine calls it.
func (d *DB) takeRoom() {
	if d.room.found.CompareAndSwap(true, false) {
		d.compactFailed = 0
	}
}

// watchRoom wakes the sealer once the file system has the room awaited
// (or cannot tell), and again each roomPoll until the sealer took it.
func (d *DB) watchRoom() {
	defer d.done.Done()
	t := time.NewTicker(roomPoll)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
		}
		switch {
		case d.room.found.Load():
			d.wakeSealer() // not taken yet: the sealer was held
		case d.room.waiting.Load():
			if room, known := freeSpace(filepath.Dir(d.path)); !known || room >= d.room.need.Load() {
				d.room.waiting.Store(false)
				d.room.found.Store(true)
				d.wakeSealer()
			}
		default:
			d.room.watching.Store(false)
			// awaitRoom may have found the watcher still running just now.
			if !d.room.waiting.Load() || !d.room.watching.CompareAndSwap(false, true) {
				return
			}
		}
	}
}
