//go:build !unix

package store

// freeSpace cannot tell the room of a file system here (Windows compacts
// at Open, compactAtOpen, and needs no watcher).
func freeSpace(string) (int64, bool) { return 0, false }
