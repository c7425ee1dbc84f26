package query

import (
	"errors"
	"testing"
)

// TestParse_StopWords checks that words and phrases holding no word but
// stop words are left out of the tree, node by node, and that a query left
// with nothing to match names its words.
func TestParse_StopWords(t *testing.T) {
	f := func(s, want string) {
		t.Helper()
		n, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if got := String(n); got != want {
			t.Fatalf("Parse(%q) = %s, want %s", s, got, want)
		}
	}
	// What an agent pastes: the stop word is left out of the AND.
	f(`attempt to index`, `and(attempt index)`)
	f(`Attempt TO Index a nil value`, `and(Attempt Index nil value)`)
	f(`text:the needle stack:of`, `needle`)
	// A phrase keeps its stop words: their places are gaps (see search).
	f(`"attempt to index"`, `"attempt to index"`)
	f(`text:"the needle"`, `text:"the needle"`)
	// Each node: an OR keeps its other alternatives, a NOT of a stop word
	// goes, a group of only stop words goes from its parent.
	f(`needle OR the`, `needle`)
	f(`(the OR a) needle`, `needle`)
	f(`needle -the`, `needle`)
	f(`needle NOT (the OR "of")`, `needle`)
	f(`(needle the) OR (a an)`, `needle`)
	f(`needle OR (the -haystack)`, `or(needle and(not(haystack)))`)
	// Left with exclusions only, it excludes, as -haystack does.
	f(`the -haystack`, `and(not(haystack))`)
	// Fields that match whole values keep every word.
	f(`name:the`, `name:the`)
	f(`to level:error`, `level:error`)
	// A fuzzy word asks for the words near it (go, top), which the index
	// holds: it is no stop word, as in Lucene, whose fuzzy terms are not
	// analyzed.
	f(`to~1 needle`, `and(to~1 needle)`)
	// A word the analyzer splits keeps its other words.
	f(`it's`, `it's`)

	e := func(s, want string) {
		t.Helper()
		n, err := Parse(s)
		var qe *Error
		if !errors.As(err, &qe) || err.Error() != want {
			t.Fatalf("Parse(%q) = %v, %v; want the error\n%s", s, n, err, want)
		}
	}
	one := func(w string) string {
		return "query: `" + w + "` is too common to search (it is left out of the index, so alone it matches nothing); " +
			"add a rarer word or a phrase around it"
	}
	e(`to`, one("to"))
	e(`TO`, one("to"))
	e(`"to"`, one("to"))
	e(`text:to`, one("to"))
	e(`-to`, one("to"))
	e(`(to)`, one("to"))
	e(`to to`, one("to"))
	e(`+-text:the`, one("the"))
	e(`the a`, "query: `the` and `a` are too common to search (they are left out of the index, so alone they match nothing); "+
		"add a rarer word or a phrase around them")
	e(`the OR "of a" OR -to`, "query: `the`, `of`, `a` and `to` are too common to search (they are left out of the index, "+
		"so alone they match nothing); add a rarer word or a phrase around them")
	e(`#`, "query: `#` holds no word to search (words are letters, digits and underscores); search a word of the message")
	e(`"" ...`, "query: `\"\"` and `...` hold no word to search (words are letters, digits and underscores); search a word of the message")
	e(`to #`, one("to"))
}
