package search

import (
	"strings"
	"testing"
)

func TestWordsAnalyzer(t *testing.T) {
	a := newAnalyzers(newMapping()).text
	var words []string
	var positions []int
	for _, tok := range a.Analyze([]byte("NullReferenceException: the Foo.cs:42 don't naïve_X ΩMEGA-2 (at Assets/x.cs)")) {
		words = append(words, string(tok.Term))
		positions = append(positions, tok.Position)
	}
	// "the" and "at" are stop words: gone, their positions kept.
	want := []string{"nullreferenceexception", "foo", "cs", "42", "don", "t", "naïve_x", "ωmega", "2", "assets", "x", "cs"}
	if strings.Join(words, " ") != strings.Join(want, " ") {
		t.Fatalf("words %q, want %q", words, want)
	}
	wantPos := []int{1, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14}
	for i, p := range wantPos {
		if positions[i] != p {
			t.Fatalf("positions %v, want %v", positions, wantPos)
		}
	}
}
