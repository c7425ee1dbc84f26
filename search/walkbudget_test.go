package search_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// TestSearch_WalkBudget: a search of records above the watermark that
// outlives Options.WalkBudget answers what it found with TotalExact false
// and Resume (a cursor through oplog.Log) instead of stalling; paging on
// from Resume finds every hit once, as the caught-up index does.
func TestSearch_WalkBudget(t *testing.T) {
	dir := t.TempDir()
	e := mustOpen(t, dir, small(), nil)
	// Never indexes (no wake-ups, an hour's interval); a budget so short
	// that every search stops after its first chunk of 300 IDs.
	lag, err := search.Open(filepath.Join(dir, "lagging"), e.db, &search.Options{TailChunk: 300, Interval: 2 * time.Hour, WalkBudget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lag.Close() })
	logtest.MustAppend(t, e.log, oplog.Record{Level: oplog.LevelError, Text: "a unicorn in the first frame"})
	logtest.MustAppend(t, e.log, lines(1, 3000)...)
	e.waitIndexed()
	ctx := context.Background()
	for _, tc := range []struct {
		query string
		limit int
	}{{"unicorn", 10}, {"needle", 7}, {"needle AND level:error", 5}} {
		q := &oplog.SearchQuery{Query: tc.query}
		want, err := e.idx.Search(ctx, q, 0, 10_000)
		if err != nil || len(want.IDs) == 0 {
			t.Fatalf("%s: the caught-up index found %v, %v", tc.query, want.IDs, err)
		}
		var got []uint64
		before, pages, resumed := uint64(0), 0, 0
		for {
			h, err := lag.Search(ctx, q, before, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			got = append(got, h.IDs...)
			if h.Resume > 0 {
				resumed++
				if !h.More || h.TotalExact || (before > 0 && h.Resume >= before) {
					t.Fatalf("%s: a page past the budget: more %v, exact %v, resume %d after before %d", tc.query, h.More, h.TotalExact, h.Resume, before)
				}
				before = h.Resume
				continue
			}
			if !h.More {
				break
			}
			before = h.IDs[len(h.IDs)-1]
			if pages > 1000 {
				t.Fatalf("%s: paging does not end", tc.query)
			}
		}
		if !slices.Equal(got, want.IDs) || resumed == 0 {
			t.Fatalf("%s: %d pages (%d past the budget) found %v, want %v", tc.query, pages, resumed, got, want.IDs)
		}
	}
	// Through the Log: the page past the budget carries a cursor that goes on below it.
	l := oplog.New(e.db, nil)
	l.SetIndex(lag)
	p, err := l.Search(ctx, oplog.SearchQuery{Query: "unicorn", Limit: 10})
	if err != nil || len(p.Hits) != 0 || p.NextCursor == "" || p.TotalExact {
		t.Fatalf("first page through the log: %d hits, cursor %q, exact %v, %v", len(p.Hits), p.NextCursor, p.TotalExact, err)
	}
	for p.NextCursor != "" && len(p.Hits) == 0 {
		if p, err = l.Search(ctx, oplog.SearchQuery{Query: "unicorn", Limit: 10, Cursor: p.NextCursor}); err != nil {
			t.Fatal(err)
		}
	}
	if len(p.Hits) != 1 || p.Hits[0].Record.ID != 1 {
		t.Fatalf("paging by cursor ended with %d hits", len(p.Hits))
	}
}
