package search_test

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	zap "github.com/mcplogd/mcplogd/third_party/zapx"
)

// appendApart appends n lines from 0 in appends of 100, each indexed
// before the next, so that every segment is written in several files.

// lazyMerges makes scorch's merger leave up to 1,000 files of a tier, with
// no floor (files smaller than it are merged at once) until the returned
// func runs.
func lazyMerges() (restore func()) {
	return search.SetScorchTuning(map[string]any{"scorchMergePlanOptions": map[string]any{
		"MaxSegmentsPerTier": 1000, "MaxSegmentSize": 5_000_000, "TierGrowth": 10.0,
		"SegmentsPerMergeTask": 10, "FloorSegmentSize": 1, "FloorSegmentFileSize": 1, "ReclaimDeletesWeight": 2.0}})
}
func appendApart(e *env, n int) {
	for from := 0; from < n; from += 100 {
		logtest.MustAppend(e.t, e.log, lines(from, 100)...)
		e.waitIndexed()
	}
}

// TestIndex_Compact_SealedSegments: a segment whose every ID is indexed is
// merged into one file (and not without compaction, written the same way
// with a merger that leaves them), and searches answer the same after.
func TestIndex_Compact_SealedSegments(t *testing.T) {
	defer lazyMerges()()
	t.Run("Off", func(t *testing.T) {
		t.Cleanup(search.SetCompactSealed(false)) // restored after the index below is closed
		e := mustOpen(t, t.TempDir(), small(), nil)
		appendApart(e, 3500)
		if _, _, _, err := e.idx.Settle(30 * time.Second); err != nil {
			t.Fatal(err)
		}
		if files := e.idx.SegmentFiles(); files[1] < 2 {
			t.Fatalf("without compaction the first segment is in %d files, want several (the test writes it so): %v", files[1], files)
		}
	})
	t.Run("OK", func(t *testing.T) {
		e := mustOpen(t, t.TempDir(), small(), nil)
		appendApart(e, 3500)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for {
			files := e.idx.SegmentFiles()
			if files[1] == 1 && files[1001] == 1 && files[2001] == 1 {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("sealed segments not merged into one file each: %v", files)
			case <-time.After(20 * time.Millisecond):
			}
		}
		e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
		e.check(oplog.SearchQuery{Query: "-needle", Limit: 500}, func(r *oplog.Record) bool { return !hasNeedle(r) })
		before := maps.Clone(e.idx.SegmentFiles())
		e = e.reopen() // merged again once opened: nothing to do
		e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
		if _, _, _, err := e.idx.Settle(30 * time.Second); err != nil {
			t.Fatal(err)
		}
		if files := e.idx.SegmentFiles(); files[1] != 1 || files[2001] != 1 {
			t.Fatalf("files after reopening: %v, before %v", files, before)
		}
	})
}

// TestIndex_SkipFreqNorm: text and the few-valued keyword fields (template's
// buckets among them) are indexed without frequencies (0).
func TestIndex_SkipFreqNorm(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 50)...)
	e.waitIndexed()
	for _, tt := range []struct {
		field, term string
		want        uint64
	}{
		{"text", "needle", 0},
		{"name", "Render", 0},
		{"template", oplog.TextTemplateID("found the needle in haystack 7")[:3], 0},
	} {
		freq, found, err := e.idx.TermFrequency(tt.field, tt.term)
		if err != nil || !found || freq != tt.want {
			t.Errorf("%s:%s: frequency %d (found %v, %v), want %d", tt.field, tt.term, freq, found, err, tt.want)
		}
	}
}

