package workload_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestNewWords_Shape: the random-word workload's lines have 18 words of
// the vocabulary, every third among its first 500; 50 names and 4
// sources, each drawn about evenly; levels about 30/55/10/5 %; nothing
// but lines; the same stream for the same seed.
func TestNewWords_Shape(t *testing.T) {
	const n = 200_000
	recs := make([]oplog.Record, n)
	workload.NewWords(7).Fill(recs)
	vocab := workload.Vocabulary()
	index := make(map[string]int, len(vocab))
	for i, w := range vocab {
		index[w] = i
	}
	levels := map[oplog.Level]int{}
	names, sources := map[string]int{}, map[string]int{}
	var rare int
	for i := range recs {
		r := &recs[i]
		if r.Kind != oplog.KindLine || r.Stack != "" || r.Data != nil || r.Tool != "" {
			t.Fatalf("record %d is not a plain line: %+v", i, r)
		}
		words := strings.Fields(r.Text)
		if len(words) != workload.WordsPerLine {
			t.Fatalf("record %d has %d words: %q", i, len(words), r.Text)
		}
		for j, w := range words {
			k, ok := index[w]
			if !ok || j%3 == 0 && k >= workload.WordsCommon {
				t.Fatalf("record %d word %d %q: in the vocabulary %v at %d", i, j, w, ok, k)
			}
			if k >= workload.WordsCommon {
				rare++
			}
		}
		levels[r.Level]++
		names[r.Name]++
		sources[r.Source]++
		if i > 0 && r.Time.Before(recs[i-1].Time) {
			t.Fatalf("record %d is older than the one before", i)
		}
	}
	for l, want := range map[oplog.Level]float64{oplog.LevelDebug: 0.30, oplog.LevelInfo: 0.55, oplog.LevelWarn: 0.10, oplog.LevelError: 0.05} {
		if got := float64(levels[l]) / n; got < want-0.01 || got > want+0.01 {
			t.Errorf("level %s: %.3f of the lines, want %.2f", l, got, want)
		}
	}
	if len(names) != 50 || len(sources) != 4 {
		t.Errorf("%d names and %d sources, want 50 and 4", len(names), len(sources))
	}
	for s, c := range sources {
		if c < n/4*9/10 || c > n/4*11/10 {
			t.Errorf("source %s: %d lines, want about %d", s, c, n/4)
		}
	}
	// Two of every three words are drawn from all 5,000: 90% of those lie past the first 500.
	if got, want := float64(rare)/float64(n*workload.WordsPerLine), 2.0/3*0.9; got < want-0.01 || got > want+0.01 {
		t.Errorf("%.3f of the words lie past the first %d, want %.3f", got, workload.WordsCommon, want)
	}
	again := make([]oplog.Record, 100)
	workload.NewWords(7).Fill(again)
	if !slices.EqualFunc(again, recs[:100], func(a, b oplog.Record) bool { return a.Text == b.Text && a.Time.Equal(b.Time) && a.Name == b.Name }) {
		t.Error("the same seed gave another stream")
	}
}
