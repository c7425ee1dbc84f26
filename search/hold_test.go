package search_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// holdSpy is a store.DB that keeps the function the index holds its
// sealer with.
type holdSpy struct {
	*store.DB
	mu   sync.Mutex
	held func() bool
	set  int
}

func (s *holdSpy) HoldSealing(held func() bool) {
	s.mu.Lock()
	s.held, s.set = held, s.set+1
	s.mu.Unlock()
	s.DB.HoldSealing(held)
}

func (s *holdSpy) holding() (func() bool, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held, s.set
}

// TestIndex_HoldsSealingWhileBehind: the index holds the store's sealer
// while more than holdBehind (10,000) records are in no term set, takes
// its hold back at Close, and lets the sealer go once they are.
func TestIndex_HoldsSealingWhileBehind(t *testing.T) {
	dir := t.TempDir()
	db := logtest.MustOpenDBAt(t, filepath.Join(dir, "log.db"), nil)
	spy := &holdSpy{DB: db}
	l := oplog.New(db, nil)
	open := func() *search.Index {
		// No wake-ups and a two-hour interval: the indexer steps at Open only.
		idx, err := search.Open(filepath.Join(dir, "index"), spy, &search.Options{Interval: 2 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return idx
	}
	idx := open()
	held, _ := spy.holding()
	if held == nil || held() {
		t.Fatalf("an index of an empty store: hold %v; want a function that lets the sealer go", held != nil)
	}
	logtest.MustAppend(t, l, lines(0, 10_000)...)
	if held() {
		t.Fatalf("10,000 records in no term set: the sealer is held")
	}
	logtest.MustAppend(t, l, lines(10_000, 2000)...)
	if !held() {
		t.Fatalf("12,000 records in no term set (the index holds %d): the sealer is not held", idx.Status().IndexedThrough)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	if h, set := spy.holding(); h != nil || set != 2 {
		t.Fatalf("after Close: hold set %d times, the last nil %v; want twice, the last nil", set, h == nil)
	}
	idx = open() // indexes the 12,000 records at once
	t.Cleanup(func() { _ = idx.Close() })
	held, _ = spy.holding()
	deadline := time.Now().Add(time.Minute)
	for held() {
		if time.Now().After(deadline) {
			t.Fatalf("the index holds %d of 12,000 records after a minute, and the sealer still", idx.Status().IndexedThrough)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
