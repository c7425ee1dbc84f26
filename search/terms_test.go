package search_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// heldStore holds every Tail of limit records (the bleve indexer's steps;
// more than the term sets' builder reads at a time) until release closes:
// the segments lag for as long as a test wants, while other reads go on.
type heldStore struct {
	oplog.Store
	limit   int
	release chan struct{}
}

func (h *heldStore) Tail(q oplog.TailQuery) (oplog.Tail, error) {
	if q.Limit == h.limit {
		<-h.release
	}
	return h.Store.Tail(q)
}

// heldIndex opens a store, a log and an index with chunks of tailChunk IDs
// whose segments stay behind until release is called (at cleanup at the
// latest), while the term sets are built.
func heldIndex(t *testing.T, tailChunk uint64) (*store.DB, *oplog.Log, *search.Index, func()) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "log.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	hs := &heldStore{Store: db, limit: 1500, release: make(chan struct{})}
	var once sync.Once
	release := func() { once.Do(func() { close(hs.release) }) }
	idx, err := search.Open(filepath.Join(dir, "index"), hs, &search.Options{BatchSize: 1500, TailChunk: tailChunk,
		Changed: l.Changed, Completed: l.CompletedSince, Interval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	l.SetIndex(idx)
	t.Cleanup(func() { release(); _ = l.Close() })
	return db, l, idx, release
}

// TestTerms_BuiltInTheBackground: with bleve held back, the term sets
// take every appended record within moments (Status counts them as
// indexed, SegmentLag as not in a segment), a search for a rare word skips
// the chunks whose sets lack it and finds it, and once the segments catch
// up the sets are dropped.
func TestTerms_BuiltInTheBackground(t *testing.T) {
	db, l, idx, release := heldIndex(t, 500)

	recs := lines(1, 5000)
	recs[4321].Text = "the one zanzibarite line"
	logtest.MustAppend(t, l, recs...)
	last := db.Stats().LastID
	logtest.Eventually(t, 20*time.Second, "every record in a term set", func() bool {
		return idx.Status().IndexedThrough == last
	})
	if s := idx.Status(); s.Lag != 0 || s.SegmentsThrough != 0 || s.SegmentLag != last {
		t.Fatalf("status with the segments held back: %+v; want lag 0, segment lag %d", s, last)
	}
	skipped := idx.SkippedChunks()
	h, err := idx.Search(context.Background(), &oplog.SearchQuery{Query: "zanzibarite"}, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.IDs) != 1 || h.IDs[0] != recs[4321].ID || !h.TotalExact || h.Total != 1 {
		t.Fatalf("zanzibarite: %+v, want only #%d", h, recs[4321].ID)
	}
	if got := idx.SkippedChunks() - skipped; got != 9 {
		t.Fatalf("the search skipped %d chunks, want 9 of the 10", got)
	}
	if n := idx.TermSetChunks(); n != 10 {
		t.Fatalf("%d chunks have term sets, want 10", n)
	}

	release()
	logtest.Eventually(t, 30*time.Second, "the segments caught up and the term sets dropped", func() bool {
		return idx.Status().SegmentsThrough == last && idx.TermSetChunks() == 0
	})
	if s := idx.Status(); s.IndexedThrough != last || s.Lag != 0 || s.SegmentLag != 0 {
		t.Fatalf("status caught up: %+v", s)
	}
}

// TestTerms_BoundedInBytes: records of many distinct words (hex blobs)
// fill the term sets' byte budget; the sets stop there (Status shows the
// rest as lag), searches stay exact past it, and once the segments catch
// up the sets are dropped.
func TestTerms_BoundedInBytes(t *testing.T) {
	t.Cleanup(search.SetMaxTermSetBytes(256 << 10)) // restored after the index below is closed
	db, l, idx, release := heldIndex(t, 100)

	recs := make([]oplog.Record, 2000)
	for i := range recs {
		var b strings.Builder
		for w := range 40 {
			fmt.Fprintf(&b, "%x ", uint64(i)*1_000_003+uint64(w)*7_919)
		}
		recs[i] = oplog.Record{Level: oplog.LevelInfo, Text: b.String()}
	}
	recs[1990].Text += " zanzibarite"
	logtest.MustAppend(t, l, recs...)
	last := db.Stats().LastID
	logtest.Eventually(t, 20*time.Second, "the term sets at their budget", func() bool {
		s := idx.Status()
		return s.IndexedThrough > 0 && idx.TermSetBytes() > 256<<10
	})
	if n, err := idx.BuildTerms(); err != nil || n != 0 {
		t.Fatalf("past the budget the builder added %d records (%v)", n, err)
	}
	s := idx.Status()
	if s.IndexedThrough >= last || s.Lag == 0 || s.SegmentsThrough != 0 {
		t.Fatalf("status past the budget: %+v; want some records outside the sets", s)
	}
	if b := idx.TermSetBytes(); b > 256<<10+200_000 {
		t.Fatalf("term sets hold %d bytes, budget %d", b, 256<<10)
	}
	h, err := idx.Search(context.Background(), &oplog.SearchQuery{Query: "zanzibarite"}, 0, 10)
	if err != nil || len(h.IDs) != 1 || h.IDs[0] != recs[1990].ID {
		t.Fatalf("zanzibarite: %+v, %v; want #%d", h, err, recs[1990].ID)
	}
	release()
	logtest.Eventually(t, 30*time.Second, "the segments caught up and the term sets dropped", func() bool {
		return idx.Status().SegmentsThrough == last && idx.TermSetChunks() == 0 && idx.TermSetBytes() == 0
	})
}
