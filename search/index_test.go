package search_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// env is a Log over a real bbolt file with a real bleve index beside it.
type env struct {
	t      *testing.T
	dir    string
	log    *oplog.Log
	db     *store.DB
	idx    *search.Index
	opts   search.Options
	sopts  *store.Options
	closed bool
}

// mustOpen opens (or reopens) the store and index in dir.
func mustOpen(t *testing.T, dir string, opts search.Options, sopts *store.Options) *env {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "log.db"), sopts)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	l := oplog.New(db, nil)
	if opts.Interval < time.Hour {
		opts.Changed = l.Changed
	}
	if opts.Completed == nil {
		opts.Completed = l.CompletedSince
	}
	idx, err := search.Open(filepath.Join(dir, "index"), db, &opts)
	if err != nil {
		_ = db.Close()
		t.Fatalf("open index: %v", err)
	}
	l.SetIndex(idx)
	if opts.Interval >= time.Hour {
		// The indexer looks at the log once at Open, then not for an
		// hour: records appended once it looked stay above the watermark.
		if err := waitFor(func() bool { return idx.Steps() > 0 }); err != nil {
			t.Fatalf("the indexer never looked at the log: %v", err)
		}
	}
	e := &env{t: t, dir: dir, log: l, db: db, idx: idx, opts: opts, sopts: sopts}
	t.Cleanup(e.close)
	return e
}

func (e *env) close() {
	if !e.closed {
		e.closed = true
		if err := e.log.Close(); err != nil {
			e.t.Errorf("close: %v", err)
		}
	}
}

// reopen closes e and opens its directory again.
func (e *env) reopen() *env {
	e.t.Helper()
	e.close()
	return mustOpen(e.t, e.dir, e.opts, e.sopts)
}

// openLagging opens, over e's store (opened in dir), an index that never
// indexes (no wake-ups, a two-hour interval): every search of it
// evaluates the records above its empty watermark (eval.go), skipping by
// the chunks' term sets of chunk IDs once they are built (buildTerms).
func openLagging(t *testing.T, e *env, dir, name string, chunk uint64) *search.Index {
	t.Helper()
	x, err := search.Open(filepath.Join(dir, name), e.db, &search.Options{TailChunk: chunk, Interval: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close() })
	return x
}

// openStored opens an index of chunks of chunk IDs in dir/name over e's
// store and waits until every whole chunk's set is in its sets file.
func openStored(t *testing.T, e *env, dir, name string, chunk uint64) *search.Index {
	t.Helper()
	x, err := search.Open(filepath.Join(dir, name), e.db, &search.Options{TailChunk: chunk, Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close() })
	last := e.db.Stats().LastID
	logtest.Eventually(t, 30*time.Second, "every whole chunk's set stored", func() bool {
		s := x.Status()
		return s.SegmentsThrough == last && s.IndexedThrough == last
	})
	return x
}

