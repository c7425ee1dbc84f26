package search_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestIndex_Search_Inflections: a bare word finds its inflections, in text
// and stack, above the watermark and in the segments alike; a quoted word,
// a field keyword and a compound stay exact.
func TestIndex_Search_Inflections(t *testing.T) {
	opts := small()
	opts.Interval = 2 * time.Hour // nothing indexed: every record above the watermark
	e := mustOpen(t, t.TempDir(), opts, nil)
	texts := []string{
		"Program crashed with signal 11",
		"3 crashes today",
		"CRASHING again",
		"crash",
		"crashpad uploaded a dump",
		"spawning 4 bots",
		"Spawned the boss",
		"spawn",
		"retries exhausted after 3 retry attempts",
		"nothing here",
	}
	var recs []oplog.Record
	for i := 0; i < 1200; i++ { // several segments and tail chunks
		r := oplog.Record{Level: oplog.LevelInfo, Name: "Game", Text: texts[i%len(texts)]}
		if i%len(texts) == 9 && i%20 == 9 {
			r.Level, r.Stack = oplog.LevelError, "crashed in Player.Update ()\n  at Player.cs:42"
		}
		if i%len(texts) == 4 {
			r.Name = "crash"
		}
		recs = append(recs, r)
	}
	logtest.MustAppend(t, e.log, recs...)
	words := func(r *oplog.Record) []string {
		return strings.FieldsFunc(strings.ToLower(r.Text+" "+r.Stack), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	}
	hasAny := func(ws ...string) func(r *oplog.Record) bool {
		return func(r *oplog.Record) bool {
			return slices.ContainsFunc(words(r), func(w string) bool { return slices.Contains(ws, w) })
		}
	}
	cases := []struct {
		query string
		keep  func(r *oplog.Record) bool
	}{
		{`crash`, hasAny("crash", "crashed", "crashes", "crashing")},
		{`Crashed`, hasAny("crash", "crashed", "crashes", "crashing")},
		{`text:crashes`, func(r *oplog.Record) bool {
			return strings.Contains(strings.ToLower(r.Text), "crash") && !strings.Contains(r.Text, "crashpad")
		}},
		{`stack:crash`, func(r *oplog.Record) bool { return r.Stack != "" }},
		{`"crash"`, hasAny("crash")},
		{`text:"crashed"`, func(r *oplog.Record) bool { return strings.Contains(r.Text, "crashed") }},
		{`crashpad`, hasAny("crashpad")},
		{`crash*`, func(r *oplog.Record) bool { return strings.Contains(strings.ToLower(r.Text+r.Stack), "crash") }},
		{`name:crash`, func(r *oplog.Record) bool { return r.Name == "crash" }},
		{`name:crashed`, func(r *oplog.Record) bool { return false }},
		{`spawn`, hasAny("spawn", "spawning", "spawned")},
		{`retry`, hasAny("retry", "retries")},
		{`crash -"crash"`, hasAny("crashed", "crashes", "crashing")},
		{`nothing`, hasAny("nothing")},
	}
	for _, c := range cases {
		e.check(oplog.SearchQuery{Query: c.query, Limit: 500}, c.keep)
	}
	if s := e.idx.Status(); s.SegmentsThrough != 0 {
		t.Fatalf("the indexer ran: %+v", s)
	}
	e.opts = small()
	e = e.reopen()
	e.waitIndexed()
	for _, c := range cases {
		e.check(oplog.SearchQuery{Query: c.query, Limit: 37}, c.keep)
	}
}
