package search_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// lagBase is the time of the first record of variedRecords; record i is i
// seconds after it.
var lagBase = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// lagWords are the words of variedRecords' texts: cases, stop words,
// words the analyzer splits, non-ASCII letters (two of which lower-case to
// ASCII), near spellings for fuzzy matching.
var lagWords = []string{"Player.Update", "NullReferenceException", "Foo.cs", "3.14", "the", "and", "is", "not",
	"Ünïcode", "ÜBER", "straße", "İNFO", "\u212Aelvin", "needle", "haystack", "colour", "color", "colr",
	"physics", "Physical", "PHYSICS_STEP", "don't", "it's", "null", "reference", "frame", "rendered", "42",
	"step", "ſtep", "a", "of", "Render", "warning", "error", "timeout", "Physics.cs:42", "(x)", "info",
	"crash", "crashed", "Crashes", "crashing", "crashpad", "Spawning", "spawned", "retries", "stopped"}

// variedRecords returns n records of every kind, level, source and name,
// with stacks and operations (pending; complete them later).
func variedRecords(n int) []oplog.Record {
	rng := rand.New(rand.NewPCG(7, 14))
	sources := []string{"Game", "Editor", "upstream-a"}
	names := []string{"Physics", "physics", "Render", "Net.Client", "AI", ""}
	tools := []string{"build", "run_tests", "Run Tests"}
	recs := make([]oplog.Record, n)
	for i := range recs {
		r := oplog.Record{Time: lagBase.Add(time.Duration(i) * time.Second), Source: sources[rng.IntN(len(sources))]}
		words := make([]string, 2+rng.IntN(7))
		for k := range words {
			words[k] = lagWords[rng.IntN(len(lagWords))]
		}
		switch k := rng.IntN(20); {
		case k == 0:
			r.Kind, r.Name, r.Text = oplog.KindMarker, "run", "run started "+words[0]
		case k <= 3:
			r.Kind, r.Tool, r.Status = oplog.KindOp, tools[rng.IntN(len(tools))], oplog.StatusPending
			r.Text = strings.Join(words, " ")
			if k == 3 && i > 10 {
				r.ReplayOf = uint64(rng.IntN(i-1) + 1)
			}
		default:
			r.Level = oplog.Level(1 + rng.IntN(int(oplog.LevelFatal)))
			r.Name = names[rng.IntN(len(names))]
			r.Text = strings.Join(words, " ")
			if r.Level >= oplog.LevelError && rng.IntN(2) == 0 {
				r.Stack = "at Player.Update () in Player.cs:42\n  at " + words[0] + " ()"
			}
		}
		recs[i] = r
	}
	return recs
}

