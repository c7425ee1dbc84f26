package search_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

var (
	benchRecords  = flag.Int("search.records", 100_000, "records of the benchmark workload (internal/workload) in the search benchmarks' store")
	benchBaseline = flag.Bool("search.baseline", true, "also build and query a plain single bleve index sorted by time")
	benchWorkload = flag.String("search.workload", "game", "the records: game (the benchmark's game console) or words (18 random words a line)")
)

// fixture is a store of the workload with its index caught up, built once
// per process in a temporary directory.
type fixture struct {
	dir       string
	log       *oplog.Log
	db        *store.DB
	idx       *search.Index
	indexRate float64 // records/s, from empty to caught up
	indexTime time.Duration
	word      string // a vocabulary word in about 1% of messages
	template  string // the template of the most messages among the first 20,000
	rareTmpl  string // the template of one message, in the middle of the stream
	phrase    string // a phrase of the workload: "nil value", or two words of a line of random words
	since     time.Time
	until     time.Time // a window of a tenth of the stream, in its middle
	plain     bleve.Index
	plainRate float64
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  error
)

func getFixture(b *testing.B) *fixture {
	b.Helper()
	fixOnce.Do(func() { fix, fixErr = buildFixture() })
	if fixErr != nil {
		b.Fatal(fixErr)
	}
	return fix
}

