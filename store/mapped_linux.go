package store

import (
	"fmt"
	"syscall"
)

// dropMapped advises the kernel that the n mapped bytes at addr are not
// needed: a shared file mapping's pages leave the resident set and come
// back from the page cache when read again.
func dropMapped(addr uintptr, n int64) error {
	if addr == 0 || n <= 0 {
		return nil
	}
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, addr, uintptr(n), syscall.MADV_DONTNEED); e != 0 {
		return fmt.Errorf("store: releasing the data file's mapped pages: %w", e)
	}
	return nil
}
