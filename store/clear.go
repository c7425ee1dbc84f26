package store

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/migrations"
	"github.com/mcplogd/mcplogd/oplog"
)

// Clear removes every record and starts a new generation. IDs go on from
// the last one, so an ID never names two records; readers holding the old
// Revision get reset: true.
func (d *DB) Clear(ctx context.Context) (oplog.Stats, error) {
	if err := ctx.Err(); err != nil {
		return oplog.Stats{}, err
	}
	if d.isClosed() {
		return oplog.Stats{}, oplog.ErrClosed
	}
	var stats oplog.Stats
	err := d.update(func(tx *bbolt.Tx, s *oplog.Stats) error {
		for _, name := range [][]byte{codec.RecordsBucket, codec.BlocksBucket, codec.NamesBucket} {
			if err := tx.DeleteBucket(name); err != nil {
				return fmt.Errorf("clear %s: %w", name, err)
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		*s = oplog.Stats{Revision: migrations.NewRevision(), GenStart: s.LastID + 1, LastID: s.LastID}
		d.txLoose = -d.loose.Load()
		stats = *s
		return nil
	})
	if err != nil {
		return oplog.Stats{}, &oplog.Error{Code: oplog.EINTERNAL, Message: "clear failed: " + err.Error(), Err: err}
	}
	d.damage.reset() // the damaged blocks went with the rest
	d.wakeSealer()   // the file is now free pages: it may compact
	return stats, nil
}

// Neighbors returns the IDs of the records just before and after id.
func (d *DB) Neighbors(id uint64) (prev, next uint64, err error) {
	err = d.view(func(tx *bbolt.Tx, s *oplog.Stats) error {
		c := d.cursor(tx)
		if got, v := c.seek(id); v == nil || got != id {
			return errors.Join(c.err, s.NotFound(id))
		}
		if n, v := c.next(); v != nil {
			next = n
		}
		pc := d.cursor(tx)
		if p, v := pc.below(id); v != nil {
			prev = p
		}
		return errors.Join(c.err, pc.err)
	})
	return prev, next, err
}
