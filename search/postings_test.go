package search_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// TestPostings_AcrossARestart searches a log whose chunks hold their
// postings, hold none (read back from the sets file after a restart, and
// searched on their sets until postAgain built them again), and hold them
// for part of their records only (the growing chunk, thawed from the
// file, then grown and built again whole): every query finds what the
// predicate on every record finds, and the chunks that have postings are
// answered by them.
func TestPostings_AcrossARestart(t *testing.T) {
	dir := t.TempDir()
	opts := small() // chunks of 300
	e := mustOpen(t, dir, opts, nil)
	logtest.MustAppend(t, e.log, lines(1, 1000)...) // 3 whole chunks and 100 of the fourth
	last := e.db.Stats().LastID
	logtest.Eventually(t, 20*time.Second, "every record's set on disk", func() bool {
		s := e.idx.Status()
		return s.IndexedThrough == last && s.SegmentsThrough == last
	})
	queries := []string{"needle", "needle haystack", `"the needle"`, "-needle", "rendered -needle", "level:error", "nee*", "frame OR needle", "name:Physics -level:error"}
	check := func(stage string) {
		t.Helper()
		eval := openLagging(t, e, dir, "evaluated-"+stage, 300)
		for _, s := range queries {
			q := oplog.SearchQuery{Query: s}
			want, err := eval.Search(context.Background(), &q, 0, 5000)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.idx.Search(context.Background(), &q, 0, 5000)
			if err != nil || !slices.Equal(got.IDs, want.IDs) || got.Total != want.Total {
				t.Fatalf("%s: `%s`: %d hits %v (total %d, %v), the predicate on every record %d %v", stage, s, len(got.IDs), clipIDs(got.IDs), got.Total, err, len(want.IDs), clipIDs(want.IDs))
			}
		}
	}
	before := e.idx.PostedChunks()
	check("built")
	if n := e.idx.PostedChunks() - before; n != uint64(4*len(queries)) {
		t.Fatalf("%d chunks searched on their postings, want all 4 by each of %d queries", n, len(queries))
	}
	e = e.reopen()
	e.idx.SetPostings(false)
	check("reopened, on the sets")
	e.idx.SetPostings(true)
	logtest.Eventually(t, 20*time.Second, "the stored chunks' postings built again", func() bool { return e.idx.StoredPostings() == 3 })
	before = e.idx.PostedChunks()
	check("reopened")
	if n := e.idx.PostedChunks() - before; n != uint64(3*len(queries)) {
		t.Fatalf("%d chunks searched on their postings, want the 3 stored ones by each of %d queries (the growing one was read back without)", n, len(queries))
	}
	logtest.MustAppend(t, e.log, lines(1001, 250)...) // the fourth chunk whole, 50 into the fifth
	e.waitIndexed()
	logtest.Eventually(t, 20*time.Second, "the fourth chunk's postings built whole", func() bool { return e.idx.StoredPostings() == 4 })
	before = e.idx.PostedChunks()
	check("grown")
	if n := e.idx.PostedChunks() - before; n != uint64(5*len(queries)) {
		t.Fatalf("%d chunks searched on their postings, want all 5 by each of %d queries", n, len(queries))
	}
}

// TestPostings_Budget keeps no stored chunk's postings over the budget,
// and searches stay exact.
func TestPostings_Budget(t *testing.T) {
	t.Cleanup(search.SetMaxPostBytes(0)) // restored after the index is closed
	dir := t.TempDir()
	e := mustOpen(t, dir, small(), nil)
	logtest.MustAppend(t, e.log, lines(1, 1000)...)
	last := e.db.Stats().LastID
	logtest.Eventually(t, 20*time.Second, "every record's set on disk", func() bool {
		s := e.idx.Status()
		return s.IndexedThrough == last && s.SegmentsThrough == last
	})
	h, err := e.idx.Search(context.Background(), &oplog.SearchQuery{Query: "needle"}, 0, 5000)
	if err != nil || h.Total != 1000/7 {
		t.Fatalf("needle: %d hits (%v), want %d", h.Total, err, 1000/7)
	}
	if n := e.idx.PostedChunks(); n != 1 {
		t.Fatalf("%d chunks searched on their postings, want the growing one only", n)
	}
}
