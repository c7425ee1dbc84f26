package search_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/querytest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// TestIndex_Search_Semantics: every tree of the query language
// (querytest.Cases, one for each of ql.Samples) finds exactly the records
// written out for it, however the index holds them: as a server runs it,
// with no set (the predicate on every record, eval.go), behind growing
// term sets of one record a chunk (terms_pred.go: a set that rules out a
// record that matches loses it) and behind stored ones, read back from the
// sets file, each with the chunks' postings (postings_pred.go) and
// without. TestCompilers_EverySample proves that every node
// compiles; this, that the compilations agree with what the node means.
func TestIndex_Search_Semantics(t *testing.T) {
	dir := t.TempDir()
	e := mustOpen(t, dir, small(), nil)
	// Opened on the empty store with no wake-ups, these two never index:
	// one evaluates every record, the other skips chunks by their term sets.
	lag, sets := openLagging(t, e, dir, "lagging", 300), openLagging(t, e, dir, "sets", 1)
	recs := logtest.MustAppend(t, e.log, querytest.Records()...)
	for i, r := range recs {
		if r.ID != uint64(i+1) {
			t.Fatalf("record %d got ID %d; the cases name records by their place", i+1, r.ID)
		}
	}
	e.waitIndexed()
	buildTerms(t, sets)
	if n := sets.TermSetChunks(); n != len(recs) {
		t.Fatalf("%d chunks with term sets, want one a record, %d", n, len(recs))
	}
	if lag.Status().SegmentsThrough != 0 || sets.Status().SegmentsThrough != 0 {
		t.Fatalf("the lagging indexes indexed: %+v, %+v", lag.Status(), sets.Status())
	}
	stored := openStored(t, e, dir, "stored", 2)
	if s := stored.Status(); s.Segments != len(recs)/2 {
		t.Fatalf("%d sets stored, want %d", s.Segments, len(recs)/2)
	}
	indexes := []struct {
		name string
		x    *search.Index
	}{{"index", e.idx}, {"evaluated", lag}, {"growing sets", sets}, {"stored sets", stored}}
	for _, post := range []bool{true, false} {
		for _, c := range querytest.Cases(t) {
			for _, ix := range indexes {
				ix.x.SetPostings(post)
				h, err := ix.x.Search(context.Background(), &c.Query, 0, 100)
				got := slices.Clone(h.IDs)
				slices.Reverse(got) // newest first: reversed, the order of Want
				if err != nil || h.More || !slices.Equal(got, c.Want) {
					t.Errorf("%s (postings %v): %s as %s: %v (%v), want %v", ix.name, post, c.Sample, describe(c.Query), got, err, c.Want)
				}
			}
		}
		if post && (sets.PostedChunks() == 0 || stored.PostedChunks() == 0) {
			t.Errorf("no search read a chunk's postings: growing %d, stored %d", sets.PostedChunks(), stored.PostedChunks())
		}
	}
	if sets.SkippedChunks() == 0 {
		t.Error("no search skipped a chunk by its term set: the sets were not asked")
	}
}

// describe writes a case's search: its query string, or its filter.
func describe(q oplog.SearchQuery) string {
	if q.Query != "" {
		return "`" + q.Query + "`"
	}
	return "no query string (filter)"
}