// buildTerms builds x's term sets until none is left to build.
func buildTerms(t *testing.T, x *search.Index) {
	t.Helper()
	for {
		n, err := x.BuildTerms()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// small makes chunks small so that tests cross many of them.
func small() search.Options {
	return search.Options{TailChunk: 300, Interval: 20 * time.Millisecond}
}

// lines returns n lines; every 7th says "needle", every 3rd is an error of Physics.
func lines(from, n int) []oplog.Record {
	recs := make([]oplog.Record, n)
	for i := range recs {
		k := from + i
		r := oplog.Record{Level: oplog.LevelInfo, Name: "Render", Text: fmt.Sprintf("frame %d rendered", k)}
		if k%7 == 0 {
			r.Text = fmt.Sprintf("found the needle in haystack %d", k)
		}
		if k%3 == 0 {
			r.Level, r.Name = oplog.LevelError, "Physics"
			r.Stack = "panic in physics step\n  at Step () in Physics.cs:42"
		}
		recs[i] = r
	}
	return recs
}

// all pages through q and returns every hit's ID, failing on a repeat.
func (e *env) all(q oplog.SearchQuery) []uint64 {
	e.t.Helper()
	var ids []uint64
	seen := map[uint64]bool{}
	for page := 0; ; page++ {
		p, err := e.log.Search(context.Background(), q)
		if err != nil {
			e.t.Fatalf("search %q page %d: %v", q.Query, page, err)
		}
		for i, h := range p.Hits {
			if seen[h.Record.ID] {
				e.t.Fatalf("search %q: record %d twice", q.Query, h.Record.ID)
			}
			if i > 0 && h.Record.ID >= p.Hits[i-1].Record.ID {
				e.t.Fatalf("search %q: not newest first: %d after %d", q.Query, h.Record.ID, p.Hits[i-1].Record.ID)
			}
			seen[h.Record.ID] = true
			ids = append(ids, h.Record.ID)
		}
		if p.NextCursor == "" {
			return ids
		}
		q.Cursor = p.NextCursor
	}
}

// want returns the IDs (newest first) of the stored records that keep says match.
func (e *env) want(keep func(r *oplog.Record) bool) []uint64 {
	e.t.Helper()
	var ids []uint64
	tl, err := e.db.Tail(oplog.TailQuery{HasSince: true, Limit: 1 << 30})
	if err != nil {
		e.t.Fatal(err)
	}
	for i := range tl.Lines {
		if keep(&tl.Lines[i]) {
			ids = append(ids, tl.Lines[i].ID)
		}
	}
	slices.Reverse(ids)
	return ids
}

func hasNeedle(r *oplog.Record) bool { return strings.Contains(r.Text, "needle") }

func (e *env) check(q oplog.SearchQuery, keep func(r *oplog.Record) bool) {
	e.t.Helper()
	got, want := e.all(q), e.want(keep)
	if !slices.Equal(got, want) {
		var missing []uint64
		for _, id := range want {
			if !slices.Contains(got, id) {
				missing = append(missing, id)
			}
		}
		e.t.Fatalf("search %q: %d hits, want %d; missing %v", q.Query, len(got), len(want), head(missing))
	}
}

type syncBuffer = logtest.Buffer

func head(ids []uint64) []uint64 { return ids[:min(len(ids), 20)] }

func (e *env) waitIndexed() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.idx.WaitIndexed(ctx, e.db.Stats().LastID, nil); err != nil {
		e.t.Fatalf("index did not catch up: %v (%+v)", err, e.idx.Status())
	}
}

func TestIndex_Search_ExactWhileIndexerLags(t *testing.T) {
	// An interval of an hour and no wake-ups: the indexer runs once at
	// Open, on an empty log, so everything is matched above the watermark.
	opts := small()
	opts.Interval = 2 * time.Hour
	e := mustOpen(t, t.TempDir(), opts, nil)
	logtest.MustAppend(t, e.log, lines(0, 10_000)...)
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	e.check(oplog.SearchQuery{Query: `name:Physics AND level:error "needle in"`, Limit: 97}, func(r *oplog.Record) bool {
		return hasNeedle(r) && r.Name == "Physics"
	})
	e.check(oplog.SearchQuery{Query: "physics", Limit: 500}, func(r *oplog.Record) bool { return r.Stack != "" })
	if s := e.idx.Status(); s.SegmentsThrough != 0 || s.SegmentLag != 10_000 {
		t.Fatalf("the indexer ran: %+v", s)
	}
	e.opts = small()
	e = e.reopen()
	e.waitIndexed()
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	// Half indexed, half not.
	logtest.MustAppend(t, e.log, lines(10_000, 3_000)...)
	e.check(oplog.SearchQuery{Query: "needle", Filter: oplog.Filter{MinLevel: oplog.LevelError}, Limit: 333}, func(r *oplog.Record) bool {
		return hasNeedle(r) && r.Level >= oplog.LevelError
	})
}

func TestIndex_Search_CursorWhileAppending(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 3000)...)
	want := e.want(hasNeedle)
	q := oplog.SearchQuery{Query: "needle", Limit: 37}
	var got []uint64
	seen := map[uint64]bool{}
	for n := 0; ; n++ {
		p, err := e.log.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range p.Hits {
			if seen[h.Record.ID] {
				t.Fatalf("record %d twice", h.Record.ID)
			}
			seen[h.Record.ID] = true
			got = append(got, h.Record.ID)
		}
		if p.NextCursor == "" {
			break
		}
		q.Cursor = p.NextCursor
		logtest.MustAppend(t, e.log, lines(3000+n*100, 100)...) // newer needles must not show up in older pages
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %d hits, want %d", len(got), len(want))
	}
}

func TestIndex_Open_RebuildsMissingIndex(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 4000)...)
	e.waitIndexed()
	e.close()
	if err := os.RemoveAll(filepath.Join(e.dir, "index")); err != nil {
		t.Fatal(err)
	}
	e = e.reopen()
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	e.waitIndexed()
	waitSets(t, e, 13) // 4,000 records: 13 whole chunks of 300
	if s := e.idx.Status(); s.SegmentsThrough < 3900 || s.Lag != 0 {
		t.Fatalf("status after rebuild: %+v", s)
	}
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
}

