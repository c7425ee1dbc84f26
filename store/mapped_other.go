//go:build !linux

package store

// dropMapped does nothing: the store uses madvise on Linux only.
func dropMapped(uintptr, int64) error { return nil }
