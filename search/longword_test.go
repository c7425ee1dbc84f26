package search_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestSearch_LongWords: words longer than the index's 256-byte terms are
// found whole, exactly, above the watermark and in the index alike: two
// words that share their first 300 bytes are told apart (the records
// confirm them), as a phrase too; a prefix finds both; the first 256
// bytes alone, a word no record holds, find nothing; a 1 MiB one-word
// stack is found by its prefix, and a hit's fragment marks the whole word.
func TestSearch_LongWords(t *testing.T) {
	shared := "Base64" + longWord(1, 294)
	wordA, wordB := shared+"Alpha"+longWord(2, 700), shared+"Beta"+longWord(3, 700)
	huge := longWord(4, oplog.MaxStackBytes)
	recs := []oplog.Record{
		{Level: oplog.LevelInfo, Text: "crash " + wordA + " end"},
		{Level: oplog.LevelInfo, Text: "crash " + wordB},
		{Level: oplog.LevelError, Text: "blob", Stack: huge},
		{Level: oplog.LevelInfo, Text: "crash ordinary " + wordA[:100]},
	}
	has := func(field, word string) func(r *oplog.Record) bool {
		return func(r *oplog.Record) bool {
			s := r.Text
			if field == "stack" {
				s = r.Stack
			}
			for _, w := range strings.FieldsFunc(s, func(c rune) bool { return c == ' ' }) {
				if strings.EqualFold(w, word) {
					return true
				}
			}
			return false
		}
	}
	prefixed := func(p string) func(r *oplog.Record) bool {
		return func(r *oplog.Record) bool {
			for _, s := range []string{r.Text, r.Stack} {
				for _, w := range strings.Fields(s) {
					if strings.HasPrefix(strings.ToLower(w), p) && len(w) > len(p) {
						return true
					}
				}
			}
			return false
		}
	}
	checks := func(e *env) {
		e.check(oplog.SearchQuery{Query: wordA}, has("text", wordA))
		e.check(oplog.SearchQuery{Query: strings.ToLower(wordB)}, has("text", wordB))
		e.check(oplog.SearchQuery{Query: `"crash ` + wordA + ` end"`}, has("text", wordA))
		e.check(oplog.SearchQuery{Query: `"crash ` + wordB + ` end"`}, func(*oplog.Record) bool { return false })
		e.check(oplog.SearchQuery{Query: shared[:256]}, func(*oplog.Record) bool { return false })
		e.check(oplog.SearchQuery{Query: "NOT " + wordA}, func(r *oplog.Record) bool { return !has("text", wordA)(r) })
		e.check(oplog.SearchQuery{Query: strings.ToLower(shared[:40]) + "*"}, prefixed(strings.ToLower(shared[:40])))
		e.check(oplog.SearchQuery{Query: "stack:" + strings.ToLower(huge[:100]) + "*"}, func(r *oplog.Record) bool { return r.Stack == huge })
		p, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: wordA})
		if err != nil || len(p.Hits) != 1 || !strings.Contains(p.Hits[0].Fragment, "**"+wordA[:50]) {
			t.Errorf("fragment of a long word: %+v %v", p.Hits, err)
		}
	}
	opts := small()
	opts.Interval = 2 * time.Hour // above the watermark: evaluated on the records
	e := mustOpen(t, t.TempDir(), opts, nil)
	logtest.MustAppend(t, e.log, recs...)
	checks(e)
	if s := e.idx.Status(); s.SegmentsThrough != 0 {
		t.Fatalf("the indexer ran: %+v", s)
	}
	e.opts = small()
	e = e.reopen()
	e.waitIndexed()
	checks(e)
}
