package logtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// MountTmpfs mounts a tmpfs of size bytes on a new directory and returns
// it; the test is skipped where mounting is not allowed (not root).
func MountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s): a full disk needs one", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// FillDisk writes a file in dir until the disk is full and returns it.
func FillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 64<<10)
	for {
		if _, err := f.Write(b); err != nil {
			if !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EDQUOT) {
				t.Fatal(err)
			}
			break
		}
	}
	for n := len(b) / 2; n > 0; n /= 2 { // the last bytes
		for {
			if _, err := f.Write(b[:n]); err != nil {
				break
			}
		}
	}
	return path
}
