//go:build unix

package faults

import "syscall"

// freeSpace returns the bytes an unprivileged writer can still write to
// the file system of dir.
func freeSpace(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
