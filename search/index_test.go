package search_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/logtest"
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
	idx, err := search.Open(filepath.Join(dir, "index"), db, &opts)
	if err != nil {
		_ = db.Close()
		t.Fatalf("open index: %v", err)
	}
	l.SetIndex(idx)
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

// small makes segments and chunks small so that tests cross many of them.
func small() search.Options {
	return search.Options{SegmentSize: 1000, BatchSize: 700, TailChunk: 300, Interval: 20 * time.Millisecond}
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

// syncBuffer is a bytes.Buffer for a logger that goroutines share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

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
	if s := e.idx.Status(); s.IndexedThrough != 0 || s.Lag != 10_000 {
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
	if s := e.idx.Status(); s.Segments != 4 || s.Lag != 0 {
		t.Fatalf("status after rebuild: %+v", s)
	}
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
}

func TestIndex_Open_RebuildsCorruptSegment(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 4000)...)
	e.waitIndexed()
	e.close()
	// Overwrite every file of the second segment with garbage.
	seg := filepath.Join(e.dir, "index", fmt.Sprintf("seg-%020d", 1001))
	n := 0
	err := filepath.WalkDir(seg, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
			return os.WriteFile(path, []byte(strings.Repeat("garbage!", 512)), 0o600)
		}
		return err
	})
	if err != nil || n == 0 {
		t.Fatalf("corrupting %s: %d files, %v", seg, n, err)
	}
	var logs syncBuffer
	e.opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	e = e.reopen()
	if !strings.Contains(logs.String(), "segment is corrupt") {
		t.Fatalf("the corrupt segment was not reported: %s", logs.String())
	}
	t.Logf("logs: %s; status %+v", logs.String(), e.idx.Status())
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	e.waitIndexed()
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	if s := e.idx.Status(); s.Segments != 4 {
		t.Fatalf("status after rebuild: %+v", s)
	}
}

func TestIndex_Open_MappingVersionBumpRebuilds(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, lines(0, 2500)...)
	e.waitIndexed()
	e.close()
	meta := filepath.Join(e.dir, "index", "meta.json")
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(b), fmt.Sprintf(`"mappingVersion":%d`, search.MappingVersion), `"mappingVersion":0`, 1)
	if old == string(b) {
		t.Fatalf("meta.json has no mapping version: %s", b)
	}
	if err := os.WriteFile(meta, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	e = e.reopen()
	if s := e.idx.Status(); s.IndexedThrough != 0 || s.State != "rebuilding" {
		t.Fatalf("after a mapping bump the index must start over: %+v", s)
	}
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
	e.waitIndexed()
	e.check(oplog.SearchQuery{Query: "needle", Limit: 500}, hasNeedle)
}

func TestIndex_Retention_DropsSegments(t *testing.T) {
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
		if s := e.idx.Status(); s.Segments <= 3 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("segments not dropped: %+v, store %+v", e.idx.Status(), e.db.Stats())
		case <-time.After(10 * time.Millisecond):
		}
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
