package search_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// TestIndex_ParallelBatchesShareKeywordFields indexes with several bleve
// batches at once, whose documents share their keyword fields (see
// field.go), and checks that the caught-up index answers keyword, word and
// mixed queries exactly as the records say (under -race, that the sharing
// is read only).
func TestIndex_ParallelBatchesShareKeywordFields(t *testing.T) {
	e := mustOpen(t, t.TempDir(), search.Options{SegmentSize: 4096, BatchSize: 2000, Parallel: 4, Interval: 20 * time.Millisecond}, nil)
	recs := lines(0, 6000)
	for i := range recs {
		if i%5 == 0 {
			recs[i].Source = "server"
		}
	}
	for i := 0; i < len(recs); i += 1000 {
		if err := e.log.Append(context.Background(), recs[i:i+1000]); err != nil {
			t.Fatal(err)
		}
	}
	e.waitIndexed()
	if st := e.idx.Status(); st.SegmentLag != 0 || st.Segments != 2 {
		t.Fatalf("status %+v, want caught up in 2 segments", st)
	}
	e.check(oplog.SearchQuery{Query: "name:Physics"}, func(r *oplog.Record) bool { return r.Name == "Physics" })
	e.check(oplog.SearchQuery{Query: "level:error"}, func(r *oplog.Record) bool { return r.Level == oplog.LevelError })
	e.check(oplog.SearchQuery{Query: "source:server AND needle"}, func(r *oplog.Record) bool { return r.Source == "server" && hasNeedle(r) })
	e.check(oplog.SearchQuery{Query: "name:Render -source:server"}, func(r *oplog.Record) bool { return r.Name == "Render" && r.Source != "server" })
	e.check(oplog.SearchQuery{Query: "physics AND step"}, func(r *oplog.Record) bool { return r.Stack != "" })
}
