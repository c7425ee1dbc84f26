package search

import (
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

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
