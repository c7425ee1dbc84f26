package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/mcplogd/mcplogd/oplog"
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
		// name is indexed without frequencies, template with them (mapping.go)
		for _, name := range []string{"name", ql.TemplateField} {
			mine := an.kw.field(name, v)
			theirs := document.NewTextFieldCustom(name, nil, []byte(v), keywordOptions(name), an.keyword)
			theirs.Analyze()
			if mine.Options() != theirs.Options() || mine.AnalyzedLength() != theirs.AnalyzedLength() ||
				freqString(mine.AnalyzedTokenFrequencies()) != freqString(theirs.AnalyzedTokenFrequencies()) {
				t.Errorf("keyword %s %q: %v %d %s, bleve's %v %d %s", name, v, mine.Options(), mine.AnalyzedLength(), freqString(mine.AnalyzedTokenFrequencies()),
					theirs.Options(), theirs.AnalyzedLength(), freqString(theirs.AnalyzedTokenFrequencies()))
			}
			if an.kw.field(name, v) != mine {
				t.Errorf("keyword %s %q: not shared", name, v)
			}
		}
	}
	if keywordOpts.SkipFreqNorm() == uniqueOpts.SkipFreqNorm() || !textOpts.SkipFreqNorm() {
		t.Errorf("options: keyword %v, unique %v, text %v", keywordOpts, uniqueOpts, textOpts)
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

// distinctWords returns n distinct words of letters, the same for a seed.
func distinctWords(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	seen := map[string]bool{}
	for len(seen) < n {
		w := make([]byte, 8)
		for i := range w {
			w[i] = byte('a' + r.IntN(26))
		}
		if !seen[string(w)] {
			seen[string(w)] = true
			b.Write(w)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// A field of more than maxFieldTerms distinct words keeps the first
// maxFieldTerms, and its document names it in the cut field; a long field
// of few distinct words is whole.
func TestDocument_Cut(t *testing.T) {
	an := newAnalyzers(newMapping())
	many := distinctWords(3, maxFieldTerms+100)
	d := an.document(&oplog.Record{ID: 1, Text: "short", Stack: many})
	var cut []string
	for _, f := range d.Fields {
		switch f := f.(type) {
		case *kwField:
			if f.name == cutField {
				cut = append(cut, string(f.value))
			}
		case *textField:
			if f.name == "stack" {
				f.Analyze()
				first := strings.Fields(many)
				if !f.cut || len(f.freqs) != maxFieldTerms || f.freqs[first[0]] == nil || f.freqs[first[maxFieldTerms-1]] == nil || f.freqs[first[maxFieldTerms]] != nil {
					t.Errorf("stack of %d distinct words: cut %v, %d terms", maxFieldTerms+100, f.cut, len(f.freqs))
				}
			}
		}
	}
	if strings.Join(cut, ",") != "stack" {
		t.Errorf("cut fields %q, want stack", cut)
	}
	few := strings.Repeat("Alpha beta, gamma the delta! ", 3*maxFieldTerms)
	n := 3 * maxFieldTerms
	// counted for a field indexed with frequencies, 0 for one without
	defer func(o index.FieldIndexingOptions) { textOpts = o }(textOpts)
	for _, opts := range []index.FieldIndexingOptions{index.IndexField, index.IndexField | index.SkipFreqNorm} {
		textOpts = opts
		f := &textField{name: "stack", value: []byte(few), an: an.words}
		f.Analyze()
		k := n * freqOne(opts)
		if want := fmt.Sprintf("alpha:%d beta:%d delta:%d gamma:%d", k, k, k, k); f.cut || freqString(f.freqs) != want || f.length != 4*n {
			t.Errorf("%v: a long field of few words: cut %v, %d words, %s; want %s", opts, f.cut, f.length, freqString(f.freqs), want)
		}
	}
}
