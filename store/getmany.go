package store

import (
	"errors"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

var _ oplog.ManyGetter = (*DB)(nil)

// GetMany returns the records of ids in their order, read in one
// transaction; IDs not stored (trimmed by retention, or never written)
// are left out, and so are those of damaged blocks (Damage says which).
func (d *DB) GetMany(ids []uint64) ([]oplog.Record, error) {
	recs := make([]oplog.Record, 0, len(ids))
	err := d.view(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		for _, id := range ids {
			v, err := d.value(tx, id)
			if errors.Is(err, ErrDamaged) {
				continue
			} else if err != nil {
				return err
			}
			if v == nil {
				continue
			}
			r, err := codec.Decode(id, v)
			if isDamage(err) {
				d.damagedRecord(id, err)
				continue
			} else if err != nil {
				return err
			}
			recs = append(recs, r)
		}
		return nil
	})
	return recs, err
}
