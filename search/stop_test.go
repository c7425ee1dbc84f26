package search_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// loveError is the line LÖVE prints for a Lua error, as an agent pastes
// part of it.
const loveError = "Error: main.lua:5: attempt to index a nil value (global 'player')"

// TestIndex_Search_StopWords: a query of the words an agent saw finds the
// line however the records are held (in stored term sets, growing ones,
// or only in the store),
// a stop word of it left out and a phrase keeping its place; a query of
// only stop words is an error that names them.
func TestIndex_Search_StopWords(t *testing.T) {
	dir := t.TempDir()
	e := mustOpen(t, dir, small(), nil)
	// Opened on the empty store with no wake-ups, these two never index:
	// one evaluates every record, the other skips chunks by their term sets.
	lag, sets := openLagging(t, e, dir, "lagging", 300), openLagging(t, e, dir, "sets", 10)
	logtest.MustAppend(t, e.log, lines(0, 40)...)
	love := logtest.MustAppend(t, e.log, oplog.Record{Level: oplog.LevelError, Source: "love", Name: "Game", Text: loveError,
		Stack: "stack traceback:\n\t[C]: in function 'error'\n\tmain.lua:5: in function 'update'"})[0]
	logtest.MustAppend(t, e.log, lines(40, 40)...)
	adjacent := logtest.MustAppend(t, e.log, oplog.Record{Level: oplog.LevelInfo, Source: "love", Name: "Save", Text: "save attempt index 3 written"})[0]
	logtest.MustAppend(t, e.log, lines(80, 40)...)
	e.waitIndexed()
	// The index may have built some term sets itself after the appends
	// woke it: build the rest, then every chunk has one.
	buildTerms(t, sets)
	if last, chunks := e.db.Stats().LastID, sets.TermSetChunks(); uint64(chunks) != (last+9)/10 {
		t.Fatalf("%d chunks with term sets for %d records in chunks of 10", chunks, last)
	}
	if lag.Status().SegmentsThrough != 0 || sets.Status().SegmentsThrough != 0 || sets.Status().Lag != 0 {
		t.Fatalf("the lagging indexes indexed: %+v, %+v", lag.Status(), sets.Status())
	}
	ctx := context.Background()
	indexes := map[string]*search.Index{"segments": e.idx, "evaluated": lag, "term sets": sets}
	errors := e.want(func(r *oplog.Record) bool { return r.Level >= oplog.LevelError })
	for _, c := range []struct {
		query string
		want  []uint64
	}{
		{"attempt to index", []uint64{adjacent.ID, love.ID}}, // as attempt index
		{"attempt index", []uint64{adjacent.ID, love.ID}},
		{"Attempt TO Index a nil value", []uint64{love.ID}},
		{`"attempt to index"`, []uint64{love.ID}}, // one word between: not "attempt index"
		{`"attempt index"`, []uint64{adjacent.ID}},
		{`text:"to index a nil"`, []uint64{love.ID}},
		{"attempt to index level:error", []uint64{love.ID}},
		{"attempt to index -save", []uint64{love.ID}},
		{"attempt (to OR the) index NOT (of the)", []uint64{adjacent.ID, love.ID}},
		{"to level:error", errors}, // what is left: the filter
	} {
		for name, x := range indexes {
			h, err := x.Search(ctx, &oplog.SearchQuery{Query: c.query}, 0, 500)
			if err != nil || !slices.Equal(h.IDs, c.want) {
				t.Fatalf("%s: %q = %v (%v), want %v", name, c.query, h.IDs, err, c.want)
			}
			if slices.Contains(h.IDs, love.ID) && strings.Contains(c.query, "attempt") {
				// Highlighting marks a word of the query, never a stop word.
				if f := oplog.Fragment(&love, h.Terms); f != "Error: main.lua:5: **attempt** to index a nil value (global 'player')" {
					t.Fatalf("%s: %q: fragment %q (terms %v)", name, c.query, f, h.Terms)
				}
			}
		}
	}
	for q, want := range map[string]string{
		"to":         "query: `to` is too common to search (it is left out of the index, so alone it matches nothing); add a rarer word or a phrase around it",
		`"to"`:       "`to` is too common to search",
		"the a":      "`the` and `a` are too common to search",
		"-to OR the": "`to` and `the` are too common to search",
	} {
		for name, x := range indexes {
			_, err := x.Search(ctx, &oplog.SearchQuery{Query: q, Filter: oplog.Filter{MinLevel: oplog.LevelError}}, 0, 10)
			if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(oplog.ErrorMessage(err), want) {
				t.Fatalf("%s: %q: %v, want EINVALID saying %q", name, q, err, want)
			}
		}
	}
}
