package search_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// TestSearch_LagWalkEndsWithItsContext: a
// search that walks a large lag (here 30,000 records no index holds, a
// word none has) ends with its request's context instead of reading the
// rest: cancelled while it reads its first chunk, it answers
// context.Canceled, not an empty page after every record.
func TestSearch_LagWalkEndsWithItsContext(t *testing.T) {
	idx, ps := laggingIndex(t, 0)
	ps.armed.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := idx.Search(ctx, &oplog.SearchQuery{Query: "nowhere"}, 0, 50)
		done <- err
	}()
	waitParked(t, ps)
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

// TestSearch_LagWalksBounded is the rest of finding 3: no more than
// Options.Walks searches walk a lag at once; another waits for a turn or
// until its context ends, and gets one once the walk ended. A search of
// fewer records than a chunk does not wait.
func TestSearch_LagWalksBounded(t *testing.T) {
	idx, ps := laggingIndex(t, 1)
	ps.armed.Store(true)
	nowhere := &oplog.SearchQuery{Query: "nowhere"}
	first := make(chan error, 1)
	go func() {
		_, err := idx.Search(context.Background(), nowhere, 0, 50)
		first <- err
	}()
	waitParked(t, ps)
	// The one turn is taken: a second walk waits until its deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	_, err := idx.Search(ctx, nowhere, 0, 50)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		close(ps.release)
		t.Fatalf("a second walk while the only turn is taken: %v, want context.DeadlineExceeded", err)
	}
	// Below a chunk's worth of records (before=1000: IDs 1..999) there is
	// no walk to wait for.
	if h, err := idx.Search(context.Background(), &oplog.SearchQuery{Query: "needle"}, 1000, 5); err != nil || len(h.IDs) != 5 {
		close(ps.release)
		t.Fatalf("a short search while the turn is taken: %v, %v", h.IDs, err)
	}
	close(ps.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if h, err := idx.Search(context.Background(), nowhere, 0, 50); err != nil || len(h.IDs) != 0 || !h.TotalExact {
		t.Fatalf("a walk after the first ended: %+v, %v", h, err)
	}
}

// laggingIndex opens an index (walks turns; 0: the default) whose store
// then gets 30,000 records it does not hold: its watermark stays at 0 (no
// wake-ups, a two-hour interval). Its store parks a chunk's read once
// armed.
func laggingIndex(t *testing.T, walks int) (*search.Index, *parkingStore) {
	t.Helper()
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
	idx, err := search.Open(filepath.Join(dir, "index"), ps, &search.Options{TailChunk: parkLimit, Interval: 2 * time.Hour, Walks: walks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	logtest.MustAppend(t, l, lines(0, 30_000)...)
	if w := idx.Status().SegmentsThrough; w != 0 {
		t.Fatalf("the index holds records up to %d: no lag to walk", w)
	}
	return idx, ps
}

// waitParked waits until a search parked in its first chunk.
func waitParked(t *testing.T, ps *parkingStore) {
	t.Helper()
	select {
	case <-ps.parked:
	case <-time.After(30 * time.Second):
		close(ps.release)
		t.Fatal("the search read no chunk above the watermark")
	}
}