func buildFixture() (*fixture, error) {
	dir, err := os.MkdirTemp("", "mcplogd-search-bench-")
	if err != nil {
		return nil, err
	}
	f := &fixture{dir: dir}
	db, err := store.Open(filepath.Join(dir, "log.db"), nil)
	if err != nil {
		return nil, err
	}
	f.db, f.log = db, oplog.New(db, nil)
	g := workload.New(1)
	f.phrase = `"nil value"`
	if *benchWorkload == "words" {
		g = workload.NewWords(1)
	}
	batch := make([]oplog.Record, 1000)
	var first, last time.Time
	counts := map[string]int{}
	tmpls := map[string]int{}
	vocab := map[string]bool{}
	for _, w := range workload.Vocabulary() {
		vocab[w] = true
	}
	for n := 0; n < *benchRecords; n += len(batch) {
		g.Fill(batch)
		if n == 0 {
			first = batch[0].Time
		}
		last = batch[len(batch)-1].Time
		if n == *benchRecords/2 {
			f.rareTmpl = oplog.TextTemplateID(batch[0].Text)
			if ws := splitWords(batch[0].Text); *benchWorkload == "words" && len(ws) > 1 {
				f.phrase = `"` + ws[0] + " " + ws[1] + `"` // a pair that meets once or so
			}
		}
		if n < 20_000 {
			for i := range batch {
				tmpls[oplog.TextTemplateID(batch[i].Text)]++
				for _, w := range splitWords(batch[i].Text) {
					if vocab[w] {
						counts[w]++
					}
				}
			}
		}
		if err := f.log.Append(context.Background(), batch); err != nil {
			return nil, err
		}
	}
	// The word nearest to 1% of records.
	best := 1 << 30
	for w, c := range counts {
		if d := abs(c - 200); d < best && len(w) > 3 {
			best, f.word = d, w
		}
	}
	for id, c := range tmpls {
		if c > tmpls[f.template] {
			f.template = id
		}
	}
	span := last.Sub(first)
	f.since = first.Add(span * 45 / 100)
	f.until = f.since.Add(span / 10)

	start := time.Now()
	f.idx, err = search.Open(filepath.Join(dir, "index"), db, &search.Options{Changed: f.log.Changed})
	if err != nil {
		return nil, err
	}
	f.log.SetIndex(f.idx)
	if err := f.idx.WaitIndexed(context.Background(), db.Stats().LastID, nil); err != nil {
		return nil, err
	}
	f.indexTime = time.Since(start)
	f.indexRate = float64(*benchRecords) / f.indexTime.Seconds()
	if *benchBaseline {
		if err := f.buildPlain(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func abs(n int) int { return max(n, -n) }

func splitWords(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
	}
	return out
}

// buildPlain indexes the same records into one plain bleve index (the same
// fields, time with doc values so that it can sort), with bleve's own
// document mapping, in batches of 10,000.
func (f *fixture) buildPlain() error {
	m := bleve.NewIndexMapping()
	doc := bleve.NewDocumentStaticMapping()
	for _, name := range []string{"name", "level", "source", "kind", "tool", "status"} {
		fm := bleve.NewKeywordFieldMapping()
		fm.Store, fm.IncludeInAll = false, false
		doc.AddFieldMappingsAt(name, fm)
	}
	for _, name := range []string{"text", "stack"} {
		fm := bleve.NewTextFieldMapping()
		fm.Store, fm.IncludeInAll = false, false
		doc.AddFieldMappingsAt(name, fm)
	}
	tm := bleve.NewDateTimeFieldMapping()
	tm.Store, tm.IncludeInAll = false, false
	doc.AddFieldMappingsAt("time", tm)
	m.DefaultMapping = doc
	m.DefaultField = "text"
	idx, err := bleve.New(filepath.Join(f.dir, "plain"), m)
	if err != nil {
		return err
	}
	start := time.Now()
	var since uint64
	for {
		t, err := f.db.Tail(oplog.TailQuery{SinceID: since, HasSince: true, Limit: 10_000})
		if err != nil {
			return err
		}
		if len(t.Lines) == 0 {
			break
		}
		bt := idx.NewBatch()
		for i := range t.Lines {
			r := &t.Lines[i]
			if err := bt.Index(strconv.FormatUint(r.ID, 10), map[string]any{"name": r.Name, "level": r.Level.String(),
				"source": r.Source, "kind": r.Kind.String(), "tool": r.Tool, "status": r.Status.String(),
				"text": r.Text, "stack": r.Stack, "time": r.Time}); err != nil {
				return err
			}
		}
		if err := idx.Batch(bt); err != nil {
			return err
		}
		since = t.LastID
	}
	f.plainRate = float64(*benchRecords) / time.Since(start).Seconds()
	f.plain = idx
	return nil
}

// BenchmarkIndexing reports how fast the background indexer built the
// fixture's index from an empty one (records/s), its size and reopen time.
func BenchmarkIndexing(b *testing.B) {
	f := getFixture(b)
	for b.Loop() {
	}
	st := f.idx.Status()
	b.ReportMetric(f.indexRate, "records/s")
	b.ReportMetric(float64(st.Bytes)/float64(*benchRecords), "indexB/record")
	b.ReportMetric(float64(st.Segments), "segments")
	if f.plain != nil {
		b.ReportMetric(f.plainRate, "plain-records/s")
	}
}

// BenchmarkReopen measures opening the caught-up index again, and reports
// the first newest-50 search with a time range after it, which reads the
// record times of the segments at the range's ends from the store.
func BenchmarkReopen(b *testing.B) {
	f := getFixture(b)
	dir := filepath.Join(f.dir, "reopen")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(f.dir, "index"))); err != nil && !os.IsExist(err) {
		b.Fatal(err)
	}
	for b.Loop() {
		idx, err := search.Open(dir, f.db, &search.Options{Interval: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		_ = idx.Close()
	}
	b.StopTimer()
	idx, err := search.Open(dir, f.db, &search.Options{Interval: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer idx.Close()
	q := oplog.SearchQuery{Query: f.word, Filter: oplog.Filter{Since: f.since, Until: f.until}}
	start := time.Now()
	h, err := idx.Search(context.Background(), &q, 0, 50)
	first := time.Since(start)
	if err != nil || len(h.IDs) == 0 {
		b.Fatalf("first range search: %v, %d hits", err, len(h.IDs))
	}
	start = time.Now()
	if _, err := idx.Search(context.Background(), &q, 0, 50); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(first.Microseconds())/1000, "first-range-ms")
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "second-range-ms")
}

// queries are the newest-50 searches of the issue.
func (f *fixture) queries() []struct {
	name string
	q    oplog.SearchQuery
} {
	hour := oplog.Filter{Since: f.since, Until: f.until}
	return []struct {
		name string
		q    oplog.SearchQuery
	}{
		{"level=error", oplog.SearchQuery{Filter: oplog.Filter{MinLevel: oplog.LevelError}}},
		{"query=level:error", oplog.SearchQuery{Query: "level:error"}},
		{"name+level", oplog.SearchQuery{Filter: oplog.Filter{Name: "Physics", MinLevel: oplog.LevelError}}},
		{"query=name+level", oplog.SearchQuery{Query: "name:Physics AND level:error"}},
		{"word", oplog.SearchQuery{Query: f.word}},
		{"word/quoted", oplog.SearchQuery{Query: `"` + f.word + `"`}}, // exact: no inflections
		{"two words", oplog.SearchQuery{Query: "player entity"}},      // as mcplogd bench asks
		{"phrase", oplog.SearchQuery{Query: f.phrase}},
		{"template", oplog.SearchQuery{Query: "template:" + f.template}},
		{"template/one", oplog.SearchQuery{Query: "template:" + f.rareTmpl}},
		{"level=error/range", oplog.SearchQuery{Filter: oplog.Filter{MinLevel: oplog.LevelError, Since: hour.Since, Until: hour.Until}}},
		{"name+level/range", oplog.SearchQuery{Query: "name:Physics AND level:error", Filter: hour}},
		{"word/range", oplog.SearchQuery{Query: f.word, Filter: hour}},
	}
}

// BenchmarkSearchNewest50 measures Log.Search for the newest 50 hits and
// reports p50 and p99 latency.
func BenchmarkSearchNewest50(b *testing.B) {
	f := getFixture(b)
	for _, tc := range f.queries() {
		b.Run(tc.name, func(b *testing.B) {
			q := tc.q
			q.Limit = 50
			var lat []time.Duration
			hits := 0
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				p, err := f.log.Search(context.Background(), q)
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				hits = len(p.Hits)
			}
			if hits == 0 {
				b.Fatalf("%s: no hits", tc.name)
			}
			reportPercentiles(b, lat)
		})
	}
}

// BenchmarkPlainBleveNewest50 runs the same searches on one plain bleve
// index, sorted by time descending (the baseline).
func BenchmarkPlainBleveNewest50(b *testing.B) {
	f := getFixture(b)
	if f.plain == nil {
		b.Skip("-search.baseline=false")
	}
	term := func(field, v string) query.Query {
		q := query.NewTermQuery(v)
		q.SetField(field)
		return q
	}
	levelErr := query.NewDisjunctionQuery([]query.Query{term("level", "error"), term("level", "fatal")})
	match := query.NewMatchQuery(f.word)
	match.SetField("text")
	yes, no := true, false
	dr := query.NewDateRangeInclusiveQuery(f.since, f.until, &yes, &no)
	dr.SetField("time")
	for _, tc := range []struct {
		name string
		q    query.Query
	}{
		{"level=error", levelErr},
		{"name+level", query.NewConjunctionQuery([]query.Query{term("name", "Physics"), term("level", "error")})},
		{"word", match},
		{"level=error/range", query.NewConjunctionQuery([]query.Query{levelErr, dr})},
		{"name+level/range", query.NewConjunctionQuery([]query.Query{term("name", "Physics"), term("level", "error"), dr})},
		{"word/range", query.NewConjunctionQuery([]query.Query{match, dr})},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				req := bleve.NewSearchRequestOptions(tc.q, 50, 0, false)
				req.SortBy([]string{"-time"})
				start := time.Now()
				res, err := f.plain.Search(req)
				lat = append(lat, time.Since(start))
				if err != nil || len(res.Hits) == 0 {
					b.Fatalf("%v, %d hits", err, len(res.Hits))
				}
			}
			reportPercentiles(b, lat)
		})
	}
}