// lagQueries are query strings of every shape of the language.
var lagQueries = []string{
	"", "needle", "NEEDLE", "the", "the needle", "Player.Update", "player", "update", "Foo.cs", "foo", "cs", "3.14", "14",
	"42", "don't", "it's", "ünïcode", "über", "ÜBER", "straße", "info", "kelvin", "step", "ſtep",
	"text:needle", "stack:player", "stack:needle", "message:needle", "msg:colour", "text:the", "stack:Player.Update",
	`"needle haystack"`, `"the needle"`, `"needle the haystack"`, `"player update"`, `"Player.Update"`, `"the"`,
	`"null reference"`, `text:"null reference"`, `stack:"player update"`, `"colour color"`,
	"Physi*", "physi*", "*ics", "p?ysics", "col*r", "text:Foo*", "stack:Pla*", "/colou?r/", "/Phys.*/", "/(?-i)Phys.*/",
	"/.*elvin/", "/ste./", "name:Phys*", "name:phys*", "name:/[Pp]hysics/", "source:Ed*", "tool:run*", "level:warn*",
	"kind:op*", "status:pend*", "name:Net.Cl?ent",
	"colour~1", "colr~1", "color~2", "physcs~1", "needel~1", "text:haystak~1", "name:Phisics~1", "tool:biuld~1",
	"colr~0", "word~3",
	"name:Physics", "name:physics", "name:Net.Client", `name:""`, "level:error", "level:warning", "level:Warning",
	"level:exception", "level:any", "level:fatal", "source:Game", "source:upstream-a", "kind:op", "kind:operation",
	"kind:marker", "kind:line", "tool:build", `tool:"Run Tests"`, "status:pending", "status:ok", "status:error",
	"replayOf:12", "replayOf:3", "run:1", "run:2", "run:3",
	"needle AND haystack", "needle OR haystack", "needle haystack", "needle -haystack", "needle NOT haystack",
	"NOT needle", "-needle", "-the", "the -needle", "-text:the", "(needle OR colour) AND level:error",
	"name:Physics AND (level:error OR level:fatal) -stack:player", "(the OR needle) -physics", "-(needle OR colour)",
	"needle OR the", "the OR a", "+needle", "--needle", "-+the", `"x"+needle`, "needle^2",
	`+text:"the"-needle`, `-"needle"+text:the`, `-"needle"+the`, `"x"+text:the`, `-"needle"+text:"the"`, `"needle"-text:the`,
	`time:>="2026-05-01T12:10:00Z"`, `time:<"2026-05-01T12:05:00Z"`, `time:>"2026-05-01T12:20:00Z" AND needle`,
	`time:>="2026-05-01T12:10:00Z" time:<"2026-05-01T12:12:00Z"`,
	"name:5", "text:5", "name:>5", "level:>5",
	"half", "after half", `"after half"`, "hal*", "/h.lf/", "half~1", "text:half", "stack:half", "failed", "ok",
	// templates: "run started <N>" of the markers whose word is a number,
	// the one record of its text, a few prefixes and patterns of IDs
	"template:" + oplog.TextTemplateID("run started 42"), "template:" + oplog.TextTemplateID("needle after half"),
	"template:" + strings.ToUpper(oplog.TextTemplateID("needle after half")), "needle -template:" + oplog.TextTemplateID("needle after half"),
	"template:a*", "template:0*", "-template:1*", "template:*", "-template:*", "template:a1b*",
	"kind:marker AND template:" + oplog.TextTemplateID("run started 3.14"),
	"crash", "CRASHED", "crashes", `"crash"`, "text:crash", "stack:crashing", "crash -crashed", "-crash", "crashpad",
	"crash*", "crash~1", "spawn", "spawning", "stop", "retry", "crash AND spawn", "crash OR physics", "warn",
	// stop words left out of what an agent pastes; phrases keep their places
	"needle the haystack", "null of the reference", `"null of reference"`, `"needle a haystack"`, "(the OR a) needle",
	"needle NOT (the OR of)", "the -needle level:error", "text:the colour", `"the" OR needle`,
}

// lagFilters are SearchQuery filters to combine with some queries.
func lagFilters(runs map[string]uint64) []oplog.SearchQuery {
	since, until := lagBase.Add(5*time.Minute), lagBase.Add(15*time.Minute)
	return []oplog.SearchQuery{
		{Filter: oplog.Filter{MinLevel: oplog.LevelWarn}},
		{Filter: oplog.Filter{Name: "Physics"}},
		{Filter: oplog.Filter{Source: "Editor", Kind: oplog.KindOp}},
		{Filter: oplog.Filter{Kind: oplog.KindLine, WithMarkers: true}},
		{Filter: oplog.Filter{Since: since}},
		{Filter: oplog.Filter{Until: until}},
		{Filter: oplog.Filter{Since: since, Until: until, MinLevel: oplog.LevelError}},
		{Filter: oplog.Filter{Runs: runs}},
		{Filter: oplog.Filter{Runs: map[string]uint64{}}},
		{Tool: "build", Status: oplog.StatusSuccess},
		{Status: oplog.StatusPending},
		{ReplayOf: 12},
	}
}

