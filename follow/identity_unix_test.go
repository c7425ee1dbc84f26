//go:build unix

package follow

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestFileID_StatDevIno: on Unix a file ID begins with stat's device and
// inode in hex, as before identities had a file per platform, so that the
// positions existing stores hold still name their files.
func TestFileID_StatDevIno(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.log")
	appendFile(t, path, "a line\n")
	c := openID(path)
	if c == nil {
		t.Fatal("openID: nil")
	}
	defer c.f.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	want := strconv.FormatUint(uint64(st.Dev), 16) + ":" + strconv.FormatUint(uint64(st.Ino), 16) + ":"
	if !strings.HasPrefix(c.id, want) {
		t.Fatalf("file ID %s, want it to begin with %s", c.id, want)
	}
}
