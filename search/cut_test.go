package search_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// manyWords returns n distinct words of eight letters, the same for a seed.
func manyWords(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 11))
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		if w := string(b); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// TestSearch_CutFields: a stack or text of more distinct words than the
// index holds for one field (8,192) is found by any of its words, exactly,
// in growing and stored sets alike: a word past the ones
// indexed, the same in the other field (not there), a phrase, NOT, a
// prefix, a wildcard, a fuzzy word and a regular expression past them, and
// a word no record holds; the records around them are unaffected.
func TestSearch_CutFields(t *testing.T) {
	a, b := manyWords(1, 10_000), manyWords(2, 10_000)
	recs := lines(0, 40)
	recs[5].Stack = strings.Join(a, " ")
	recs[6].Text = "blob " + strings.Join(b, " ")
	recs[7].Stack = strings.Join(a[:9000], " ") + " Needle " + strings.Join(a[9000:], "\n") // a's words again, in another order
	late, early := a[9500], a[10]
	hasWord := func(field, w string) func(r *oplog.Record) bool {
		return func(r *oplog.Record) bool {
			s := r.Text + " " + r.Stack
			switch field {
			case "text":
				s = r.Text
			case "stack":
				s = r.Stack
			}
			return slices.ContainsFunc(strings.Fields(s), func(x string) bool { return strings.EqualFold(x, w) })
		}
	}
	checks := func(e *env) {
		t.Helper()
		e.check(oplog.SearchQuery{Query: late}, hasWord("", late))
		e.check(oplog.SearchQuery{Query: strings.ToUpper(b[9999])}, hasWord("", b[9999]))
		e.check(oplog.SearchQuery{Query: "stack:" + late}, hasWord("stack", late))
		e.check(oplog.SearchQuery{Query: "text:" + late}, hasWord("text", late))
		e.check(oplog.SearchQuery{Query: "text:" + b[9000]}, hasWord("text", b[9000]))
		e.check(oplog.SearchQuery{Query: early}, hasWord("", early))
		e.check(oplog.SearchQuery{Query: "NOT " + late, Limit: 100}, func(r *oplog.Record) bool { return !hasWord("", late)(r) })
		e.check(oplog.SearchQuery{Query: `"` + a[9100] + " " + a[9101] + `"`}, hasWord("", a[9100]))
		e.check(oplog.SearchQuery{Query: `"` + a[9101] + " " + a[9100] + `"`}, func(*oplog.Record) bool { return false })
		e.check(oplog.SearchQuery{Query: `"` + a[8999] + ` needle"`}, func(r *oplog.Record) bool { return r.ID == 8 })
		e.check(oplog.SearchQuery{Query: late[:6] + "*"}, func(r *oplog.Record) bool {
			return slices.ContainsFunc(strings.Fields(r.Text+" "+r.Stack), func(x string) bool { return strings.HasPrefix(strings.ToLower(x), late[:6]) })
		})
		e.check(oplog.SearchQuery{Query: "stack:" + late[:3] + "?" + late[4:]}, hasWord("stack", late))
		e.check(oplog.SearchQuery{Query: "stack:/" + late[:7] + "./"}, hasWord("stack", late))
		typo := late[:7] + string(rune('a'+(late[7]-'a'+1)%26))
		if got := e.all(oplog.SearchQuery{Query: typo + "~1"}); !slices.Contains(got, 6) || !slices.Contains(got, 8) {
			t.Errorf("%s~1 found %v, want records 6 and 8 among them", typo, got)
		}
		e.check(oplog.SearchQuery{Query: "zzzzzzzzz"}, func(*oplog.Record) bool { return false })
		e.check(oplog.SearchQuery{Query: "needle level:error"}, func(r *oplog.Record) bool { return hasNeedle(r) && r.Level == oplog.LevelError })
	}
	opts := small()
	opts.Interval = 2 * time.Hour // above the watermark: evaluated on the records, chunks by their term sets
	e := mustOpen(t, t.TempDir(), opts, nil)
	logtest.MustAppend(t, e.log, recs...)
	if _, err := e.idx.BuildTerms(); err != nil {
		t.Fatal(err)
	}
	checks(e)
	if s := e.idx.Status(); s.SegmentsThrough != 0 {
		t.Fatalf("the indexer ran: %+v", s)
	}
	e.opts = small()
	e = e.reopen()
	e.waitIndexed()
	checks(e)
}