func TestSearch_LagEqualsIndexed(t *testing.T) {
	dir := t.TempDir()
	e := mustOpen(t, dir, small(), nil)
	// Opened on the empty store with no wake-ups and an hour's interval,
	// this index never indexes anything: every search evaluates the records.
	lag, err := search.Open(filepath.Join(dir, "lagging"), e.db, &search.Options{TailChunk: 300, Interval: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lag.Close() })
	// This one never indexes either, but its chunks of 10 IDs get term sets
	// (terms.go) when asked: searches skip the chunks that cannot match.
	sets, err := search.Open(filepath.Join(dir, "sets"), e.db, &search.Options{TailChunk: 10, Interval: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sets.Close() })
	recs := logtest.MustAppend(t, e.log, variedRecords(2500)...)
	e.waitIndexed()
	// Built while the operations are pending: those completed later are
	// matched as they now stand.
	if n, err := sets.BuildTerms(); err != nil || n != len(recs) {
		t.Fatalf("term sets of %d records (%v), want %d", n, err, len(recs))
	}
	// A search of the lagging index reads (and keeps) every record while the
	// operations are pending.
	if _, err := lag.Search(context.Background(), &oplog.SearchQuery{Query: "nowhere"}, 0, 10); err != nil {
		t.Fatal(err)
	}
	// Complete two operations in three: after they were indexed pending;
	// some are reindexed complete, the rest are matched as they now stand.
	for i, r := range recs {
		if cur, err := e.log.Get(context.Background(), r.ID); r.Kind == oplog.KindOp && i%3 != 0 && err == nil && !cur.IsComplete() { // not settled crashed by its run's end
			c := oplog.Completion{Result: []byte(`{"ok":true}`)}
			if i%3 == 2 {
				c = oplog.Completion{Error: "failed"}
			}
			if _, err := e.log.Complete(context.Background(), r.ID, c); err != nil {
				t.Fatal(err)
			}
		}
		if i == len(recs)/2 {
			recs = append(recs, logtest.MustAppend(t, e.log, oplog.Record{Level: oplog.LevelInfo, Text: "needle after half"})...)
			e.waitIndexed()
		}
	}
	if n, err := sets.BuildTerms(); err != nil || n != 1 {
		t.Fatalf("term sets of %d more records (%v), want 1", n, err)
	}
	for _, x := range []*search.Index{lag, sets} {
		if s := x.Status(); s.SegmentsThrough != 0 {
			t.Fatalf("a lagging index indexed: %+v", s)
		}
	}
	last := e.db.Stats().LastID
	if s := sets.Status(); s.IndexedThrough != last || s.Lag != 0 || s.SegmentLag != last {
		t.Fatalf("status with every record in a term set: %+v, want indexed through %d, lag 0, segment lag %d", s, last, last)
	}
	if s := lag.Status(); s.IndexedThrough != 0 || s.Lag != last {
		t.Fatalf("status without term sets: %+v, want lag %d", s, last)
	}
	runs := map[string]uint64{}
	for _, r := range recs {
		if r.Run > 1 && r.Source != "upstream-a" {
			runs[r.Source] = r.Run
		}
	}
	var qs []oplog.SearchQuery
	for _, s := range lagQueries {
		qs = append(qs, oplog.SearchQuery{Query: s})
	}
	for _, f := range lagFilters(runs) {
		for _, s := range []string{"", "needle", "-colour", "status:ok OR level:error"} {
			f.Query = s
			qs = append(qs, f)
		}
	}
	hits := 0
	for _, q := range qs {
		hits += compareLag(t, e.idx, q, lag, sets)
	}
	if hits < 10_000 {
		t.Fatalf("only %d hits over %d queries: the workload does not exercise the queries", hits, len(qs))
	}
	if n := sets.SkippedChunks(); n < 1000 {
		t.Fatalf("searches skipped %d chunks by their term sets: the sets are not used", n)
	}
	t.Logf("%d chunks skipped by their term sets", sets.SkippedChunks())
	// template: the answers are the records whose text has that template
	for _, text := range []string{"run started 42", "needle after half"} {
		id := oplog.TextTemplateID(text)
		var want []uint64
		for _, r := range slices.Backward(recs) {
			if oplog.TextTemplateID(r.Text) == id {
				want = append(want, r.ID)
			}
		}
		got, err := e.idx.Search(context.Background(), &oplog.SearchQuery{Query: "template:" + id}, 0, 500)
		if err != nil || len(want) == 0 || !slices.Equal(got.IDs, want) {
			t.Fatalf("template:%s (%q): %v (%v), want %v", id, text, got.IDs, err, want)
		}
	}
}

