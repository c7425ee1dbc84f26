package store

import (
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// bbolt panics on a damaged page (an assertion about what a page should
// be, or an index out of range) wherever it meets one: in Open, in a read
// or in a commit, on whichever goroutine asked. Every transaction of this
// package runs under guard, which turns such a panic into an error wrapping
// ErrDamaged; bbolt rolls the transaction back as the panic passes. A read
// of the map at a bad address (a garbled offset, or a page past the end of
// a truncated file: SIGSEGV or SIGBUS) is a panic too on these goroutines
// (debug.SetPanicOnFault), not the runtime's fatal fault; checkFile refuses
// such files before bbolt maps them anyway.

// openBolt opens path with bbolt, a panic there turned into ErrDamaged.
func openBolt(path string, timeout time.Duration) (db *bbolt.DB, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, damaged(path, fmt.Errorf("bbolt: %v", r))
		}
	}()
	return bbolt.Open(path, 0o600, &bbolt.Options{Timeout: timeout, FreelistType: bbolt.FreelistMapType})
}

// guard runs fn, a panic in it turned into an error wrapping ErrDamaged.
func (d *DB) guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = damaged(d.path, fmt.Errorf("bbolt: %v", r))
			d.opts.Logger.Error("data file is damaged", "path", d.path, "err", err)
		}
	}()
	return fn()
}

// view runs fn in a read transaction with the stats of the same snapshot.
// A record or block that does not decode is damage Open cannot see (the
// body of a block, see checkPages): the error wraps ErrDamaged too, and
// names salvage.
func (d *DB) view(fn func(tx *bbolt.Tx, s *oplog.Stats) error) error {
	if d.isClosed() {
		return oplog.ErrClosed
	}
	err := d.use(func(db *bbolt.DB) error {
		return d.guard(func() error {
			return db.View(func(tx *bbolt.Tx) error {
				s, err := readStats(tx)
				if err != nil {
					return err
				}
				return fn(tx, &s)
			})
		})
	})
	if errors.Is(err, codec.ErrCorrupt) && !errors.Is(err, ErrDamaged) {
		err = damaged(d.path, err)
	}
	return err
}
