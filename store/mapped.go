package store

import "go.etcd.io/bbolt"

// bbolt reads its file only through a read-only shared mapping, so every
// page a reader touched (the indexers read each record once) stays in the
// process's resident set until the kernel reclaims it: after 1,000,000
// records, 237 MiB of a 258 MiB file, more than the Go heap. A store that
// reads with pread leaves those pages in the page cache alone.
// ReleaseMapped drops them from the mapping (madvise MADV_DONTNEED; the
// file and the page cache keep the data, and the next read of a page maps
// it again from the cache), so that the mapping holds what is read now.

// ReleaseMapped lets go of the pages of the file this process has mapped.
// It holds a read transaction meanwhile, so bbolt cannot remap the file
// under it. On systems other than Linux it does nothing.
func (d *DB) ReleaseMapped() error {
	if d.isClosed() {
		return nil
	}
	return d.use(func(db *bbolt.DB) error {
		return d.guard(func() error {
			tx, err := db.Begin(false)
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback() }()
			return dropMapped(db.Info().Data, tx.Size())
		})
	})
}
