package search_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestIndex_Search_HighlightNot: a word written under NOT is never marked
// in a fragment (the hits were not searched for it), under two it is
// again; from stored sets and growing ones alike.
func TestIndex_Search_HighlightNot(t *testing.T) {
	recs := []oplog.Record{
		{Level: oplog.LevelError, Name: "Game", Text: "null, reference in list"},
		{Level: oplog.LevelError, Name: "Game", Text: "null reference while loading"},
		{Level: oplog.LevelError, Name: "Game", Text: "spawn failed: reference lost"},
	}
	want := map[string]map[string]string{ // query: text: fragment
		"reference NOT (null AND loading)": {
			recs[0].Text: "null, **reference** in list",
			recs[2].Text: "spawn failed: **reference** lost",
		},
		`reference AND NOT "null loading"`: {
			recs[0].Text: "null, **reference** in list",
			recs[1].Text: "null **reference** while loading",
			recs[2].Text: "spawn failed: **reference** lost",
		},
		"reference AND NOT (spawn AND NOT null)": { // null wanted again
			recs[0].Text: "**null**, reference in list",
			recs[1].Text: "**null** reference while loading",
		},
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
