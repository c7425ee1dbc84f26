package search_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// countingStore counts the records read one at a time (Get), as a
// segment's search reads the candidates of a phrase to confirm it.
type countingStore struct {
	oplog.Store
	gets atomic.Int64
}

func (c *countingStore) Get(id uint64) (oplog.Record, error) {
	c.gets.Add(1)
	return c.Store.Get(id)
}

// TestSearch_PhraseWindows: a phrase is confirmed on the records of its
// candidates, newest first, in windows of IDs: the newest 20 of a phrase
// whose candidates are 1 record in 7 of a 30,000-record segment read a
// few hundred records, not the segment's ~4,300, and every page is still
// exact, the phrase under NOT and OR too.
func TestSearch_PhraseWindows(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "log.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	cs := &countingStore{Store: db}
	idx, err := search.Open(filepath.Join(dir, "index"), cs, &search.Options{Changed: l.Changed, Completed: l.CompletedSince, Interval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	l.SetIndex(idx)
	e := &env{t: t, dir: dir, log: l, db: db, idx: idx}
	t.Cleanup(e.close)
	logtest.MustAppend(t, l, lines(0, 30_000)...)
	e.waitIndexed()

	cs.gets.Store(0)
	p, err := l.Search(context.Background(), oplog.SearchQuery{Query: `"needle in haystack"`, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Hits) != 20 || p.Hits[0].Record.ID != 29_996 { // 29,995 = 7 × 4,285, the newest needle (IDs from 1)
		t.Fatalf("newest 20 of the phrase: %d hits, the first %+v", len(p.Hits), p.Hits[0].Record)
	}
	if n := cs.gets.Load(); n > 1500 {
		t.Fatalf("the newest 20 of a phrase read %d records; want the candidates of a window (~600), not the segment's ~4,300", n)
	}
	e.check(oplog.SearchQuery{Query: `"needle in haystack"`, Limit: 97}, hasNeedle)
	e.check(oplog.SearchQuery{Query: `NOT "needle in haystack"`, Limit: 3000}, func(r *oplog.Record) bool { return !hasNeedle(r) })
	e.check(oplog.SearchQuery{Query: `"needle in haystack" OR name:Physics`, Limit: 500}, func(r *oplog.Record) bool { return hasNeedle(r) || r.Name == "Physics" })
}
