package search_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

var differentialQueries = flag.Int("search.differential", 4_000, "random queries TestIndex_Search_Differential asks")

// The words of the differential test's records and queries: few, so that
// random queries match; with inflections (step, steps, stepped), words
// one or two edits apart (frame, flame, fame), stop words, mixed case and
// numbers.
var diffWords = []string{
	"physics", "physic", "Physics", "step", "steps", "stepped", "null", "nullable", "reference",
	"frame", "flame", "fame", "player", "Player", "spawn", "spawned", "enemy", "enemies", "shader",
	"the", "a", "in", "of", "tick", "error", "Update", "42", "7", "1000", "te_st", "naïve", "café",
}

var diffNames = []string{"Physics", "physics", "Main Camera", "Loader", "AI"}
var diffSources = []string{"unity", "godot", "unity-editor", "agent"}
var diffTools = []string{"spawn_a", "spawn_ab", "build"}

// diffRecords returns n records drawn from the words above, with stacks,
// operations, levels and runs.
func diffRecords(rng *rand.Rand, n int) []oplog.Record {
	pick := func(l []string) string { return l[rng.IntN(len(l))] }
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = pick(diffWords)
		}
		return strings.Join(w, " ")
	}
	recs := make([]oplog.Record, n)
	base := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	for i := range recs {
		r := &recs[i]
		r.Time = base.Add(time.Duration(i) * time.Second)
		r.Source, r.Name = pick(diffSources), pick(diffNames)
		r.Level = oplog.Level(1 + rng.IntN(5))
		r.Text = words(1 + rng.IntN(8))
		if rng.IntN(5) == 0 {
			r.Stack = "at " + pick(diffWords) + ".Tick () in " + pick(diffWords) + ".cs:" + fmt.Sprint(rng.IntN(50))
		}
		if rng.IntN(8) == 0 {
			r.Source, r.Tool, r.Name = "agent", pick(diffTools), ""
			r.Arguments = []byte(`{"n":1}`)
		}
	}
	return recs
}

// diffQuery returns a random query string of the language, depth levels
// deep at most.
func diffQuery(rng *rand.Rand, depth int) string {
	pick := func(l []string) string { return l[rng.IntN(len(l))] }
	word := func() string {
		w := pick(diffWords)
		if rng.IntN(4) == 0 {
			w = strings.ToUpper(w)
		}
		return w
	}
	if depth > 0 && rng.IntN(3) == 0 {
		a, b := diffQuery(rng, depth-1), diffQuery(rng, depth-1)
		switch rng.IntN(4) {
		case 0:
			return "(" + a + " AND " + b + ")"
		case 1:
			return "(" + a + " OR " + b + ")"
		case 2:
			return "(" + a + " AND NOT " + b + ")"
		default:
			return "NOT " + a
		}
	}
	switch rng.IntN(14) {
	case 0:
		return "text:" + word()
	case 1:
		return "stack:" + word()
	case 2:
		return `"` + word() + " " + word() + `"`
	case 3:
		w := pick(diffWords)
		return w[:1+rng.IntN(len(w))] + "*"
	case 4:
		w := []rune(pick(diffWords))
		w[rng.IntN(len(w))] = '?'
		return string(w)
	case 5:
		return word() + "~" + fmt.Sprint(1+rng.IntN(2))
	case 6:
		w := pick(diffWords)
		return "/" + strings.ToLower(w[:1+rng.IntN(len(w))]) + ".*/"
	case 7:
		return fmt.Sprintf("name:%q", pick(diffNames))
	case 8:
		return "source:" + pick(diffSources)
	case 9:
		return "level:" + pick([]string{"debug", "info", "warn", "error", "fatal"})
	case 10:
		return "tool:" + pick(diffTools)
	case 11:
		return "kind:" + pick([]string{"op", "line"})
	case 12:
		return fmt.Sprintf(`time:>="2026-12-05T10:%02d:00Z"`, rng.IntN(34))
	}
	return word()
}

// TestIndex_Search_Differential asks -search.differential random queries
// of every node type, nested, of records of few words (so that they
// match), and compares the IDs of five indexes of the same store: the
// index as a server runs it, the stored sets (chunks of 40) with their
// postings and without, the growing ones with theirs, and the predicate
// on every record (eval.go), which none of them may disagree with. A query that does not parse is skipped; the test fails if most do.
func TestIndex_Search_Differential(t *testing.T) {
	if testing.Short() {
		t.Skip("a long test")
	}
	dir := t.TempDir()
	e := mustOpen(t, dir, small(), nil)
	eval, sets := openLagging(t, e, dir, "evaluated", 300), openLagging(t, e, dir, "sets", 40)
	seed := logtest.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	logtest.MustAppend(t, e.log, diffRecords(rng, 2000)...)
	e.waitIndexed()
	buildTerms(t, sets)
	stored, bare := openStored(t, e, dir, "stored", 40), openStored(t, e, dir, "stored without postings", 40)
	bare.SetPostings(false)
	if eval.Status().SegmentsThrough != 0 || sets.Status().SegmentsThrough != 0 {
		t.Fatalf("the lagging indexes indexed: %+v, %+v", eval.Status(), sets.Status())
	}
	n := *differentialQueries
	if raceDetector {
		n = min(n, 500) // the race detector slows each query tenfold; the semantics are the same
	}
	asked, parsed, matched := 0, 0, 0
	for range n {
		s := diffQuery(rng, 3)
		asked++
		tree, err := oplog.ParseQuery(s)
		if err != nil {
			continue
		}
		parsed++
		q := oplog.SearchQuery{Query: s, Tree: tree}
		want, err := eval.Search(context.Background(), &q, 0, 5000)
		if err != nil {
			t.Fatalf("%s: evaluated: %v", s, err)
		}
		if len(want.IDs) > 0 {
			matched++
		}
		for _, ix := range []struct {
			name string
			x    *search.Index
		}{{"index", e.idx}, {"stored sets and postings", stored}, {"stored sets", bare}, {"growing sets and postings", sets}} {
			got, err := ix.x.Search(context.Background(), &q, 0, 5000)
			if err != nil || !slices.Equal(got.IDs, want.IDs) {
				t.Fatalf("`%s` (seed %d): %s found %d records %v (%v), the predicate on every record %d %v", s, seed, ix.name, len(got.IDs), clipIDs(got.IDs), err, len(want.IDs), clipIDs(want.IDs))
			}
		}
	}
	t.Logf("%d random queries, %d parsed, %d of them matched records: the same IDs from the index, the stored sets with and without their postings, the growing sets and the predicate", asked, parsed, matched)
	if stored.PostedChunks() == 0 || sets.PostedChunks() == 0 || bare.PostedChunks() != 0 {
		t.Fatalf("chunks searched on their postings: stored %d, growing %d, stored without %d", stored.PostedChunks(), sets.PostedChunks(), bare.PostedChunks())
	}
	if parsed < asked/2 || matched < parsed/4 {
		t.Fatalf("%d of %d queries parsed, %d matched: the generator went wrong", parsed, asked, matched)
	}
}

// clipIDs returns the first IDs of ids, for a message.
func clipIDs(ids []uint64) []uint64 { return ids[:min(len(ids), 12)] }
