package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// TestWordsAnalyzer_SameAsLanguage keeps the index's words and the query
// language's (ql.Words, which studio scope searches by) the same: one stop
// word list, one split, one case.
func TestWordsAnalyzer_SameAsLanguage(t *testing.T) {
	an := newAnalyzers(newMapping()).text
	stop := an.(*wordsAnalyzer).stop
	for _, w := range ql.StopWords() {
		if _, ok := stop[w]; !ok {
			t.Errorf("%q is a stop word of the language, not of the index", w)
		}
	}
	if len(stop) != len(ql.StopWords()) {
		t.Errorf("the index has %d stop words, the language %d", len(stop), len(ql.StopWords()))
	}
	for _, text := range []string{"NullReferenceException at Player.Update() in Foo.cs:42", "the end of ÜBER_größe 3.14 don't",
		"İNFO \u212Aelvin ſtep", "a1b2 _x_ -- 日本語テキスト"} {
		var got, want []string
		for _, tok := range an.Analyze([]byte(text)) {
			want = append(want, fmt.Sprintf("%s@%d", tok.Term, tok.Position))
		}
		for _, w := range ql.Words(text) {
			got = append(got, fmt.Sprintf("%s@%d", w.Term, w.Position))
		}
		if !slices.Equal(got, want) {
			t.Errorf("ql.Words(%q) = %v, the index %v", text, got, want)
		}
	}
}

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

// TestWordsAnalyzer_CutsLongWords: a word's term is its lower-cased word
// cut to maxTokenBytes at a character boundary, whatever lower-casing does
// to its length (the Kelvin sign shrinks threefold, Ⱥ grows by half);
// cutWord gives the whole lower-cased word of a cut term, and "" for a
// whole one.
func TestWordsAnalyzer_CutsLongWords(t *testing.T) {
	a := newAnalyzers(newMapping()).text
	for _, w := range []string{strings.Repeat("a", 256), strings.Repeat("Ab", 129), strings.Repeat("é", 128), strings.Repeat("é", 129),
		strings.Repeat("\u212A", 300), strings.Repeat("Ⱥ", 200), strings.Repeat("a", 255) + "é", strings.Repeat("z", 1<<20)} {
		in := []byte("x " + w + " y")
		toks := a.Analyze(in)
		if len(toks) != 3 {
			t.Fatalf("%.20q: %d tokens", w, len(toks))
		}
		term, lower := string(toks[1].Term), strings.ToLower(w)
		if len(term) > maxTokenBytes || !utf8.ValidString(term) || !strings.HasPrefix(lower, term) ||
			len(lower) > maxTokenBytes && len(term) <= maxTokenBytes-utf8.UTFMax || len(lower) <= maxTokenBytes && term != lower {
			t.Errorf("%.20q (%d bytes lower-cased): term of %d bytes %.20q", w, len(lower), len(term), term)
		}
		if whole := cutWord(in, toks[1]); (whole != "") != (term != lower) || whole != "" && whole != lower {
			t.Errorf("%.20q: cutWord gave %d bytes", w, len(whole))
		}
		if toks[1].Start != 2 || toks[1].End != 2+len(w) || toks[2].Position != 3 {
			t.Errorf("%.20q: token at %d-%d, next at position %d", w, toks[1].Start, toks[1].End, toks[2].Position)
		}
	}
}
