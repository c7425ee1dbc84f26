package search_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestTerms_BuiltAndStored: the term sets take every appended record
// within moments, each whole chunk's set goes to the sets file and the
// growing chunk's too once they caught up, a search for a rare word skips
// the chunks whose sets lack it and finds it, and a restart reads the
// sets back, building none again.
func TestTerms_BuiltAndStored(t *testing.T) {
	dir := t.TempDir()
	opts := small()
	opts.TailChunk = 500
	e := mustOpen(t, dir, opts, nil)
	recs := lines(1, 5200)
	recs[4321].Text = "the one zanzibarite line"
	added := logtest.MustAppend(t, e.log, recs...)
	last := e.db.Stats().LastID
	logtest.Eventually(t, 20*time.Second, "every record in a stored set", func() bool {
		s := e.idx.Status()
		return s.IndexedThrough == last && s.SegmentsThrough == last
	})
	find := func() {
		t.Helper()
		skipped := e.idx.SkippedChunks()
		h, err := e.idx.Search(context.Background(), &oplog.SearchQuery{Query: "zanzibarite"}, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.IDs) != 1 || h.IDs[0] != added[4321].ID || !h.TotalExact || h.Total != 1 {
			t.Fatalf("zanzibarite: %+v, want only #%d", h, added[4321].ID)
		}
		if got := e.idx.SkippedChunks() - skipped; got != 10 {
			t.Fatalf("the search skipped %d chunks, want 10 of the 11", got)
		}
	}
	find()
	if s := e.idx.Status(); s.Segments != 10 || s.Lag != 0 || s.SegmentLag != 0 || e.idx.TermSetChunks() != 1 {
		t.Fatalf("status caught up: %+v, %d growing sets; want 10 complete sets stored and the growing one", s, e.idx.TermSetChunks())
	}
	e = e.reopen()
	if s := e.idx.Status(); s.Segments != 10 || s.IndexedThrough != last || s.SegmentsThrough != last || s.State != "idle" {
		t.Fatalf("reopened: %+v; want the 10 sets read back, nothing to build", s)
	}
	find()
}