// TestIndex_Open_FreqNormMigration opens an index written with
// frequencies (mapping version 8): it is rebuilt without them, and
// searches answer the same while it is and after.
func TestIndex_Open_FreqNormMigration(t *testing.T) {
	restore := search.SetFieldOptions(index.IndexField, index.IndexField)
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 2500)...)
	e.waitIndexed()
	if freq, _, err := e.idx.TermFrequency("text", "needle"); err != nil || freq != 1 {
		t.Fatalf("written as version 8: frequency %d, %v", freq, err)
	}
	e.close()
	restore()
	setMappingVersion(t, e.dir, 8)
	e = e.reopen()
	if s := e.idx.Status(); s.SegmentsThrough != 0 || s.State != "rebuilding" {
		t.Fatalf("an index of mapping version 8 must start over: %+v", s)
	}
	q := oplog.SearchQuery{Query: "needle AND name:Render", Limit: 500}
	keep := func(r *oplog.Record) bool { return hasNeedle(r) && r.Name == "Render" }
	e.check(q, keep)
	e.waitIndexed()
	e.check(q, keep)
	if freq, found, err := e.idx.TermFrequency("text", "needle"); err != nil || !found || freq != 0 {
		t.Fatalf("rebuilt: frequency %d (found %v), %v, want 0", freq, found, err)
	}
	e = e.reopen()
	e.check(q, keep)
}

// TestIndex_ZeroFrequenciesNotWritten: a term of a field indexed without
// frequencies is written without its frequency bytes (one zero byte a
// posting, see third_party/zapx/MCPLOGD.md), and such a term of one
// document as its dictionary entry alone, in the files of new segments and
// of merges; searches answer as the records say after the merges. A field
// indexed with frequencies keeps them.
func TestIndex_ZeroFrequenciesNotWritten(t *testing.T) {
	// encodings returns how the files of the index in dir wrote term, in
	// those that hold it.
	encodings := func(t *testing.T, dir string, field, term string) map[string]int {
		t.Helper()
		files, err := filepath.Glob(filepath.Join(dir, "index", "*", "store", "*.zap"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no segment files (%v)", err)
		}
		got := map[string]int{}
		for _, f := range files {
			s, err := (&zap.ZapPlugin{}).Open(f)
			if err != nil {
				t.Fatal(err)
			}
			d, err := s.Dictionary(field)
			if err != nil {
				t.Fatal(err)
			}
			pl, err := d.PostingsList([]byte(term), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p, ok := pl.(*zap.PostingsList); ok && p.Count() > 0 {
				got[p.Encoding()]++
			}
			_ = s.Close()
		}
		return got
	}
	for _, tt := range []struct {
		name        string
		frequencies bool
		want        map[[2]string]string // field, term: its encoding in every file
	}{
		{"SkipFreqNorm", false, map[[2]string]string{
			{"text", "needle"}: "postings without frequencies",
			{"name", "Render"}: "postings without frequencies",
			{"text", "1234"}:   "1-hit", // one line: "frame 1234 rendered"
		}},
		{"WithFrequencies", true, map[[2]string]string{
			{"text", "needle"}: "postings",
			{"name", "Render"}: "postings",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.frequencies {
				t.Cleanup(search.SetFieldOptions(index.IndexField, index.IndexField))
			}
			restore := lazyMerges()
			e := mustOpen(t, t.TempDir(), small(), nil)
			appendApart(e, 2500) // two sealed segments of several files, merged into one each
			if _, _, _, err := e.idx.Settle(30 * time.Second); err != nil {
				t.Fatal(err)
			}
			q := oplog.SearchQuery{Query: "(needle AND name:Render) OR 1234", Limit: 500}
			keep := func(r *oplog.Record) bool {
				return hasNeedle(r) && r.Name == "Render" || strings.Contains(r.Text, " 1234 ")
			}
			e.check(q, keep)
			e.close()
			restore()
			for ft, want := range tt.want {
				if got := encodings(t, e.dir, ft[0], ft[1]); len(got) != 1 || got[want] == 0 {
					t.Errorf("%s:%s: written as %v (files), want %q in every file", ft[0], ft[1], got, want)
				}
			}
			e = e.reopen()
			e.check(q, keep)
		})
	}
}