// lagFixture is a store of -search.records records of the workload, the
// newest holding a word no other has, under an index that indexed none of
// them (opened on the empty store, it is never woken and polls hourly).
type lagFixture struct {
	dir  string
	log  *oplog.Log
	idx  *search.Index
	last time.Time
}

var (
	lagOnce sync.Once
	lagFix  *lagFixture
	lagErr  error
)

func buildLagFixture() (*lagFixture, error) {
	dir, err := os.MkdirTemp("", "mcplogd-search-lag-bench-")
	if err != nil {
		return nil, err
	}
	f := &lagFixture{dir: dir}
	db, err := store.Open(filepath.Join(dir, "log.db"), nil)
	if err != nil {
		return nil, err
	}
	f.log = oplog.New(db, nil)
	idx, err := search.Open(filepath.Join(dir, "index"), db, &search.Options{Interval: 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	f.log.SetIndex(idx)
	g := workload.New(2)
	batch := make([]oplog.Record, 1000)
	for n := 0; n < *benchRecords; n += len(batch) {
		g.Fill(batch)
		if n+len(batch) >= *benchRecords {
			batch[len(batch)-1].Text += " zanzibarite"
		}
		if err := f.log.Append(context.Background(), batch); err != nil {
			return nil, err
		}
		f.last = batch[len(batch)-1].Time
	}
	if s := idx.Status(); s.SegmentsThrough != 0 {
		return nil, fmt.Errorf("the index indexed: %+v", s)
	}
	f.idx = idx
	return f, nil
}

// BenchmarkSearchLag measures Log.Search for the newest 50 hits when no
// record is in a bleve segment: every shape evaluated on the records
// above the watermark, first without term sets (sets=off), then with the
// term sets of every chunk built (sets=on; terms-build reports what
// building them cost).
func BenchmarkSearchLag(b *testing.B) {
	lagOnce.Do(func() { lagFix, lagErr = buildLagFixture() })
	if lagErr != nil {
		b.Fatal(lagErr)
	}
	f := lagFix
	recent := f.last.Add(-time.Minute).Format(time.RFC3339)
	cases := []struct{ name, q string }{
		{"rare-newest", "zanzibarite"},
		{"nowhere", "qqqnowhere"},
		{"common", "value"},
		{"common-quoted", `"value"`}, // exact: no inflections
		{"phrase", `"nil value"`},
		{"wildcard", "Physi*"},
		{"rare-wildcard", "zanzibar*"},
		{"name+level", "name:Physics AND level:error"},
		{"rare+name+level", "zanzibarite name:Physics level:error"},
		{"not", "NOT level:info"},
		{"rare-not-common", "zanzibarite NOT value"},
		{"time", `time:>="` + recent + `"`},
	}
	for _, sets := range []string{"off", "on"} {
		if sets == "on" {
			b.Run("terms-build", func(b *testing.B) {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				start := time.Now()
				n, err := f.idx.BuildTerms()
				took := time.Since(start)
				for err == nil && n > 0 {
					var more int
					more, err = f.idx.BuildTerms()
					n, took = n+more, time.Since(start)
					if more == 0 {
						break
					}
				}
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				for b.Loop() {
				}
				if n > 0 {
					b.ReportMetric(float64(n)/took.Seconds(), "records/s")
					b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/float64(n), "heapB/record")
				}
			})
		}
		for _, tc := range cases {
			b.Run("sets="+sets+"/"+tc.name, func(b *testing.B) {
				var lat []time.Duration
				for b.Loop() {
					start := time.Now()
					_, err := f.log.Search(context.Background(), oplog.SearchQuery{Query: tc.q, Limit: 50})
					lat = append(lat, time.Since(start))
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(lat[0].Microseconds())/1000, "first-ms")
				reportPercentiles(b, lat)
			})
		}
	}
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	p := func(q float64) float64 {
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(p(0.5), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if lagFix != nil {
		_ = lagFix.log.Close()
		_ = os.RemoveAll(lagFix.dir)
	}
	if fix != nil {
		_ = fix.log.Close()
		if fix.plain != nil {
			_ = fix.plain.Close()
		}
		_ = os.RemoveAll(fix.dir)
	}
	os.Exit(code)
}
