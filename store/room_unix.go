//go:build unix

package store

import "syscall"

// freeSpace returns the bytes an unprivileged writer can still write to
// the file system of dir, and whether it could tell.
func freeSpace(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
