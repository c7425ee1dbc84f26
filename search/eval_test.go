package search

import (
	"testing"

	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestStringMode guards the one thing the evaluator reads from bleve by
// reflection: the mark of a query string's conjunctions and disjunctions,
// which decides whether their clauses that match nothing are dropped.
func TestStringMode(t *testing.T) {
	q, err := query.NewQueryStringQuery(`+a b -c`).Parse()
	if err != nil {
		t.Fatal(err)
	}
	bq := q.(*query.BooleanQuery)
	for _, sub := range []query.Query{bq.Must, bq.Should, bq.MustNot} {
		if !stringMode(sub) {
			t.Fatalf("%T of a query string not in string mode: has bleve renamed queryStringMode?", sub)
		}
	}
	for _, sub := range []query.Query{query.NewConjunctionQuery(nil), query.NewDisjunctionQuery(nil)} {
		if stringMode(sub) {
			t.Fatalf("%T built by hand in string mode", sub)
		}
	}
}

// TestContainsFoldASCII checks the prefilter that spares analysing records.
func TestContainsFoldASCII(t *testing.T) {
	for _, tc := range []struct {
		s, lit string
		want   bool
	}{
		{"Player.Update called", "update", true},
		{"PLAYER", "player", true},
		{"play", "player", false},
		{"xxplayeR", "player", true},
		{"pla yer", "player", false},
		{"3.14", "14", true},
		{"", "a", false},
	} {
		if got := containsFoldASCII(tc.s, tc.lit); got != tc.want {
			t.Errorf("containsFoldASCII(%q, %q) = %v", tc.s, tc.lit, got)
		}
	}
	an := newAnalyzers(newMapping()).text
	for _, tc := range []struct {
		text, lit string
		want      bool
	}{
		{"İNFO", "info", true},          // lower-cases to info
		{"\u212Aelvin", "kelvin", true}, // the Kelvin sign lower-cases to k
		{"ſtep", "step", true},          // (?i)step matches it
		{"nothing here", "info", false},
		{"Über alles", "info", false},
	} {
		v := &recView{r: &oplog.Record{Text: tc.text}, an: an}
		if got := v.mayHold(0, tc.lit); got != tc.want {
			t.Errorf("mayHold(%q, %q) = %v", tc.text, tc.lit, got)
		}
	}
}
