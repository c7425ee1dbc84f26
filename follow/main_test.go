package follow

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// sharedDir holds what tests build once and share (a Rust program, a Wine
// prefix): made by TestMain, removed after the last test.
var sharedDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcplogd-follow-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sharedDir = dir
	code := m.Run()
	for _, cleanup := range sharedCleanups {
		cleanup()
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

var (
	sharedMu       sync.Mutex
	sharedMade     = map[string]*sharedThing{}
	sharedCleanups []func()
)

type sharedThing struct {
	once sync.Once
	v    string
	err  error
}

// shared returns what make makes in a directory of its own under
// sharedDir, made once for all the tests that ask for key; a test whose
// make failed fails, as does every later test that asks for it.
func shared(t *testing.T, key string, make func(dir string) (string, error)) string {
	t.Helper()
	sharedMu.Lock()
	s := sharedMade[key]
	if s == nil {
		s = &sharedThing{}
		sharedMade[key] = s
	}
	sharedMu.Unlock()
	s.once.Do(func() {
		dir := filepath.Join(sharedDir, key)
		if s.err = os.MkdirAll(dir, 0o755); s.err == nil {
			s.v, s.err = make(dir)
		}
	})
	if s.err != nil {
		t.Fatalf("%s: %v", key, s.err)
	}
	return s.v
}

// atExit runs cleanup after the last test, before sharedDir is removed.
func atExit(cleanup func()) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	sharedCleanups = append(sharedCleanups, cleanup)
}
