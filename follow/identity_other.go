//go:build !unix && !windows

package follow

import (
	"fmt"
	"io/fs"
	"os"
)

// openShared opens the followed file at path for reading.
func openShared(path string) (*os.File, error) { return os.Open(path) }

// handleID fails: this platform has no file identity mcplogd knows of.
func handleID(fh *os.File, _ fs.FileInfo) (dev, ino uint64, err error) {
	return 0, 0, fmt.Errorf("%s: %w", fh.Name(), errNoIdentity)
}

// infoID fails: this platform has no file identity mcplogd knows of.
func infoID(path string, _ fs.FileInfo) (dev, ino uint64, err error) {
	return 0, 0, fmt.Errorf("%s: %w", path, errNoIdentity)
}
