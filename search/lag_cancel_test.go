package search_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// TestSearch_LagWalkEndsWithItsContext is part of issue 15's finding 3: a
// search that walks a large lag (here 30,000 records no index holds, a
// word none has) ends with its request's context instead of reading the
// rest: cancelled while it reads its first chunk, it answers
// context.Canceled, not an empty page after every record.
func TestSearch_LagWalkEndsWithItsContext(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "log.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	t.Cleanup(func() { _ = l.Close() })
	ps := &parkingStore{Store: db, parked: make(chan struct{}), release: make(chan struct{})}
	// Opened on the empty store with no wake-ups and a two-hour interval:
	// the index holds none of the records appended next.
	idx, err := search.Open(filepath.Join(dir, "index"), ps, &search.Options{TailChunk: parkLimit, Interval: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	logtest.MustAppend(t, l, lines(0, 30_000)...)
	if w := idx.Status().IndexedThrough; w != 0 {
		t.Fatalf("the index holds records up to %d: no lag to walk", w)
	}
	ps.armed.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := idx.Search(ctx, &oplog.SearchQuery{Query: "nowhere"}, 0, 50)
		done <- err
	}()
	select {
	case <-ps.parked:
	case <-time.After(30 * time.Second):
		close(ps.release)
		t.Fatal("the search read no chunk above the watermark")
	}
	cancel()
	close(ps.release)
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a search cancelled in its walk: %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled search did not end")
	}
}
