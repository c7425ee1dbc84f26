//go:build unix

package bench

import (
	"io/fs"
	"syscall"
)

// allocated returns the bytes the file fi describes takes on disk, which a
// sparse file's holes do not use.
func allocated(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}
