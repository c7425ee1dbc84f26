//go:build unix

package follow

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openShared opens the followed file at path for reading. On Unix an open
// file never keeps a writer from renaming, truncating or removing it.
func openShared(path string) (*os.File, error) { return os.Open(path) }

// handleID returns the device and inode of the open file fh, whose
// File.Stat returned fi.
func handleID(fh *os.File, fi fs.FileInfo) (dev, ino uint64, err error) {
	return infoID(fh.Name(), fi)
}

// infoID returns the device and inode of the file at path, which os.Stat,
// os.Lstat or fs.DirEntry.Info described as fi.
func infoID(path string, fi fs.FileInfo) (dev, ino uint64, err error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, fmt.Errorf("%s: %w", path, errNoIdentity)
	}
	return uint64(st.Dev), uint64(st.Ino), nil
}
