//go:build !linux

package store

// dropMapped does nothing where the store does not use madvise.
func dropMapped(uintptr, int64) error { return nil }
