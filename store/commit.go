package store

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// request is one caller's append or completion, waiting for a group commit.
type request struct {
	recs []oplog.Record // an append
	// posKey and posValue: the append's position (AppendAt); nil posKey: none.
	posKey, posValue []byte

	completeID uint64 // a completion, when recs and seal are nil
	completion oplog.Completion
	completed  oplog.Record

	seal []*sealed // the sealer's blocks (blocks.go)

	err  error
	done chan struct{}
}

func (r *request) size() int { return max(len(r.recs), 1) }

// commitLoop is the group committer: it takes the next request, adds every
// request already queued behind it (up to MaxCommitRecords), writes them all
// in one transaction with one fsync, and only then answers each caller.
// While one transaction syncs, the next callers queue up for the one after.
func (d *DB) commitLoop() {
	defer d.done.Done()
	var batch []*request
	for first := range d.reqs {
		batch = append(batch[:0], first)
		n := first.size()
	drain:
		for n < d.opts.MaxCommitRecords {
			select {
			case r, ok := <-d.reqs:
				if !ok {
					break drain
				}
				batch = append(batch, r)
				n += r.size()
			default:
				break drain
			}
		}
		err := d.commit(batch, n)
		for _, r := range batch {
			if err != nil {
				r.err = err
			}
			close(r.done)
		}
		if len(batch) > 1 {
			// The callers just answered come straight back with their next
			// append: let them queue before the next transaction starts.
			runtime.Gosched()
		}
		clear(batch)
	}
}

func (d *DB) commit(batch []*request, n int) error {
	var c oplog.Commit // for OnCommit
	names := nameTally{}
	looseBytes := 0 // the new records' values
	began := time.Now()
	err := d.update(func(tx *bbolt.Tx, s *oplog.Stats) error {
		runs := newRunTally(tx)
		b := tx.Bucket(codec.RecordsBucket)
		b.FillPercent = 1 // keys only ever grow: pack pages full
		// bbolt keeps references to keys and values until the commit, so
		// each gets its own slice of buffers that live as long as the tx.
		vals := make([]byte, 0, 256*n)
		for _, r := range batch {
			if r.seal != nil {
				if err := d.seal(tx, s, r.seal); err != nil {
					return err
				}
				continue
			}
			if r.recs == nil {
				if r.err = d.complete(tx, s, names, runs, r); r.err == nil {
					c.Completed++
				}
				continue
			}
			c.Appended += len(r.recs)
			if err := putPosition(tx, r); err != nil {
				return err
			}
			for i := range r.recs {
				rec := &r.recs[i]
				s.LastID++
				rec.ID = s.LastID
				if err := runs.assign(rec); err != nil {
					return err
				}
				start := len(vals)
				vals = codec.Append(vals, rec)
				if err := b.Put(codec.Key(rec.ID), vals[start:len(vals):len(vals)]); err != nil {
					return fmt.Errorf("put record %d: %w", rec.ID, err)
				}
				codec.Count(s, rec.Kind, rec.Level, len(vals)-start, +1)
				if int(rec.Kind) < len(c.Counts) && int(rec.Level) < len(c.Counts[0]) {
					c.Counts[rec.Kind][rec.Level]++
				}
				names.add(rec.Source, rec.Name, rec.Kind, rec.Level, rec.Time.UnixNano(), +1)
				if s.FirstID == 0 {
					s.FirstID = rec.ID
				}
			}
		}
		if err := runs.flush(); err != nil {
			return err
		}
		looseBytes = len(vals)
		d.txLoose += int64(looseBytes)
		return names.flush(tx, d.txID(tx), &d.names)
	})
	if err != nil {
		d.opts.Logger.Error("commit failed", "records", n, "err", err)
		return &oplog.Error{Code: oplog.EINTERNAL, Message: "write failed: " + err.Error(), Err: err}
	}
	d.noteLoose(looseBytes)
	if d.opts.OnCommit != nil {
		c.Took = time.Since(began)
		c.Sources = names.appendedBySource()
		d.opts.OnCommit(c)
	}
	if st := d.Stats(); d.overLimit(&st) {
		d.kickRetention()
	}
	return nil
}

// complete applies one completion inside the commit transaction. Its error
// is the caller's alone: the rest of the batch still commits.
func (d *DB) complete(tx *bbolt.Tx, s *oplog.Stats, names nameTally, runs *runTally, r *request) error {
	b, key := tx.Bucket(codec.RecordsBucket), codec.Key(r.completeID)
	v := b.Get(key)
	var blk *codec.Block
	var bk, stored []byte
	if v == nil {
		// Sealed: decoded afresh (the write transaction's own view).
		bk, stored = tx.Bucket(codec.BlocksBucket).Cursor().Seek(key)
		if bk != nil {
			var err error
			if blk, err = codec.DecodeBlock(stored); isDamage(err) {
				if dm := d.damagedBlock(tx.Bucket(codec.BlocksBucket), bk, stored, err); dm.Contains(r.completeID) {
					return d.recordDamaged(r.completeID, dm, err)
				}
				return s.NotFound(r.completeID)
			} else if err != nil {
				return fmt.Errorf("block %x: %w", bk, err)
			}
			if i := blk.Find(r.completeID); i < blk.Len() && blk.ID(i) == r.completeID {
				v = blk.Value(i)
			}
		}
	}
	if v == nil {
		return s.NotFound(r.completeID)
	}
	rec, err := codec.Decode(r.completeID, v)
	if err != nil {
		return err
	}
	oldKind, oldLevel, oldSize := rec.Kind, rec.Level, len(v)
	if err := rec.ApplyCompletion(r.completion); err != nil {
		return err
	}
	if err := runs.completed(&rec, oldLevel); err != nil {
		return err
	}
	nv := codec.Append(nil, &rec)
	newSize := len(nv)
	if blk != nil {
		vals := blk.Values()
		vals[blk.Find(rec.ID)] = nv
		oldSize, newSize = 0, 0 // the block's bytes change instead
		err = d.rewriteBlock(tx, s, bk, stored, blk.IDs(), vals)
	} else if err = b.Put(key, nv); err == nil {
		d.txLoose += int64(newSize - oldSize)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("update record %d", rec.ID), err)
	}
	codec.Count(s, oldKind, oldLevel, oldSize, -1)
	codec.Count(s, rec.Kind, rec.Level, newSize, +1)
	names.add(rec.Source, rec.Name, oldKind, oldLevel, 0, -1)
	names.add(rec.Source, rec.Name, rec.Kind, rec.Level, 0, +1)
	r.completed = rec
	return nil
}
