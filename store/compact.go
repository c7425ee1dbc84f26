package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/atomicfile"
	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// bbolt frees the pages of records sealed into blocks, trimmed or cleared
// and reuses them before it grows the file, but never gives them back: a
// store whose burst of 200,000 lines took 54 MB loose keeps a 54 MB file
// for 20 MB of sealed records. Compaction gives the free pages back. Once
// the sealer has sealed what was loose and appends have paused, when at
// least half the file (and compactMinFree) is free and at most
// compactMaxLive is not, the store copies what is live into a new file
// beside the data file (bbolt.Compact, pages filled whole), syncs it,
// renames it over the data file and reads from it from then on.
//
// Appends, completions, retention and Clear wait meanwhile (writeMu: the
// copy of a 20 MB file takes ~0.1 s, BenchmarkCompact); reads go on from the old file, and those in
// flight at the swap finish on it before it is closed (use). A kill at any
// point leaves the old file whole (and a partial copy, which the next Open
// removes) or the new one, whole and synced before the rename. The copy is
// locked (bbolt's flock) before it takes the data file's name, so another
// process never finds the name unlocked.
//
// Windows cannot rename over a file that is open: there the store compacts
// at Open, under the same bounds, before it serves (compactAtOpen): it
// closes the file for the rename and opens the copy under its name.
//
// The copy's bbolt transaction IDs start over; what the store keys by them
// (a block's rev, the order of published stats, the names cache) adds
// txBase, which the copy records in meta: the old base plus the old file's
// last transaction ID, so that they only ever grow.

// CompactSuffix, added to the data file's name, names the copy while a
// compaction writes it.
const CompactSuffix = ".compacting"

// Bounds of compaction, and when it runs; variables for the tests.
var (
	compactMinFree int64 = 16 << 20 // free bytes, at least
	compactMaxLive int64 = 64 << 20 // bytes not free, at most: the copy holds appends back
	compactOnline        = runtime.GOOS != "windows"
)

// compactTxBytes bounds a transaction of the copy (its dirty pages stay
// in memory until it commits).
const compactTxBytes = 8 << 20

// dataFile is an open data file and the reads in flight on it.
type dataFile struct {
	db      *bbolt.DB
	users   atomic.Int64
	retired atomic.Bool // replaced by a compacted copy: no new users
}

// use runs fn on the current data file, which a compaction closes only
// once fn has returned.
func (d *DB) use(fn func(db *bbolt.DB) error) error {
	for {
		f := d.file.Load()
		f.users.Add(1)
		if !f.retired.Load() {
			defer f.users.Add(-1)
			return fn(f.db)
		}
		f.users.Add(-1) // the new file is stored before the old one retires
	}
}

// retire closes f once its reads in flight have ended.
func (f *dataFile) retire() error {
	f.retired.Store(true)
	for f.users.Load() != 0 {
		time.Sleep(time.Millisecond)
	}
	return f.db.Close()
}

// txID is tx's ID in the store: bbolt's plus txBase.
func (d *DB) txID(tx *bbolt.Tx) uint64 { return d.txBase.Load() + uint64(tx.ID()) }

