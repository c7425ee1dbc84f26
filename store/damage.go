package store

import (
	"errors"
	"os"
	"strings"
	"sync"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// A sealed block is one bbolt value: bbolt checks its pages' headers, not
// what they hold, so a flipped bit inside a block is found only when the
// block is expanded (zstd's frame checksum, the CRC-32C after an S2 block,
// the IDs and lengths checked against each other). Such a block is
// damage the reads step over: the cursor (blocks.go) skips it, notes its
// run of IDs (oplog.Damaged) and goes on, and every answer that crossed it
// says so. Damage to bbolt's own pages (meta, branches, freelist) is not
// this: checkFile refuses it at Open, naming salvage.
//
// The runs found are kept in memory (Damage) for store_info and the
// log. After an unclean stop (the marker file beside the data file was
// left behind) a background pass expands every block once (checkBlocks),
// so that the damage is known before a reader meets it.

// damageSet is the damaged runs found since Open, oldest first.
type damageSet struct {
	mu sync.Mutex
	ds []oplog.Damaged
}

// add records d and reports whether it was new.
func (s *damageSet) add(d oplog.Damaged) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.ds)
	s.ds = oplog.AddDamaged(s.ds, d)
	return len(s.ds) > n
}

func (s *damageSet) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ds = nil
}

// Damage returns the runs of record IDs found unreadable since Open,
// oldest first (nil: none found). See oplog.DamageReporter.
func (d *DB) Damage() []oplog.Damaged {
	d.damage.mu.Lock()
	defer d.damage.mu.Unlock()
	return append([]oplog.Damaged(nil), d.damage.ds...)
}

var _ oplog.DamageReporter = (*DB)(nil)

// isDamage reports whether err is a block that did not expand.
func isDamage(err error) bool { return errors.Is(err, codec.ErrCorrupt) }

// damagedBlock returns the run of IDs of the damaged block (k, v) of the
// blocks bucket b, notes it and logs it the first time. Its key (the last
// ID) is trusted, as bbolt's page checks hold; its first ID is the record
// after the block before it, else its header's if that is sane, else (the
// first block, its header damaged) the log's first record.
func (d *DB) damagedBlock(b *bbolt.Bucket, k, v []byte, cause error) oplog.Damaged {
	last, _ := codec.ID(k)
	dm := oplog.Damaged{From: last, To: last, File: d.path}
	if pk := prevKey(b, k); pk != nil {
		prev, _ := codec.ID(pk)
		dm.From = min(prev+1, last)
	} else if _, first, n, err := codec.BlockRev(v); err == nil && first <= last && n > 0 && n <= last-first+1 {
		dm.From = first
	} else if st := d.stats.Load(); st != nil && st.FirstID > 0 && st.FirstID < last {
		dm.From = st.FirstID
	}
	d.noteDamage(dm, cause)
	return dm
}

// damagedKey returns the run of IDs around the key the loose cursor c is
// at, which is no record's (a damaged leaf page): the IDs between the good
// keys before and after it (none: from 1, to newest, the snapshot's newest
// ID). It steps c to find them, and back: a seek to the bad key would land
// by a binary search that its being out of order misleads. It notes the
// run and logs it the first time.
func (d *DB) damagedKey(c *bbolt.Cursor, newest uint64, cause error) oplog.Damaged {
	dm := oplog.Damaged{From: 1, To: newest, File: d.path}
	good := func(k []byte) (uint64, bool) {
		id, err := codec.ID(k)
		return id, err == nil && (newest == 0 || id <= newest)
	}
	// find steps c with step until a good key, then back with undo, and
	// returns the good key's ID. At an end bbolt's cursor stays on the
	// element there and answers nil: that step is not undone.
	find := func(step, undo func() ([]byte, []byte)) (id uint64, ok bool) {
		n := 0
		for k, _ := step(); k != nil; k, _ = step() {
			n++
			if id, ok = good(k); ok {
				break
			}
		}
		for range n {
			undo()
		}
		return id, ok
	}
	if id, ok := find(c.Prev, c.Next); ok {
		dm.From = id + 1
	}
	if id, ok := find(c.Next, c.Prev); ok {
		dm.To = id - 1
	}
	dm.To = max(dm.To, dm.From)
	d.noteDamage(dm, cause)
	return dm
}

