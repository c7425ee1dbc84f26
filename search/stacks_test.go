package search_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// stackLines returns n lines from ID from on: every 4th has one of three
// stacks that repeat, every 50th a stack of its own, every 499th a stack
// too long to index whole (its last word is "farword<ID>").
func stackLines(from, n int) []oplog.Record {
	repeated := []string{
		"NullReferenceException: Object reference not set\n  at Player.Update () in Player.cs:42\n  at Game.Tick () in Game.cs:7",
		"stack traceback:\n\t[string \"enemy\"]:12: in function 'think'\n\t[C]: in ?",
		"java.lang.IllegalStateException: chunk not loaded\n\tat net.minecraft.World.getChunk(World.java:310)",
	}
	recs := make([]oplog.Record, n)
	for i := range recs {
		k := from + i
		r := oplog.Record{Level: oplog.LevelInfo, Name: "Game", Text: fmt.Sprintf("tick %d", k)}
		switch {
		case k%499 == 0:
			var b strings.Builder
			for w := range 9000 {
				fmt.Fprintf(&b, "w%dx%d ", k, w)
			}
			r.Level, r.Stack = oplog.LevelError, b.String()+fmt.Sprintf("farword%d", k)
		case k%50 == 0:
			r.Level, r.Stack = oplog.LevelError, fmt.Sprintf("PanicError: single %d\n  at Only%d.Run () in Only.cs:%d", k, k, k)
		case k%4 == 0:
			r.Level, r.Stack = oplog.LevelError, repeated[k/4%3]
		}
		recs[i] = r
	}
	return recs
}

// A stack is indexed once a segment, and every shape of query on stack
// finds the records that hold it, as the records themselves say, before
// and after indexing, and after a restart indexes the same stacks again.
func TestIndex_Search_StacksOnce(t *testing.T) {
	e := mustOpen(t, t.TempDir(), small(), nil)
	logtest.MustAppend(t, e.log, stackLines(1, 2600)...)
	has := func(w string) func(r *oplog.Record) bool {
		return func(r *oplog.Record) bool { return strings.Contains(strings.ToLower(r.Stack), w) }
	}
	cases := []struct {
		query string
		keep  func(r *oplog.Record) bool
	}{
		{`stack:player`, has("player")},
		{`player`, has("player")},
		{`stack:think`, has("think")},
		{`stack:Playe*`, has("player")},
		{`stack:*ullref*`, has("nullref")},
		{`stack:/chunk|enemy/`, func(r *oplog.Record) bool { return has("chunk")(r) || has("enemy")(r) }},
		{`stack:playr~1`, has("player")},
		{`stack:"player update"`, has("player.update")},
		{`stack:"update player"`, func(r *oplog.Record) bool { return false }},
		{`"chunk not loaded"`, has("chunk not loaded")},
		{`stack:single`, has("single")},
		{`stack:only1250`, has("only1250.")},
		{`farword998`, has("farword998")},
		{`stack:farword*`, has("farword")},
		{`level:error -stack:player`, func(r *oplog.Record) bool { return r.Level == oplog.LevelError && !has("player")(r) }},
		{`tick -player`, func(r *oplog.Record) bool { return !has("player")(r) }},
		{`stack:player OR text:"tick 7"`, func(r *oplog.Record) bool { return has("player")(r) || r.Text == "tick 7" }},
		{``, func(r *oplog.Record) bool { return true }},
	}
	run := func(stage string) {
		for _, c := range cases {
			t.Run(stage+"/"+c.query, func(t *testing.T) {
				e := *e
				e.t = t
				e.check(oplog.SearchQuery{Query: c.query, Limit: 97}, c.keep)
			})
		}
	}
	run("above the watermark")
	e.waitIndexed()
	run("in segments")
	// 2,600 records in segments of 1,000: three segments hold the repeated
	// stacks, once each.
	if n, err := e.idx.TermDocs("stack", "player"); err != nil || n != 3 {
		t.Errorf("documents holding the stack word player: %d (%v), want 3, one a segment", n, err)
	}
	if n, err := e.idx.TermDocs("stack", "only1250"); err != nil || n != 1 {
		t.Errorf("documents holding only1250: %d (%v), want 1", n, err)
	}
	// Reopened, the index knows no stack it holds: it indexes them again.
	e = e.reopen()
	logtest.MustAppend(t, e.log, stackLines(2601, 900)...)
	e.waitIndexed()
	run("after a restart")
	if n, err := e.idx.TermDocs("stack", "player"); err != nil || n < 4 || n > 5 {
		t.Errorf("documents holding the stack word player after a restart: %d (%v), want 4 (one a segment; 5 before a merge)", n, err)
	}
}