// waitSets waits until the sets file holds n sets.
func waitSets(t *testing.T, e *env, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for e.idx.Status().Segments != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d sets written, want %d: %+v", e.idx.Status().Segments, n, e.idx.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestIndex_Open_RebuildsFromADamagedSet damages the sets file in the
// middle (one flipped bit) and at its end (a torn frame): Open keeps the
// sets before the damage, builds the others again, and searches stay exact
// throughout.
func TestIndex_Open_RebuildsFromADamagedSet(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 4000)...)
	e.waitIndexed()
	waitSets(t, e, 13)
	e.close()
	path := filepath.Join(e.dir, "index", "sets")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	e.opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	e = e.reopen()
	if !strings.Contains(logs.String(), "rebuilding the term sets") || !strings.Contains(logs.String(), "checksum") {
		t.Fatalf("the damaged set was not reported: %s", logs.String())
	}
	m := regexp.MustCompile(`id=(\d+)`).FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("no record to rebuild from in %s", logs.String())
	}
	if from, _ := strconv.Atoi(m[1]); from < 300 || from > 3900 || (from-1)%300 != 0 {
		t.Fatalf("after a flipped bit in the middle, the sets are rebuilt from %d; want the first of a chunk after some kept", from)
	}
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	e.waitIndexed()
	waitSets(t, e, 13)
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	e.close()
	if err := os.Truncate(path, fileSize(t, path)-5); err != nil { // the growing chunk's set, torn by a crash
		t.Fatal(err)
	}
	var logs2 syncBuffer
	e.opts.Logger = slog.New(slog.NewTextHandler(&logs2, nil))
	e = e.reopen()
	if !strings.Contains(logs2.String(), "rebuilding the term sets") || !strings.Contains(logs2.String(), "id=3901") {
		t.Fatalf("after a torn last frame: %s; want the growing chunk's set built again from 3901", logs2.String())
	}
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	waitSets(t, e, 13)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestIndex_Open_RemovesTheOlderIndex opens a data directory whose index
// an older mcplogd wrote (bleve's meta.json and segment directories):
// they are removed and the term sets built from the log, searches exact
// meanwhile.
func TestIndex_Open_RemovesTheOlderIndex(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 2500)...)
	e.waitIndexed()
	e.close()
	idx := filepath.Join(e.dir, "index")
	if err := os.RemoveAll(filepath.Join(idx, "sets")); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(idx, "seg-00000000000000000001")
	if err := os.MkdirAll(seg, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(idx, "meta.json"), filepath.Join(seg, "000000000001.zap")} {
		if err := os.WriteFile(f, []byte(`{"mappingVersion":13}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e = e.reopen()
	if s := e.idx.Status(); s.SegmentsThrough != 0 || s.State != "rebuilding" {
		t.Fatalf("an older index must be built again: %+v", s)
	}
	for _, f := range []string{seg, filepath.Join(idx, "meta.json")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("%s is still there (%v)", f, err)
		}
	}
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	e.waitIndexed()
	waitSets(t, e, 8)
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
}

// TestIndex_Retention_DropsSets checks that the sets of the chunks
// retention emptied are dropped, and that the sets file is rewritten
// without them, and read back.
func TestIndex_Retention_DropsSets(t *testing.T) {
	t.Cleanup(search.SetMinRewriteBytes(0)) // restored after the index is closed
	e := mustOpen(t, t.TempDir(), small(), &store.Options{MaxRecords: 1500})
	for i := range 5 {
		logtest.MustAppend(t, e.log, lines(i*1000, 1000)...)
	}
	e.waitIndexed()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		logtest.MustAppend(t, e.log, lines(0, 1)...) // wakes the indexer, which drops what retention emptied
		e.waitIndexed()
		if s := e.idx.Status(); s.Segments <= 6 && e.db.Stats().Records <= 1500 { // (retention trims in the background)
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("sets not dropped: %+v, store %+v", e.idx.Status(), e.db.Stats())
		case <-time.After(10 * time.Millisecond):
		}
	}
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	kept := e.idx.Status().Segments
	e = e.reopen()
	if s := e.idx.Status(); s.Segments != kept || s.SegmentsThrough < e.db.Stats().LastID/300*300 {
		t.Fatalf("reopened after the sets file was rewritten: %+v; want the %d sets kept", s, kept)
	}
	// Rewritten once the dropped sets outweigh the kept: at most as many
	// dropped as kept, and the growing chunk's.
	if n, err := search.SetsFileFrames(filepath.Join(e.dir, "index")); err != nil || n > 2*kept+1 {
		t.Fatalf("the sets file holds %d sets (%v), %d kept: not rewritten without the dropped ones", n, err, kept)
	}
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
}

// A chunk retention emptied before the indexer reached it is never in the
// sets file: the sets after it follow the retained records, not a gap.
// The sets file below holds chunks 0-9 (dropped, not yet rewritten out),
// then 11 on; chunk 10 was emptied while the index was closed.
func TestIndex_Retention_ChunkEmptiedUnwritten(t *testing.T) {
	t.Cleanup(search.SetMinRewriteBytes(1 << 40)) // never rewritten: the dropped sets stay before the gap
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 3000)...)
	e.waitIndexed()
	if err := waitFor(func() bool { return e.idx.Status().Segments == 10 }); err != nil {
		t.Fatalf("chunks 0-9 not written: %+v", e.idx.Status())
	}
	e.close()
	sopts := &store.Options{MaxRecords: 1500}
	db, err := store.Open(filepath.Join(e.dir, "log.db"), sopts)
	if err != nil {
		t.Fatal(err)
	}
	logtest.MustAppend(t, oplog.New(db, nil), lines(3000, 2000)...) // records 3001-5000: retention keeps 3501 on
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	e = mustOpen(t, e.dir, e.opts, sopts)
	e.waitIndexed()
	if err := waitFor(func() bool { return e.idx.Status().Segments == 5 }); err != nil {
		t.Fatalf("chunks 11-15 not written: %+v", e.idx.Status())
	}
	e = e.reopen()
	if s := e.idx.Status(); s.Segments != 5 || s.SegmentsThrough != 5000 || s.State == oplog.IndexRebuilding {
		t.Fatalf("reopened over sets of chunks 0-9 and 11-15: %+v; want 11-15 kept", s)
	}
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
}

func TestIndex_Search_OperationCompletedAfterIndexing(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	op := logtest.MustAppend(t, e.log, oplog.Record{Tool: "run_lua", Arguments: []byte(`{"code":"x"}`)})[0]
	logtest.MustAppend(t, e.log, lines(0, 50)...)
	e.waitIndexed()
	q := oplog.SearchQuery{Query: "status:error"}
	if got := e.all(q); len(got) != 0 {
		t.Fatalf("pending op matched status:error: %v", got)
	}
	if _, err := e.log.Complete(context.Background(), op.ID, oplog.Completion{Error: "boom"}); err != nil {
		t.Fatal(err)
	}
	if got := e.all(q); !slices.Equal(got, []uint64{op.ID}) {
		t.Fatalf("completed op: got %v, want [%d]", got, op.ID)
	}
	e = e.reopen()
	if got := e.all(q); !slices.Equal(got, []uint64{op.ID}) {
		t.Fatalf("after reopen: got %v, want [%d]", got, op.ID)
	}
}

func TestIndex_Search_SyntaxError(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	_, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: `level:error AND (name:Physics`})
	if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(oplog.ErrorMessage(err), "query:") {
		t.Fatalf("got %v", err)
	}
	_, err = e.log.Search(context.Background(), oplog.SearchQuery{Query: `bogus:x`})
	if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(oplog.ErrorMessage(err), "unknown field") {
		t.Fatalf("got %v", err)
	}
	t.Log(oplog.ErrorMessage(func() error {
		_, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: `name:Physics AND ) level:error`})
		return err
	}()))
}

// TestIndex_Search_TimeRange checks since/until against the store's own
// filter, with writer times out of ID order across chunk bounds (so that
// chunks are skipped by their sets' spans, searched whole and searched
// with the range), in growing sets, stored ones and after a reopen that
// reads the spans from the sets file.
func TestIndex_Search_TimeRange(t *testing.T) {
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	timed := func(from, n int) []oplog.Record {
		recs := lines(from, n)
		for i := range recs {
			k := from + i
			recs[i].Time = base.Add(time.Duration(k) * time.Second)
			if k%10 == 3 {
				recs[i].Time = recs[i].Time.Add(-1700 * time.Second) // a late writer, segments back
			}
			if k%97 == 0 {
				recs[i].Time = recs[i].Time.Add(2500 * time.Second) // a fast clock
			}
		}
		return recs
	}
	at := func(k int) time.Time { return base.Add(time.Duration(k) * time.Second) }
	ranges := []oplog.Filter{
		{Since: at(1200), Until: at(1500)},
		{Since: at(0), Until: at(1000)},
		{Since: at(2000)},
		{Until: at(700)},
		{Since: at(-1700), Until: at(-1000)},
		{Since: at(3300), Until: at(3301)},
		{Since: at(4999), Until: at(8000)},
		{Since: at(1), Until: at(9999)},
		{Since: at(2500).Add(time.Nanosecond), Until: at(2999)},
		{Since: at(7000), Until: at(9000)},
	}
	checkAll := func(e *env) {
		t.Helper()
		for _, f := range ranges {
			e.check(oplog.SearchQuery{Query: "needle", Filter: f, Limit: 41}, func(r *oplog.Record) bool {
				return hasNeedle(r) && f.Match(r)
			})
			lf := f
			lf.MinLevel = oplog.LevelError
			e.check(oplog.SearchQuery{Filter: lf, Limit: 113}, lf.Match)
			e.check(oplog.SearchQuery{Query: "name:Render", Filter: f, Limit: 500}, func(r *oplog.Record) bool {
				return r.Name == "Render" && f.Match(r)
			})
		}
		// Time ranges in the query string, anywhere in it.
		s, u := at(1200), at(3000)
		qs := fmt.Sprintf(`time:>=%q AND time:<%q`, s.Format(time.RFC3339Nano), u.Format(time.RFC3339Nano))
		e.check(oplog.SearchQuery{Query: qs, Limit: 500}, (&oplog.Filter{Since: s, Until: u}).Match)
		qs = fmt.Sprintf(`needle AND NOT time:<=%q AND NOT time:>%q`, s.Format(time.RFC3339Nano), u.Format(time.RFC3339Nano))
		e.check(oplog.SearchQuery{Query: qs, Limit: 77}, func(r *oplog.Record) bool {
			return hasNeedle(r) && r.Time.After(s) && !r.Time.After(u)
		})
	}
	opts := small()
	opts.Interval = 2 * time.Hour // above the watermark only
	e := mustOpen(t, t.TempDir(), opts, nil)
	logtest.MustAppend(t, e.log, timed(0, 5000)...)
	checkAll(e)
	if s := e.idx.Status(); s.SegmentsThrough != 0 {
		t.Fatalf("the indexer ran: %+v", s)
	}
	e.opts = small()
	e = e.reopen()
	e.waitIndexed()
	checkAll(e)
	e = e.reopen() // spans from the sets file
	e.waitIndexed()
	logtest.MustAppend(t, e.log, timed(5000, 2000)...)
	checkAll(e) // some indexed, some maybe not
	e.waitIndexed()
	checkAll(e)
}

// TestIndex_Search_SplitWord: a query word that the analyzer splits
// (Physics.cs) matches where its parts follow each other, not anywhere.
func TestIndex_Search_SplitWord(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	recs := []oplog.Record{
		{Level: oplog.LevelError, Name: "A", Text: "boom", Stack: "at Step () in Physics.cs:42"},
		{Level: oplog.LevelInfo, Name: "A", Text: "cs physics"},
		{Level: oplog.LevelInfo, Name: "A", Text: "loaded physics.CS ok"},
		{Level: oplog.LevelInfo, Name: "A", Text: "version 3.14 ready"},
		{Level: oplog.LevelInfo, Name: "A", Text: "version 3 14 ready"},
		{Level: oplog.LevelInfo, Name: "A", Text: "ready 14.3"},
	}
	logtest.MustAppend(t, e.log, recs...)
	both := func(r *oplog.Record) string { return r.Text + " " + r.Stack }
	e.check(oplog.SearchQuery{Query: "Physics.cs"}, func(r *oplog.Record) bool {
		return strings.Contains(strings.ToLower(both(r)), "physics.cs")
	})
	e.check(oplog.SearchQuery{Query: "text:3.14"}, func(r *oplog.Record) bool { return strings.Contains(r.Text, "3") && strings.Contains(r.Text, "14 ") })
	e.check(oplog.SearchQuery{Query: "physics"}, func(r *oplog.Record) bool { return strings.Contains(strings.ToLower(both(r)), "physics") })
	e.waitIndexed()
	e.check(oplog.SearchQuery{Query: "Physics.cs"}, func(r *oplog.Record) bool {
		return strings.Contains(strings.ToLower(both(r)), "physics.cs")
	})
}

// TestIndex_Search_Boolean checks OR, NOT and parentheses against the
// records themselves, before and after indexing.
func TestIndex_Search_Boolean(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(1, 2500)...)
	physics := func(r *oplog.Record) bool { return r.Name == "Physics" }
	cases := []struct {
		query string
		keep  func(r *oplog.Record) bool
	}{
		{"needle OR name:Physics", func(r *oplog.Record) bool { return hasNeedle(r) || physics(r) }},
		{"needle AND NOT name:Physics", func(r *oplog.Record) bool { return hasNeedle(r) && !physics(r) }},
		{"needle -name:Physics", func(r *oplog.Record) bool { return hasNeedle(r) && !physics(r) }},
		{"NOT (needle OR name:Physics)", func(r *oplog.Record) bool { return !hasNeedle(r) && !physics(r) }},
		{"(name:Render OR name:Physics) AND needle", hasNeedle},
		{"(needle) AND (level:error)", func(r *oplog.Record) bool { return hasNeedle(r) && physics(r) }},
		{"name:Render needle OR level:error", func(r *oplog.Record) bool { return r.Name == "Render" && hasNeedle(r) || physics(r) }},
	}
	for _, c := range cases {
		e.check(oplog.SearchQuery{Query: c.query}, c.keep)
	}
	e.waitIndexed()
	for _, c := range cases {
		e.check(oplog.SearchQuery{Query: c.query}, c.keep)
	}
}

// countingIndex is the real index, counting the searches the Log sends it.
type countingIndex struct {
	*search.Index
	mu       sync.Mutex
	searches int
}

func (c *countingIndex) Search(ctx context.Context, q *oplog.SearchQuery, before uint64, limit int) (oplog.IndexHits, error) {
	c.mu.Lock()
	c.searches++
	c.mu.Unlock()
	return c.Index.Search(ctx, q, before, limit)
}

func (c *countingIndex) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.searches
}

func TestLog_List_SparseFiltersUseIndexAndStayExact(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	ci := &countingIndex{Index: e.idx}
	e.log.SetIndex(ci)
	// One record in 500 is named Rare (a third of them fatal), from two sources.
	rare := func(from, n int) []oplog.Record {
		recs := lines(from, n)
		for i := range recs {
			if k := from + i; k%500 == 0 {
				recs[i].Name, recs[i].Source, recs[i].Level = "Rare", []string{"game", "editor"}[k/500%2], oplog.LevelInfo
				if k%1500 == 0 {
					recs[i].Level = oplog.LevelFatal
				}
			}
		}
		return recs
	}
	logtest.MustAppend(t, e.log, rare(0, 20_000)...)
	e.waitIndexed()
	logtest.MustAppend(t, e.log, rare(20_000, 3_000)...) // above the watermark, at least at first
	queries := []oplog.Query{
		{Filter: oplog.Filter{Name: "Rare"}, Count: 10},
		{Filter: oplog.Filter{Name: "Rare"}, Count: 7, Offset: 5},
		{Filter: oplog.Filter{Name: "Rare", MinLevel: oplog.LevelError}, Count: 100},
		{Filter: oplog.Filter{Name: "Rare", Source: "editor", Kind: oplog.KindLine}, Count: 3},
		{Filter: oplog.Filter{Name: "Rare"}, Count: 4, Before: 10_000},
		{Filter: oplog.Filter{MinLevel: oplog.LevelFatal}, Count: 1000},
	}
	for _, q := range queries {
		before := ci.count()
		got, err := e.log.List(context.Background(), q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		if ci.count() == before {
			t.Errorf("%+v: answered without the index", q)
		}
		want, err := e.db.List(q)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Records) == 0 {
			t.Fatalf("%+v: the store finds nothing; the test is wrong", q)
		}
		if !slices.EqualFunc(got.Records, want.Records, func(a, b oplog.Record) bool { return a.ID == b.ID }) ||
			got.Total != want.Total || got.More != want.More {
			t.Errorf("%+v: got %d records (total %d, more %v), want %d (total %d, more %v)", q,
				len(got.Records), got.Total, got.More, len(want.Records), want.Total, want.More)
		}
	}
	// A filter that keeps many records walks the store.
	before := ci.count()
	if _, err := e.log.List(context.Background(), oplog.Query{Filter: oplog.Filter{Name: "Render"}}); err != nil {
		t.Fatal(err)
	}
	if ci.count() != before {
		t.Errorf("a dense name filter went through the index")
	}
}

// TestIndex_Search_Phrase checks phrases, which the index matches by their
// words and the records' own text confirms (the index keeps no positions),
// before and after indexing.
func TestIndex_Search_Phrase(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	texts := []string{
		"null reference in Update",
		"reference null in Update",               // both words, wrong order
		"null pointer, then a reference",         // both words, apart
		"a NULL Reference!",                      // case and punctuation
		"needle in haystack",                     // a stop word between
		"needle of haystack",                     // another stop word: same positions
		"needle haystack",                        // no gap
		"null null reference reference",          // repeated words
		"something else entirely",                // neither
		"the stack has it, the text does not",    // stack below
		"reference null: null reference at last", // second occurrence
	}
	var recs []oplog.Record
	for i := 0; i < 1200; i++ { // several segments and tail chunks
		r := oplog.Record{Level: oplog.LevelInfo, Name: "Game", Text: texts[i%len(texts)]}
		if i%len(texts) == 9 {
			r.Level, r.Stack = oplog.LevelError, "NullReferenceException: null reference\n  at Player.Update () in Player.cs:42"
		}
		recs = append(recs, r)
	}
	logtest.MustAppend(t, e.log, recs...)
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	}
	// has reports whether s holds ws in order, skipping the stop words in gaps.
	has := func(s string, ws ...string) bool {
		return strings.Contains(" "+strings.Join(words(s), " ")+" ", " "+strings.Join(ws, " ")+" ")
	}
	cases := []struct {
		query string
		keep  func(r *oplog.Record) bool
	}{
		{`"null reference"`, func(r *oplog.Record) bool {
			return has(r.Text, "null", "reference") || has(r.Stack, "null", "reference")
		}},
		{`text:"null reference"`, func(r *oplog.Record) bool { return has(r.Text, "null", "reference") }},
		{`stack:"null reference"`, func(r *oplog.Record) bool { return has(r.Stack, "null", "reference") }},
		{`"needle in haystack"`, func(r *oplog.Record) bool {
			return has(r.Text, "needle", "in", "haystack") || has(r.Text, "needle", "of", "haystack")
		}},
		{`null reference -"null reference"`, func(r *oplog.Record) bool {
			return slices.Contains(words(r.Text+" "+r.Stack), "null") && slices.Contains(words(r.Text+" "+r.Stack), "reference") &&
				!has(r.Text, "null", "reference") && !has(r.Stack, "null", "reference")
		}},
		{`"player update" OR "needle haystack"`, func(r *oplog.Record) bool { return r.Stack != "" || r.Text == "needle haystack" }},
		{`Player.Update level:error`, func(r *oplog.Record) bool { return r.Stack != "" }},
		{`name:"Game" "null pointer"`, func(r *oplog.Record) bool { return has(r.Text, "null", "pointer") }},
		{`"a null"`, func(r *oplog.Record) bool { return has(r.Text+" "+r.Stack, "null") }}, // a stop word: just "null"
		{`name:"Other Game" "null pointer"`, func(r *oplog.Record) bool { return false }},
	}
	for _, c := range cases {
		e.check(oplog.SearchQuery{Query: c.query, Limit: 500}, c.keep)
	}
	e.waitIndexed()
	for _, c := range cases {
		e.check(oplog.SearchQuery{Query: c.query, Limit: 37}, c.keep)
	}
}

// TestIndex_Search_ReplayOf finds the replays of an operation, before and
// after indexing, and only those.
func TestIndex_Search_ReplayOf(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 1500)...)
	orig := logtest.MustAppend(t, e.log, oplog.Record{Kind: oplog.KindOp, Tool: "spawn", Status: oplog.StatusSuccess})[0]
	var want []uint64
	for i := range 5 {
		logtest.MustAppend(t, e.log, lines(2000+i*300, 300)...)
		r := logtest.MustAppend(t, e.log, oplog.Record{Kind: oplog.KindOp, Tool: "spawn", Status: oplog.StatusSuccess, ReplayOf: orig.ID},
			oplog.Record{Kind: oplog.KindOp, Tool: "spawn", Status: oplog.StatusSuccess, ReplayOf: orig.ID + 1})
		want = append([]uint64{r[0].ID}, want...)
	}
	for _, indexed := range []bool{false, true} {
		if indexed {
			e.waitIndexed()
		}
		got := e.all(oplog.SearchQuery{ReplayOf: orig.ID, Limit: 2})
		if !slices.Equal(got, want) {
			t.Errorf("indexed %v: replays %v, want %v", indexed, got, want)
		}
	}
}

// TestIndex_Search_PatternsIgnoreCase checks that wildcards and regular
// expressions on text and stack ignore case as words do, that level
// patterns and spellings match whatever their case, and that name keeps
// its case: above the watermark, in the segments, and with both at once.
func TestIndex_Search_PatternsIgnoreCase(t *testing.T) {
	above := small()
	above.Interval = 2 * time.Hour // the indexer runs once at Open, then never
	e := mustOpen(t, t.TempDir(), above, nil)
	special := func(k int) []oplog.Record {
		return []oplog.Record{
			{Level: oplog.LevelInfo, Name: "Game", Text: fmt.Sprintf("BossFight %d started", k)},
			{Level: oplog.LevelInfo, Name: "Game", Text: "bossfight ended"},
			{Level: oplog.LevelWarn, Name: "physics", Text: "PHYSICS overload"},
			{Level: oplog.LevelError, Name: "Physics", Text: "NullReferenceException: null reference", Stack: "at Boss.Fight () in BOSSFIGHT.cs:12"},
			{Level: oplog.LevelFatal, Name: "Physical", Text: "PhysX crashed"},
		}
	}
	add := func(from int) {
		logtest.MustAppend(t, e.log, lines(from, 400)...)
		logtest.MustAppend(t, e.log, special(from)...)
	}
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') })
	}
	// prefix keeps the records with a word of text (or stack) starting with p.
	prefix := func(p string, stack bool) func(r *oplog.Record) bool {
		return func(r *oplog.Record) bool {
			s := r.Text
			if stack {
				s += " " + r.Stack
			}
			return slices.ContainsFunc(words(s), func(w string) bool { return strings.HasPrefix(w, p) })
		}
	}
	physi, bossfi := prefix("physi", true), prefix("bossfi", true)
	cases := []struct {
		query string
		keep  func(r *oplog.Record) bool
	}{
		{`Physi*`, physi},
		{`physi*`, physi},
		{`PHYSI*`, physi},
		{`PhYs?cs`, func(r *oplog.Record) bool { return slices.Contains(words(r.Text+" "+r.Stack), "physics") }},
		{`BossFi*`, bossfi},
		{`bossfi*`, bossfi},
		{`text:BOSSFI*`, prefix("bossfi", false)},
		{`stack:/BossF.*/`, func(r *oplog.Record) bool { return strings.Contains(r.Stack, "BOSSFIGHT") }},
		{`/Null[A-Z]+/`, prefix("null", true)},
		{`name:Phys*`, func(r *oplog.Record) bool { return strings.HasPrefix(r.Name, "Phys") }}, // name keeps its case
		{`name:phys*`, func(r *oplog.Record) bool { return strings.HasPrefix(r.Name, "phys") }},
		{`level:ERR* OR level:Warning`, func(r *oplog.Record) bool { return r.Level == oplog.LevelError || r.Level == oplog.LevelWarn }},
		{`level:exception Physi*`, func(r *oplog.Record) bool { return r.Level == oplog.LevelError && physi(r) }},
		{`kind:any bossfi*`, bossfi},
		// search_logs's example.
		{`level:error AND name:Physics "null reference"`, func(r *oplog.Record) bool {
			return r.Level == oplog.LevelError && r.Name == "Physics" && strings.Contains(r.Text, "null reference")
		}},
	}
	checkAll := func() {
		t.Helper()
		for _, c := range cases {
			e.check(oplog.SearchQuery{Query: c.query, Limit: 97}, c.keep)
		}
	}
	add(0)
	checkAll()
	if s := e.idx.Status(); s.SegmentsThrough != 0 {
		t.Fatalf("the indexer ran: %+v", s)
	}
	e.opts = small()
	e = e.reopen()
	e.waitIndexed()
	checkAll() // in the segments
	e.opts = above
	e = e.reopen()
	indexed := e.idx.Status().SegmentsThrough
	add(1000)
	if s := e.idx.Status(); s.SegmentsThrough != indexed || indexed == 0 || e.db.Stats().LastID <= indexed {
		t.Fatalf("want records both below and above the watermark: %+v", s)
	}
	checkAll() // both
	_, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: `BossFi* level:bogus`})
	if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(oplog.ErrorMessage(err), `unknown level "bogus"; expected debug, info, warn, error or fatal`) {
		t.Fatalf("level:bogus: %v", err)
	}
}
