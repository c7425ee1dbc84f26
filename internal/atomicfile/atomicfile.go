package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
)

// WriteFile replaces path with data atomically and durably, with
// permissions perm: the data and the file are synced before the rename,
// the directory after it. On error path is unchanged and the temporary
// file removed; the error is the os package's (*fs.PathError,
// *os.LinkError).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	if err := write(path, data, perm, true); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// Replace replaces path with data atomically, with permissions perm, but
// leaves both to the system's write-back: after a crash path may hold its
// old content, or on some file systems none. Errors are as WriteFile's.
func Replace(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

// write writes data to a temporary file beside path, syncing it when sync
// is set, and renames it over path.
func write(path string, data []byte, perm os.FileMode, sync bool) error {
	// A hidden name, so a directory listing (the registry of servers, the
	// index's directory) never mistakes it for a file of its own.
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename, a no-op
	_, err = f.Write(data)
	if err == nil {
		// CreateTemp makes files 0600; perm may ask for another mode.
		err = f.Chmod(perm)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// SyncDir makes a rename in dir durable. Windows cannot sync a directory
// (FlushFileBuffers refuses a directory handle) and NTFS journals the
// rename itself, so there it is a no-op.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
