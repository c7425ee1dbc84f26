package studio_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestClient_Search_HighlightNot: the studio marks in each hit's fragment
// the word the local search marks, from the same tree
// (oplog.HighlightWords): never a word written after NOT, which no hit is
// searched for. (The studio once split the query string by hand and marked
// "null" here: "**null**, reference in list".)
func TestClient_Search_HighlightNot(t *testing.T) {
	w := mustTwin(t)
	ctx := context.Background()
	for _, q := range []string{`reference NOT (null AND loading)`, `reference AND NOT "null loading"`} {
		r, err := oplog.Resolve(ctx, w.local, oplog.Args{SearchText: oplog.SearchText{Query: q}}, base)
		if err != nil {
			t.Fatalf("Resolve %q: %v", q, err)
		}
		local, err := w.local.Search(ctx, r.SearchQuery)
		if err != nil {
			t.Fatalf("local %q: %v", q, err)
		}
		want := map[uint64]string{}
		for _, h := range local.Hits {
			want[h.Record.ID] = h.Fragment
		}
		st, err := w.studio.Search(ctx, oplog.StudioSearchQuery{SearchQuery: r.SearchQuery})
		if err != nil {
			t.Fatalf("studio %q: %v", q, err)
		}
		if len(st.Hits) != len(local.Hits) || len(st.Hits) < 3 {
			t.Fatalf("%q: %d studio hits, %d local, want the same, at least 3", q, len(st.Hits), len(local.Hits))
		}
		for _, h := range st.Hits {
			if h.Fragment != want[h.ID] || strings.Contains(h.Fragment, "**null**") || !strings.Contains(h.Fragment, "**") {
				t.Errorf("%q: record %d: studio fragment %q, local %q; want the same, reference marked, not null", q, h.ID, h.Fragment, want[h.ID])
			}
		}
	}
}
