package store

import (
	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// SetSealHook sets a func the sealer runs between reading a round's
// records and handing their blocks to the committer, until the returned
// func runs.
func SetSealHook(f func()) (restore func()) {
	old := sealHook
	sealHook = f
	return func() { sealHook = old }
}

// SetCompact sets compaction's bounds and its hook (nil: none), run after
// the copy is synced and before it takes the data file's name, until the
// returned func runs. Set them before opening the stores they apply to.
func SetCompact(minFree, maxLive int64, hook func()) (restore func()) {
	oldFree, oldLive, oldHook := compactMinFree, compactMaxLive, compactHook
	compactMinFree, compactMaxLive, compactHook = minFree, maxLive, hook
	return func() { compactMinFree, compactMaxLive, compactHook = oldFree, oldLive, oldHook }
}

// CompactOnline reports whether the store compacts its file while open
// on this system (else at Open).
func CompactOnline() bool { return compactOnline }

// SetCompactOnline makes the store compact its file while open, or at Open,
// until the returned func runs.
func SetCompactOnline(online bool) (restore func()) {
	old := compactOnline
	compactOnline = online
	return func() { compactOnline = old }
}

// BlockRevs returns the rev of every block, by its last ID.
func (d *DB) BlockRevs() (map[uint64]uint64, error) {
	revs := map[uint64]uint64{}
	err := d.view(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		return tx.Bucket(codec.BlocksBucket).ForEach(func(k, v []byte) error {
			rev, _, _, err := codec.BlockRev(v)
			if err != nil {
				return err
			}
			id, err := codec.ID(k)
			revs[id] = rev
			return err
		})
	})
	return revs, err
}

// Compact compacts the data file now, whatever its free pages.
func (d *DB) Compact() error {
	old, err := d.compact()
	if err != nil {
		return err
	}
	return old.retire()
}

// HoldView holds a read transaction open, telling started, until release
// is closed.
func (d *DB) HoldView(started chan<- struct{}, release <-chan struct{}) error {
	return d.view(func(*bbolt.Tx, *oplog.Stats) error {
		close(started)
		<-release
		return nil
	})
}

// SetMaxLoose sets the loose bytes at which the sealer seals while appends
// still come fast (with S2), until the returned func runs.
func SetMaxLoose(n int64) (restore func()) {
	old := maxLoose
	maxLoose = n
	return func() { maxLoose = old }
}
