//go:build !windows

package follow

import (
	"os"
	"testing"
)

// openWriter opens path to append to it as a game's logger does, one that
// keeps its handle while the file is renamed away.
func openWriter(tb testing.TB, path string) *os.File {
	tb.Helper()
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return fh
}