// damagedRecord returns the run of the one loose record id whose value
// does not decode, noted and logged the first time.
func (d *DB) damagedRecord(id uint64, cause error) oplog.Damaged {
	dm := oplog.Damaged{From: id, To: id, File: d.path}
	d.noteDamage(dm, cause)
	return dm
}

// noteDamage adds dm to Damage and logs it the first time.
func (d *DB) noteDamage(dm oplog.Damaged, cause error) {
	if d.damage.add(dm) && d.opts.Logger != nil { // nil: Check's bare DB
		d.opts.Logger.Error("the data file is damaged: the records there are skipped", "path", d.path,
			"from", dm.From, "to", dm.To, "err", cause, "fix", "mcplogd salvage")
	}
}

// prevKey returns the key before k in b (nil: none).
func prevKey(b *bbolt.Bucket, k []byte) []byte {
	c := b.Cursor()
	if got, _ := c.Seek(k); got == nil {
		return nil
	}
	pk, _ := c.Prev()
	return pk
}

// recordDamaged is the error of a read of record id, which is in the
// damaged run dm: code EDAMAGED, the message says where and what to run,
// and cause (wrapped in ErrDamaged) stays in the chain.
func (d *DB) recordDamaged(id uint64, dm oplog.Damaged, cause error) error {
	return oplog.RecordDamaged(id, dm, damaged(d.path, cause))
}

// OpenSuffix names, after the data file's name, the marker of an open
// data file: created at Open, removed by Close. Found at Open, it tells
// that the last process stopped without closing the file (killed, a
// crash, a power cut), and the blocks are checked in the background.
const OpenSuffix = ".open"

func openMarker(path string) string { return path + OpenSuffix }

// markOpen creates the marker and reports whether it was there already.
func markOpen(path string) (unclean bool, err error) {
	_, err = os.Stat(openMarker(path))
	unclean = err == nil
	f, err := os.OpenFile(openMarker(path), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return unclean, err
	}
	return unclean, f.Close()
}

// checkBlocks expands every block once, oldest first, each in a read
// transaction of its own so that no transaction is held long, and notes
// every damaged one (Damage). It stops at Close.
func (d *DB) checkBlocks() {
	defer d.done.Done()
	d.opts.Logger.Warn("the data file was not closed by the last process: checking every block in the background", "path", d.path)
	var next uint64 // the key the next block's is at or above
	blocks := 0
	for {
		select {
		case <-d.stop:
			return
		default:
		}
		var last uint64
		err := d.view(func(tx *bbolt.Tx, _ *oplog.Stats) error {
			b := tx.Bucket(codec.BlocksBucket)
			k, v := b.Cursor().Seek(codec.Key(next))
			if k == nil {
				return nil
			}
			var err error
			if last, err = codec.ID(k); err != nil {
				return err
			}
			if blk, err := expandStored(v, last); isDamage(err) {
				d.damagedBlock(b, k, v, err)
			} else if err != nil {
				return err
			} else {
				for _, l := range blk.Lost {
					d.noteDamage(oplog.Damaged{From: l[0], To: l[1], File: d.path}, blk.LostCause)
				}
			}
			return nil
		})
		switch {
		case err != nil && !errors.Is(err, oplog.ErrClosed):
			d.opts.Logger.Error("checking the data file's blocks failed", "path", d.path, "err", err)
			return
		case err != nil:
			return
		case last == 0:
			d.logChecked(blocks)
			return
		}
		next, blocks = last+1, blocks+1
	}
}

// logChecked logs the end of checkBlocks: the blocks read, and the damage
// found with the way out.
func (d *DB) logChecked(blocks int) {
	ds := d.Damage()
	if len(ds) == 0 {
		d.opts.Logger.Info("checked every block of the data file: no damage", "path", d.path, "blocks", blocks)
		return
	}
	d.opts.Logger.Error("damage found in the data file: readers skip these records", "path", d.path, "blocks", blocks,
		"damaged", strings.Join(oplog.DamageText(ds), "; "))
}