// compareLag pages through q on idx and on each lagging index, with pages
// of 7 (the first 12 under the race detector) and of 100, and fails on
// the first difference. It returns the hits found.
func compareLag(t *testing.T, idx *search.Index, q oplog.SearchQuery, lags ...*search.Index) int {
	t.Helper()
	ctx := context.Background()
	n := 0
	for _, limit := range []int{7, 100} {
		before := uint64(0)
		pages := 400/limit + 3
		if raceDetector && limit < 100 {
			pages = 12 // the race detector slows each search tenfold: the small pages' cursors are those of the first 84 hits
		}
		for page := 0; page < pages; page++ {
			b, errB := idx.Search(ctx, &q, before, limit)
			name := fmt.Sprintf("query %q %+v before %d limit %d", q.Query, q.Filter, before, limit)
			for _, lag := range lags {
				a, errA := lag.Search(ctx, &q, before, limit)
				if (errA == nil) != (errB == nil) {
					t.Fatalf("%s: lagging error %v, indexed error %v", name, errA, errB)
				}
				if errA != nil {
					continue
				}
				if !slices.Equal(a.IDs, b.IDs) || a.More != b.More {
					t.Fatalf("%s:\nlagging %v (more %v)\nindexed %v (more %v)", name, a.IDs, a.More, b.IDs, b.More)
				}
				if a.TotalExact && b.TotalExact && a.Total != b.Total {
					t.Fatalf("%s: total %d lagging, %d indexed", name, a.Total, b.Total)
				}
				if !a.More && before == 0 && (!a.TotalExact || !b.TotalExact) {
					t.Fatalf("%s: every match found but total not exact (%v, %v)", name, a.TotalExact, b.TotalExact)
				}
			}
			if errB != nil {
				return n
			}
			n += len(b.IDs)
			if !b.More {
				break
			}
			before = b.IDs[len(b.IDs)-1]
		}
	}
	return n
}

// parkingStore is a store whose next Tail of parkLimit records (a
// search reading a chunk above the watermark) waits until release closes.
type parkingStore struct {
	oplog.Store
	armed   atomic.Bool
	parked  chan struct{}
	release chan struct{}
}

const parkLimit = 4000 // the TailChunk of the tests

// Tail parks the first read of a search's walk above the watermark, once
// armed: the indexers' reads are no larger (maxReadRecords), so the walk is
// told by its caller.
func (p *parkingStore) Tail(q oplog.TailQuery) (oplog.Tail, error) {
	if p.armed.Load() && inSearchWalk() && p.armed.CompareAndSwap(true, false) {
		close(p.parked)
		<-p.release
	}
	return p.Store.Tail(q)
}

// inSearchWalk reports whether its caller runs in a search's walk of the
// records above the watermark.
func inSearchWalk() bool {
	pc := make([]uintptr, 64)
	frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, "search.(*Index).searchTail") {
			return true
		}
		if !more {
			return false
		}
	}
}

func TestSearch_WatermarkAdvancesDuringLagSearches(t *testing.T) {
	dir := t.TempDir()
	opts := small()
	opts.TailChunk = 0
	opts.Interval = 2 * time.Hour
	e := mustOpen(t, dir, opts, nil)
	logtest.MustAppend(t, e.log, lines(0, 30_000)...)
	e.close()
	// Reopened over a store that parks the first chunk a search reads: the
	// indexer starts from nothing with 30,000 records of lag.
	db, err := store.Open(filepath.Join(dir, "log.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	ps := &parkingStore{Store: db, parked: make(chan struct{}), release: make(chan struct{})}
	ps.armed.Store(true)
	idx, err := search.Open(filepath.Join(dir, "index"), ps, &search.Options{TailChunk: parkLimit, Changed: l.Changed, Interval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	l.SetIndex(idx)
	t.Cleanup(func() { _ = l.Close() })
	var release, stopped sync.Once
	unpark := func() { release.Do(func() { close(ps.release) }) }
	stop := make(chan struct{})
	halt := func() { stopped.Do(func() { close(stop) }) }
	t.Cleanup(func() { halt(); unpark() }) // before closing, should the test fail with a search parked
	last := db.Stats().LastID
	var wg sync.WaitGroup
	var searches atomic.Int64
	errs := make(chan error, 3)
	// A word no record has: every search walks the whole lag.
	nowhere := &oplog.SearchQuery{Query: "nowhere"}
	wg.Go(func() { // parks in its walk until the index caught up
		if h, err := idx.Search(context.Background(), nowhere, 0, 50); err != nil || len(h.IDs) > 0 {
			errs <- fmt.Errorf("parked search: %v hits, %v", h.IDs, err)
		}
	})
	select {
	case <-ps.parked:
	case <-time.After(30 * time.Second):
		t.Fatal("no search read a chunk above the watermark")
	}
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := idx.Search(context.Background(), nowhere, 0, 50); err != nil {
					errs <- err
					return
				}
				searches.Add(1)
			}
		})
	}
	logtest.Eventually(t, 60*time.Second, "the watermark reaching the last ID while a search is in its walk", func() bool {
		return idx.Status().IndexedThrough >= last
	})
	unpark()
	n := searches.Load()
	logtest.Eventually(t, 30*time.Second, "a search after the index caught up", func() bool { return searches.Load() > n })
	halt()
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	if n == 0 {
		t.Fatal("no search ran while the indexer caught up")
	}
}
