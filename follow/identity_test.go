package follow

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIdentity_Rename: a file keeps its identity when renamed, read from
// its open handle or from its new path, and has another than a new file
// at its old path; the handle opened for following does not keep the file
// from being renamed, nor its old name from being used again (on Windows
// it must share the file for deletion).
func TestIdentity_Rename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "Player.log")
	appendFile(t, path, "first run\n")
	fh, err := openShared(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	dev, ino, err := handleID(fh, fi)
	if err != nil {
		t.Fatal(err)
	}
	prev := filepath.Join(dir, "Player-prev.log")
	if err := os.Rename(path, prev); err != nil {
		t.Fatalf("the game cannot rotate the followed file: %v", err)
	}
	appendFile(t, path, "second run\n")

	info := func(p string) (dev, ino uint64) {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		d, i, err := infoID(p, fi)
		if err != nil {
			t.Fatal(err)
		}
		return d, i
	}
	if d, i := info(prev); d != dev || i != ino {
		t.Errorf("renamed: %x:%x, was %x:%x when open", d, i, dev, ino)
	}
	if d, i := info(path); d == dev && i == ino {
		t.Errorf("the new file at the old path has the old one's identity %x:%x", d, i)
	}
	if fi2, err := fh.Stat(); err != nil {
		t.Fatal(err)
	} else if d, i, err := handleID(fh, fi2); err != nil || d != dev || i != ino {
		t.Errorf("the open handle after the rename: %x:%x, %v; want %x:%x", d, i, err, dev, ino)
	}
}
