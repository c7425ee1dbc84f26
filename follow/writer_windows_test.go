package follow

import (
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// openWriter opens path to append to it as a game's logger does, one that
// keeps its handle while the file is renamed away: on Windows such a
// logger must share its handle for deletion (os.OpenFile does not), or
// nobody could rename the file.
func openWriter(tb testing.TB, path string) *os.File {
	tb.Helper()
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		tb.Fatal(err)
	}
	h, err := windows.CreateFile(p, windows.FILE_APPEND_DATA, shareAll, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	return os.NewFile(uintptr(h), path)
}
