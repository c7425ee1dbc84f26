package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
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

// TestFieldsAnalyseAsBleve checks that the documents' own fields give the
// terms, frequencies and lengths bleve's TextField gives with the same
// analyzers, so that the index is the same as with bleve's fields.
func TestFieldsAnalyseAsBleve(t *testing.T) {
	an := newAnalyzers(newMapping())
	for _, s := range []string{"", "...", "the the a", "NullReferenceException: the Foo.cs:42 don't naïve_X ΩMEGA-2 (at Assets/x.cs)",
		"x x X x. İSTANBUL ǅemal ΣΑΣ and the END end End", strings.Repeat("word Word wörd ", 50),
		strings.Repeat("Ab", 129) + " " + strings.Repeat("ab", 128) + " " + strings.Repeat("AB", 200) + "x " + strings.Repeat("é", 200),
		strings.Repeat("K", 300) + " " + strings.Repeat("Ⱥ", 200) + " " + strings.Repeat("a", 255) + "é " + strings.Repeat("z", 1<<20)} {
		mine := &textField{name: "text", value: []byte(s), an: an.words}
		mine.Analyze()
		theirs := document.NewTextFieldCustom("text", nil, []byte(s), textOpts, an.text)
		theirs.Analyze()
		if mine.AnalyzedLength() != theirs.AnalyzedLength() {
			t.Errorf("%q: length %d, bleve's %d", s, mine.AnalyzedLength(), theirs.AnalyzedLength())
		}
		if got, want := freqString(mine.AnalyzedTokenFrequencies()), freqString(theirs.AnalyzedTokenFrequencies()); got != want {
			t.Errorf("%q: frequencies\n%s\nbleve's\n%s", s, got, want)
		}
	}
	for _, v := range []string{"Physics", "error", "naïve Name"} {
		mine := an.kw.field("name", v)
		theirs := document.NewTextFieldCustom("name", nil, []byte(v), keywordOpts, an.keyword)
		theirs.Analyze()
		if mine.AnalyzedLength() != theirs.AnalyzedLength() || freqString(mine.AnalyzedTokenFrequencies()) != freqString(theirs.AnalyzedTokenFrequencies()) {
			t.Errorf("keyword %q: %d %s, bleve's %d %s", v, mine.AnalyzedLength(), freqString(mine.AnalyzedTokenFrequencies()),
				theirs.AnalyzedLength(), freqString(theirs.AnalyzedTokenFrequencies()))
		}
		if an.kw.field("name", v) != mine {
			t.Errorf("keyword %q: not shared", v)
		}
	}
}

// freqString spells tf, sorted; a term that differs from its key shows as key=term.
func freqString(tf index.TokenFrequencies) string {
	var out []string
	for k, f := range tf {
		if string(f.Term) != k {
			k += "=" + string(f.Term)
		}
		out = append(out, fmt.Sprintf("%s:%d", k, f.Frequency()))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
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