func readTxBase(tx *bbolt.Tx) uint64 {
	if v := tx.Bucket(codec.MetaBucket).Get(codec.TxBaseKey); len(v) == 8 {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

// removeStaleCopy removes the copy a compaction killed before its rename
// left beside the data file at path. Only a process holding the data file
// calls it: a compaction running in another would hold that.
func removeStaleCopy(path string) error {
	if err := os.Remove(path + CompactSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the unfinished copy of %s: %w", path, err)
	}
	return nil
}

// worthCompacting reports whether the bounds above hold; the file's size
// then.
func (d *DB) worthCompacting() (bool, int64) {
	if d.loose.Load() >= int64(codec.BlockTarget) {
		return false, 0
	}
	free, size := d.FreeBytes(), d.Size()
	return free >= compactMinFree && 2*free >= size && size-free <= compactMaxLive && size > d.compactFailed, size
}

// maybeCompact compacts the data file when the bounds above hold and
// appends are quiet (the sealer calls it, on its goroutine, once it has
// sealed).
func (d *DB) maybeCompact() {
	if !compactOnline {
		return
	}
	d.takeRoom() // compact_room.go: room again after a full disk
	ok, size := d.worthCompacting()
	if !ok {
		d.awaitRoom(nil) // a seal the full disk stopped
		return
	}
	began := time.Now()
	old, err := d.compact()
	if err != nil {
		if !errors.Is(err, oplog.ErrClosed) {
			d.compactFailed = size // not again until the file grows: a full disk fails each copy
			d.awaitRoom(err)       // or until there is room again
			d.opts.Logger.Warn("compacting the data file failed; it keeps its free pages", "path", d.path, "err", err)
		}
		return
	}
	d.compactFailed = 0
	d.opts.Logger.Info("data file compacted", "path", d.path, "from", size, "to", d.Size(), "took", time.Since(began).Round(time.Millisecond))
	// Outside writeMu: a long read on the old file must not hold appends.
	if err := old.retire(); err != nil {
		d.opts.Logger.Warn("closing the data file before its compaction failed", "path", d.path, "err", err)
	}
}

// compactHook, when set, runs after the copy is synced and before it
// takes the data file's name (tests).
var compactHook func()

// compact copies the data file's live pages into a new file and makes that
// the data file. It returns the old one, for the caller to retire.
func (d *DB) compact() (old *dataFile, err error) {
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	if d.isClosed() {
		return nil, oplog.ErrClosed
	}
	old = d.file.Load()
	dst, base, err := d.copyLive(old.db)
	if err != nil {
		return nil, err
	}
	if compactHook != nil {
		compactHook()
	}
	if err := os.Rename(d.path+CompactSuffix, d.path); err != nil {
		_ = dst.Close()
		_ = os.Remove(d.path + CompactSuffix)
		return nil, err
	}
	// From here on the data file is the copy, whether or not the rename is
	// durable yet: never remove it. Writes wait for the directory's sync.
	d.txBase.Store(base)
	d.file.Store(&dataFile{db: dst})
	if err := atomicfile.SyncDir(filepath.Dir(d.path)); err != nil {
		d.opts.Logger.Warn("syncing the data file's directory after compacting failed", "path", d.path, "err", err)
	}
	return old, nil
}

// copyLive copies what src holds into a new file at the copy's name (no
// write may run meanwhile), with txBase for it in meta, syncs it, and
// returns it open (locked) and that txBase. On an error no copy is left.
func (d *DB) copyLive(src *bbolt.DB) (dst *bbolt.DB, base uint64, err error) {
	tmp := d.path + CompactSuffix
	if err := removeStaleCopy(d.path); err != nil {
		return nil, 0, err
	}
	db, err := openBolt(tmp, d.opts.Timeout)
	if err != nil {
		_ = os.Remove(tmp) // bbolt may have created it (a full disk)
		return nil, 0, err
	}
	defer func() {
		if err != nil {
			_ = db.Close()
			_ = os.Remove(tmp)
		}
	}()
	dst = db
	dst.NoSync = true // synced once, whole, below
	var want oplog.Stats
	err = d.guard(func() error {
		if err := bbolt.Compact(dst, src, compactTxBytes); err != nil {
			return err
		}
		return src.View(func(tx *bbolt.Tx) error {
			base = d.txID(tx) // the last transaction's
			var rerr error
			want, rerr = readStats(tx)
			return rerr
		})
	})
	if err != nil {
		return nil, 0, err
	}
	err = dst.Update(func(tx *bbolt.Tx) error {
		got, err := readStats(tx)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("the copy's stats %+v are not the file's %+v", got, want)
		}
		return tx.Bucket(codec.MetaBucket).Put(codec.TxBaseKey, binary.BigEndian.AppendUint64(nil, base))
	})
	if err != nil {
		return nil, 0, err
	}
	dst.NoSync = false
	if err = dst.Sync(); err != nil {
		return nil, 0, err
	}
	return dst, base, nil
}

// compactAtOpen compacts the data file where it cannot be renamed over
// while open (see above), at Open before the store serves: the copy is
// closed, then the file, the copy renamed over it and opened. A failed
// copy or rename leaves the file as it was, opened again; an error is for
// a file that cannot be opened again (another process took it meanwhile).
func (d *DB) compactAtOpen() error {
	if compactOnline {
		return nil
	}
	ok, size := d.worthCompacting()
	if !ok {
		return nil
	}
	old := d.file.Load()
	dst, base, err := d.copyLive(old.db)
	if err == nil {
		if err = dst.Close(); err != nil {
			_ = os.Remove(d.path + CompactSuffix)
		}
	}
	if err != nil {
		d.opts.Logger.Warn("compacting the data file failed; it keeps its free pages", "path", d.path, "err", err)
		return nil
	}
	if compactHook != nil {
		compactHook()
	}
	if err := old.db.Close(); err != nil {
		return err
	}
	renamed := os.Rename(d.path+CompactSuffix, d.path)
	if renamed != nil {
		_ = os.Remove(d.path + CompactSuffix)
		d.opts.Logger.Warn("compacting the data file failed; it keeps its free pages", "path", d.path, "err", renamed)
	} else if err := atomicfile.SyncDir(filepath.Dir(d.path)); err != nil {
		d.opts.Logger.Warn("syncing the data file's directory after compacting failed", "path", d.path, "err", err)
	}
	bdb, err := openBolt(d.path, d.opts.Timeout)
	if err != nil {
		return err
	}
	d.file.Store(&dataFile{db: bdb})
	if renamed == nil {
		d.txBase.Store(base)
		d.opts.Logger.Info("data file compacted", "path", d.path, "from", size, "to", d.Size())
	}
	return nil
}
