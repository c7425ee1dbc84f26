package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// Blocks of an older format are sealed again in today's once appends
// pause, after the loose records (sealLoop): those sealed with S2 while a
// burst arrived (~45% larger than zstd), those of one zstd frame (before
// schema 9) and those whose texts are whole (before schema 10, whose
// blocks keep texts as words: codec's words.go). So a data file written
// by an older mcplogd, or by a burst, shrinks to what today's format
// takes, and the next compaction gives the pages back. The sealer walks
// the blocks in ID order from where it stopped (resealFrom, kept in
// memory only: at the next Open it walks from the first block again,
// passing those of today's format by their first byte), so the work
// resumes after any stop; it stops while appends come or the search index
// holds the sealer, as sealing does. A block is rewritten only if its
// stored value is still the one read (a completion or a trim rewrites it
// meanwhile in today's format anyway); one that does not decode is left
// for the readers to name and salvage to copy.

// resealAll seals again, sealBatch blocks at a time, the blocks of an
// older format, until none is left, appends come or the index holds the
// sealer.
func (d *DB) resealAll() {
	for !d.sealHeld() {
		before := d.appended.Load()
		n, err := d.resealRound()
		if err != nil {
			if !errors.Is(err, oplog.ErrClosed) {
				d.opts.Logger.Error("sealing blocks again in the current format failed", "err", err)
			}
			return
		}
		if n == 0 || d.appended.Load()-before >= busyBytes {
			return
		}
	}
}

// resealRound seals again up to sealBatch blocks of an older format from
// resealFrom on; it returns how many it read.
func (d *DB) resealRound() (int, error) {
	var blocks []*sealed
	err := d.view(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		c := tx.Bucket(codec.BlocksBucket).Cursor()
		for k, v := c.Seek(codec.Key(d.resealFrom)); k != nil && len(blocks) < sealBatch; k, v = c.Next() {
			id, err := codec.ID(k)
			if err != nil {
				return err
			}
			d.resealFrom = id + 1
			if !codec.BlockOutdated(v) {
				continue
			}
			b, err := codec.DecodeBlock(v)
			if err != nil {
				continue
			}
			blocks = append(blocks, &sealed{ids: b.IDs(), vals: b.Values(), key: bytes.Clone(k), old: bytes.Clone(v)})
		}
		return nil
	})
	if err != nil || len(blocks) == 0 {
		return 0, err
	}
	n := len(blocks)
	for _, b := range blocks {
		if b.v, err = codec.AppendBlock(nil, 0, b.ids, b.vals, false); err != nil {
			return 0, err
		}
	}
	// A block that keeps its format (more words than a block keeps as
	// words) is not written again.
	blocks = slices.DeleteFunc(blocks, func(b *sealed) bool { return b.v[0] == b.old[0] })
	if len(blocks) > 0 {
		if err := d.do(context.Background(), &request{seal: blocks}); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// reseal writes, in the committer's transaction, block b sealed again,
// if its stored value is still the one read.
func (d *DB) reseal(tx *bbolt.Tx, s *oplog.Stats, b *sealed) error {
	// The stored block is the one read if its rev is: a rewrite writes
	// another (compared so, its pages are not read whole).
	bucket := tx.Bucket(codec.BlocksBucket)
	stored := bucket.Get(b.key)
	rev, _, _, err := codec.BlockRev(stored)
	oldRev, _, _, _ := codec.BlockRev(b.old)
	if b.left = err != nil || rev != oldRev || len(stored) != len(b.old); b.left {
		return nil
	}
	v, err := codec.WithRev(b.v, d.txID(tx))
	if err != nil {
		return err
	}
	if err := bucket.Put(b.key, v); err != nil {
		return fmt.Errorf("put block %d–%d: %w", b.ids[0], b.ids[len(b.ids)-1], err)
	}
	s.Bytes = s.Bytes + uint64(len(v)) - uint64(len(b.old))
	return nil
}
