package search

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// TestPriority_IndexingWaitsForSearches: while a search runs, the indexer
// and the term-set builder wait before their steps; once it ends they
// catch up. Without a search they never wait.
func TestPriority_IndexingWaitsForSearches(t *testing.T) {
	st := oplogtest.NewMemory()
	x, err := Open(t.TempDir(), st, &Options{TailChunk: 100, Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close() })
	add := func(n int) uint64 {
		recs := make([]oplog.Record, n)
		for i := range recs {
			recs[i] = oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Text: fmt.Sprintf("line %d", i), Time: time.Now()}
		}
		if err := st.Append(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
		return st.Stats().LastID
	}
	waited := func() int64 {
		x.searches.mu.Lock()
		defer x.searches.mu.Unlock()
		return x.searches.waited
	}
	segmented := func(last uint64) func() bool {
		return func() bool { return x.Status().SegmentsThrough >= last }
	}
	logtest.Eventually(t, 30*time.Second, "the first records in a segment", segmented(add(500)))
	if n := waited(); n != 0 {
		t.Fatalf("indexing waited %d times with no search running", n)
	}
	x.searches.enter()
	last := add(500)
	logtest.Eventually(t, 30*time.Second, "indexing waiting for the search", func() bool { return waited() >= 2 })
	x.searches.exit()
	logtest.Eventually(t, 30*time.Second, "the rest in a segment once the search ended", segmented(last))
}
