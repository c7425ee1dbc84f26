package store

import (
	"bytes"
	"context"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// AppendAt queues recs with the position pos for the next group commit and
// returns once both are durable: the position is put in the positions
// bucket by the transaction that puts recs, so one is never stored without
// the other. A commit holding several callers' appends writes each
// caller's position; two with the same key end with the later caller's.
func (d *DB) AppendAt(ctx context.Context, recs []oplog.Record, pos *oplog.Position) error {
	if len(recs) == 0 {
		return nil // a position rides with records (see oplog.Log.AppendAt)
	}
	r := &request{recs: recs}
	if pos != nil {
		r.posKey, r.posValue = []byte(pos.Key), bytes.Clone(pos.Value)
		if r.posValue == nil {
			r.posValue = []byte{} // bbolt refuses a nil value
		}
	}
	return d.do(ctx, r)
}

// Position returns the value stored under key by AppendAt; nil when none.
// Retention and Clear leave the positions bucket alone.
func (d *DB) Position(key string) ([]byte, error) {
	var v []byte
	err := d.view(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		if got := tx.Bucket(codec.PositionsBucket).Get([]byte(key)); got != nil {
			v = bytes.Clone(got) // valid only in the transaction
			if v == nil {
				v = []byte{}
			}
		}
		return nil
	})
	return v, err
}

// putPosition writes r's position, if any, in the commit transaction.
func putPosition(tx *bbolt.Tx, r *request) error {
	if r.posKey == nil {
		return nil
	}
	if err := tx.Bucket(codec.PositionsBucket).Put(r.posKey, r.posValue); err != nil {
		return fmt.Errorf("put position %q: %w", r.posKey, err)
	}
	return nil
}
