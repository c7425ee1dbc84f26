package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNoDir is returned by Existing for a directory that does not exist.
var ErrNoDir = errors.New("no data directory")

// UnwritableError is a data directory this process may not write: the
// directory, a file in it, or (creating it) its parent refused with
// permission denied or read-only file system. It names the path and what
// to do; Unwrap gives the cause, so errors.Is(err, fs.ErrPermission) and
// errors.Is(err, syscall.EROFS) hold.
type UnwritableError struct {
	Dir    string // the data directory
	Path   string // what refused: Dir, a file in it, or the directory being made
	Create bool   // making the directory (or one above it) failed
	Err    error  // the cause
}

func (e *UnwritableError) Error() string {
	verb := "write"
	if e.Create {
		verb = "create"
	}
	msg := fmt.Sprintf("cannot %s the data directory %s: ", verb, e.Dir)
	if e.Path != e.Dir {
		msg += e.Path + ": "
	}
	if errors.Is(e.Err, syscall.EROFS) {
		return msg + "read-only file system; pass --data a directory on a writable file system"
	}
	var errno syscall.Errno
	if errors.As(e.Err, &errno) {
		msg += errno.Error()
	} else {
		msg += e.Err.Error()
	}
	switch {
	case e.Create: // mkdir needs the directory above
		return msg + fmt.Sprintf("; give this user write access to %s, or pass --data another directory", filepath.Dir(e.Path))
	case e.Path != e.Dir:
		return msg + fmt.Sprintf("; give this user read and write access to %s, or pass --data another directory", e.Path)
	}
	return msg + fmt.Sprintf("; give this user write access to %s, or pass --data another directory", e.Dir)
}

func (e *UnwritableError) Unwrap() error { return e.Err }

// refused reports whether err is a write the system refused: permission
// denied (EACCES, EPERM) or a read-only file system.
func refused(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// fileInTheWay returns the file that err, from making or reading a path,
// ran into where a directory should be (ENOTDIR): the path it names or
// one above it.
func fileInTheWay(err error) (string, bool) {
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, syscall.ENOTDIR) {
		return "", false
	}
	for p := pe.Path; p != filepath.Dir(p); p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, true
		}
	}
	return pe.Path, true
}

// explained is an error said in mcplogd's words, keeping its cause for
// errors.Is.
type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }
