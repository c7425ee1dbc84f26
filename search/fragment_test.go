package search_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestIndex_Search_PatternFragments: a prefix or wildcard search marks the
// word it matched in each hit's fragment, whole, from stored sets and
// growing ones alike.
func TestIndex_Search_PatternFragments(t *testing.T) {
	recs := []oplog.Record{
		{Level: oplog.LevelError, Name: "Game", Text: "autocrash disabled; the player crashed at wave 3"},
		{Level: oplog.LevelError, Name: "Game", Text: "CrashReporter: report written", Stack: "at Game.Crash()"},
		{Level: oplog.LevelInfo, Name: "Game", Text: "a crush of players"},
	}
	want := map[string]map[string]string{ // query: text: fragment
		"crash*": {
			recs[0].Text: "autocrash disabled; the player **crashed** at wave 3",
			recs[1].Text: "**CrashReporter**: report written",
		},
		"text:cr?sh*": {
			recs[0].Text: "autocrash disabled; the player **crashed** at wave 3",
			recs[1].Text: "**CrashReporter**: report written",
			recs[2].Text: "a **crush** of players",
		},
		"stack:game* report": {recs[1].Text: "CrashReporter: **report** written"}, // not the Reporter inside a word
	}
	for _, tc := range []struct {
		name     string
		interval time.Duration
	}{{"Segments", 0}, {"AboveWatermark", 2 * time.Hour}} {
		t.Run(tc.name, func(t *testing.T) {
			opts := small()
			if tc.interval > 0 {
				opts.Interval = tc.interval
			}
			e := mustOpen(t, t.TempDir(), opts, nil)
			logtest.MustAppend(t, e.log, recs...)
			if tc.interval == 0 {
				e.waitIndexed()
			}
			for q, frags := range want {
				p, err := e.log.Search(context.Background(), oplog.SearchQuery{Query: q})
				if err != nil {
					t.Fatalf("search %q: %v", q, err)
				}
				if len(p.Hits) != len(frags) {
					t.Errorf("search %q: %d hits, want %d", q, len(p.Hits), len(frags))
				}
				for _, h := range p.Hits {
					if w, ok := frags[h.Record.Text]; !ok || h.Fragment != w {
						t.Errorf("search %q: hit %q has fragment %q, want %q", q, h.Record.Text, h.Fragment, w)
					}
				}
			}
		})
	}
}
