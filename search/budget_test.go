package search

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// The sketch counts distinct hashes within a few percent, ignores repeats,
// and forgets what remove takes back.
func TestTermSketch(t *testing.T) {
	var s termSketch
	for _, n := range []int{1000, 20_000, maxStepTerms} {
		s.reset()
		r := rand.New(rand.NewPCG(uint64(n), 1))
		for range n {
			h := r.Uint64()
			s.add(h)
			s.add(h)
		}
		if e := s.estimate(); e < int64(n)*97/100 || e > int64(n)*103/100 {
			t.Errorf("%d distinct hashes: estimate %d", n, e)
		}
		ones := s.ones
		if i, ok := s.add(r.Uint64()); ok {
			s.remove(i)
		}
		if s.ones != ones {
			t.Errorf("add then remove: %d bits set, want %d", s.ones, ones)
		}
	}
}

// An indexing step takes records until one would bring it past a bound:
// its bytes, its words, its distinct words (a field that may be cut counts
// maxFieldTerms of both); the first record of a step is always taken.
func TestStepBudget_Take(t *testing.T) {
	blob := json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)
	fewWords := strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa ", 800) // 8,000 words, 10 distinct
	for _, c := range []struct {
		name string
		rec  func(i int) oplog.Record
		want int // records taken before the first refused
	}{
		{"Bytes", func(int) oplog.Record { return oplog.Record{Text: "blob", Data: blob} }, maxStepBytes / (1<<20 + recordOverhead + 6)},
		{"Words", func(int) oplog.Record { return oplog.Record{Stack: fewWords} }, maxStepWords / 8000},
		{"Terms", func(i int) oplog.Record { return oplog.Record{Stack: distinctWords(uint64(i), 1000)} }, maxStepTerms / 1000},
		{"Cut", func(i int) oplog.Record { return oplog.Record{Stack: distinctWords(uint64(i), maxFieldTerms+1)} }, maxStepTerms / maxFieldTerms},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b stepBudget
			b.reset()
			n := 0
			for {
				r := c.rec(n)
				if _, ok := b.take(&r, n == 0); !ok {
					break
				}
				n++
			}
			if n < c.want*97/100 || n > c.want*103/100+1 {
				t.Errorf("took %d records, want %d", n, c.want)
			}
			// The refused record left nothing behind: it fits a new step.
			ones := b.sketch.ones
			r := c.rec(n)
			if _, ok := b.take(&r, false); ok || b.sketch.ones != ones {
				t.Errorf("a refused record changed the step: taken %v, %d bits set, want %d", ok, b.sketch.ones, ones)
			}
		})
	}
	var b stepBudget
	b.reset()
	huge := oplog.Record{Stack: distinctWords(1, maxFieldTerms*4), Data: blob}
	if w, ok := b.take(&huge, true); !ok || w != maxFieldTerms {
		t.Errorf("the first record of a step: taken %v, weight %d", ok, w)
	}
}

// Steps read every record once, in order, whatever their sizes, each step
// within its bounds (but for a step of one record) and BatchSize.
func TestIndex_ReadStep(t *testing.T) {
	st := oplogtest.NewMemory()
	var recs []oplog.Record
	for i := range 120 {
		r := oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "game", Text: fmt.Sprintf("line %d", i)}
		if i >= 40 && i < 80 && i%3 != 0 {
			r.Stack = distinctWords(uint64(i), 3000) + strings.Repeat("padding ", 60_000) // ~500 KB
		}
		recs = append(recs, r)
	}
	if err := st.Append(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	x := &Index{st: st, opts: Options{BatchSize: 50}}
	var ids []uint64
	steps := 0
	for wm := uint64(0); ; steps++ {
		tl, weights, err := x.readStep(wm, st.Stats().Revision)
		if err != nil {
			t.Fatal(err)
		}
		var bytes int64
		for i := range tl.Lines {
			ids = append(ids, tl.Lines[i].ID)
			bytes += recordBytes(&tl.Lines[i])
		}
		if len(weights) != len(tl.Lines) || len(tl.Lines) > 50 || len(tl.Lines) > 1 && bytes > maxStepBytes {
			t.Fatalf("step %d: %d records (%d weights) of %d bytes", steps, len(tl.Lines), len(weights), bytes)
		}
		if tl.More && tl.LastID != tl.Lines[len(tl.Lines)-1].ID {
			t.Fatalf("step %d ends at %d, its last record is %d", steps, tl.LastID, tl.Lines[len(tl.Lines)-1].ID)
		}
		if !tl.More {
			break
		}
		wm = tl.LastID
	}
	if len(ids) != len(recs) {
		t.Fatalf("read %d records in %d steps, want %d", len(ids), steps, len(recs))
	}
	for i, id := range ids {
		if id != uint64(i+1) {
			t.Fatalf("record %d read as %d", i+1, id)
		}
	}
	if steps < 3 {
		t.Errorf("%d steps: the large records did not end any", steps)
	}
}

// fieldWords counts the words eachWord splits, and hashes alike the words
// whose terms are alike: the same letters in another case, the same first
// maxTokenBytes.
func TestFieldWords(t *testing.T) {
	long := strings.Repeat("Ab", maxTokenBytes)
	for _, c := range []struct {
		in   string
		same [][2]int // words whose hashes are equal; any other two differ
	}{
		{"", nil},
		{"Foo foo FOO fOo", [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}},
		{"NullReferenceException: at Foo.cs:42 don't naïve_X ΩMEGA-2 x\xffy 日本語", nil},
		{"under_score under_scorE 0123456789abcdef 0123456789ABCDEF", [][2]int{{0, 1}, {2, 3}}},
		{long + "x " + long + "y " + long[:100], [][2]int{{0, 1}}},
		{"İNFO ÜBER straße Straße", [][2]int{{2, 3}}},
	} {
		n, hs := fieldWords(c.in, nil)
		want := 0
		eachWord([]byte(c.in), func(int, int, bool) bool { want++; return true })
		if n != want || len(hs) != want {
			t.Errorf("%.40q: %d words, %d hashes; eachWord splits %d", c.in, n, len(hs), want)
			continue
		}
		for a := range hs {
			for b := range a {
				if same := slices.Contains(c.same, [2]int{b, a}); (hs[a] == hs[b]) != same {
					t.Errorf("%.40q: words %d and %d hash alike: %v, want %v", c.in, b, a, !same, same)
				}
			}
		}
	}
	n, _ := fieldWords(distinctWords(1, maxFieldTerms+50), nil)
	if n != maxFieldTerms+1 {
		t.Errorf("%d words counted of %d: want the count to stop at %d", n, maxFieldTerms+50, maxFieldTerms+1)
	}
}
