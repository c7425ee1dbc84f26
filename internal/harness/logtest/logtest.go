package logtest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
	"github.com/mcplogd/mcplogd/store"
)

// MustOpenDB opens a store in a new temporary directory, closed at cleanup.
func MustOpenDB(tb testing.TB, opts *store.Options) *store.DB {
	tb.Helper()
	return MustOpenDBAt(tb, filepath.Join(tb.TempDir(), "log.db"), opts)
}

// MustOpenDBAt opens the store at path. At cleanup it runs the store's
// consistency check, failing the test when a counter disagrees with the
// records (see MustCheck), and closes the store unless the test closed it
// first.
func MustOpenDBAt(tb testing.TB, path string, opts *store.Options) *store.DB {
	tb.Helper()
	db, err := store.Open(path, opts)
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() {
		MustCheck(tb, db)
		_ = db.Close()
	})
	return db
}

// MustCheck runs db.Check and fails the test on a mismatch. When the test
// closed db already, it opens the file again to check it, as bbolt's
// internal/btesting checks every database a test leaves behind.
func MustCheck(tb testing.TB, db *store.DB) {
	tb.Helper()
	err := db.Check()
	if errors.Is(err, oplog.ErrClosed) {
		again, openErr := store.Open(db.Path(), nil)
		if openErr != nil {
			tb.Errorf("open %s again to check it: %v", db.Path(), openErr)
			return
		}
		err = again.Check()
		if closeErr := again.Close(); err == nil {
			err = closeErr
		}
	}
	if err != nil {
		tb.Errorf("store check at cleanup: %v", err)
	}
}

// MustOpenLog opens a Log over a new store, closed at cleanup.
func MustOpenLog(tb testing.TB, opts *store.Options) (*oplog.Log, *store.DB) {
	tb.Helper()
	db := MustOpenDB(tb, opts)
	l := oplog.New(db, nil)
	tb.Cleanup(func() { _ = l.Close() })
	return l, db
}

// Lines returns n info lines named "test" with texts prefix-0, prefix-1, ...
// (oplogtest.Lines).
func Lines(n int, prefix string) []oplog.Record { return oplogtest.Lines(n, prefix) }

// MustAppend appends recs and fails the test on error (oplogtest.MustAppend).
func MustAppend(tb testing.TB, l *oplog.Log, recs ...oplog.Record) []oplog.Record {
	tb.Helper()
	return oplogtest.MustAppend(tb, l, recs...)
}

// Eventually calls cond until it returns true or the deadline passes.
func Eventually(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Buffer is a bytes.Buffer that goroutines share: a logger or a command
// writes to it while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p; it never fails.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TailBuffer keeps the last 16 KiB written to it, for a child process's
// output that a failing test shows; safe for concurrent use.
type TailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

// Write appends p, dropping what falls out of the last 16 KiB; it never fails.
func (b *TailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if n := len(b.buf) - 16<<10; n > 0 {
		b.buf = append(b.buf[:0], b.buf[n:]...)
	}
	return len(p), nil
}

// String returns the last 16 KiB written.
func (b *TailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// RepoRoot walks up from the working directory to the directory holding
// go.mod: tests find the module's files (interop/node_modules, the
// command's source) from there, wherever go test runs them.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
