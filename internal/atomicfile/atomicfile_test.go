package atomicfile_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mcplogd/mcplogd/internal/atomicfile"
)

// TestWriteFile checks both writers: the new content replaces the old
// whole, with the mode asked for, and no temporary file stays behind.
func TestWriteFile(t *testing.T) {
	for name, write := range map[string]func(string, []byte, os.FileMode) error{
		"WriteFile": atomicfile.WriteFile,
		"Replace":   atomicfile.Replace,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			for _, content := range []string{"old content, longer than the new", "new"} {
				if err := write(path, []byte(content), 0o640); err != nil {
					t.Fatal(err)
				}
				if b, err := os.ReadFile(path); err != nil || string(b) != content {
					t.Fatalf("read %q, %v; want %q", b, err, content)
				}
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 { // Windows has no such bits
				t.Errorf("mode %v; want 0640", fi.Mode())
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("directory holds %d files; want only state.json", len(ents))
			}
		})
	}
}

// TestWriteFile_ErrNotExist: a directory that is not there is the
// CreateTemp's error, and nothing is made.
func TestWriteFile_ErrNotExist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone", "state.json")
	if err := atomicfile.WriteFile(path, []byte("x"), 0o600); !os.IsNotExist(err) {
		t.Fatalf("write into a missing directory: %v; want a not-exist error", err)
	}
}
