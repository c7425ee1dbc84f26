package search

import (
	"errors"
	"syscall"
)

// A full disk: the index keeps serving what it has. A set that cannot be
// written stays in memory (the sets file is cut back to where it was), and
// the next step tries again; searches stay exact meanwhile, as the sets in
// memory answer as the stored ones do. Open does not fail when the sets
// file cannot be rewritten for lack of room.

// isDiskFull reports whether err says the disk, or the user's quota, is full.
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// tolerateFull returns nil for a disk-full err, after noting that the disk
// is full; any other err is returned as it is.
func (x *Index) tolerateFull(err error) error {
	if err == nil || !isDiskFull(err) {
		return err
	}
	if !x.full.Swap(true) {
		x.opts.Logger.Warn("disk full: the search index is not written until there is room; searches stay exact", "dir", x.dir, "err", err)
	}
	return nil
}

// roomAgain notes that a write succeeded after the disk was full.
func (x *Index) roomAgain() {
	if x.full.Swap(false) {
		x.opts.Logger.Info("the disk has room again: the search index is written again", "dir", x.dir)
	}
}
