package search

import (
	"errors"
	"syscall"
)

// A full disk: the index keeps serving what it has, and writes nothing
// until there is room again. Open does not fail when meta.json cannot be
// written for lack of room (the one on disk is older: what it does not
// list is indexed again later), so a server can start on a full disk and
// answer reads; the indexer, while the disk is full, only tries to write
// meta.json at each tick, and goes on indexing once that succeeds.
// Searches stay exact meanwhile: the records above the watermark are
// evaluated from the store.

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

// stillFull reports whether the disk was full and still is: it tries to
// write meta.json again.
func (x *Index) stillFull() bool {
	if !x.full.Load() {
		return false
	}
	if err := x.writeMeta(); err != nil {
		return true
	}
	x.full.Store(false)
	x.opts.Logger.Info("the disk has room again: search indexing resumes", "dir", x.dir)
	return false
}
