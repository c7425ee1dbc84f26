package search

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search/searcher"
	"github.com/blevesearch/vellum/levenshtein"
	vregexp "github.com/blevesearch/vellum/regexp"
)

// The leaves of an evaluated query that test the terms of a field: exact,
// fuzzy, prefix, wildcard and regular expression, as scorch tests the terms
// of its dictionaries.

// containsFoldASCII reports whether s holds lit (lower-case ASCII) in any
// ASCII case.
func containsFoldASCII(s, lit string) bool {
	lo, up := lit[0], lit[0]
	if lo >= 'a' && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	// Where each case of lit's first byte next occurs, from i on; each is
	// searched for again only once passed, so s is read about twice.
	nextLo, nextUp := -1, -1
	for i := 0; len(s)-i >= len(lit); {
		if nextLo < i {
			if nextLo = strings.IndexByte(s[i:], lo); nextLo >= 0 {
				nextLo += i
			} else {
				nextLo = len(s)
			}
		}
		if up != lo && nextUp < i {
			if nextUp = strings.IndexByte(s[i:], up); nextUp >= 0 {
				nextUp += i
			} else {
				nextUp = len(s)
			}
		}
		j := nextLo
		if up != lo {
			j = min(j, nextUp)
		}
		if len(s)-j < len(lit) {
			return false
		}
		if strings.EqualFold(s[j:j+len(lit)], lit) {
			return true
		}
		i = j + 1
	}
	return false
}

// termMatcher is a leaf's test of one term of a field, and a lower-case
// ASCII literal every matching term contains ("" when none is known).
// term is the one term an exact matcher matches ("" for the others);
// prefix, one every matching term starts with ("" when none is known).
type termMatcher struct {
	match  func(term string) bool
	lit    string
	term   string
	prefix string
}

func exactMatcher(term string) termMatcher {
	return termMatcher{match: func(t string) bool { return t == term }, lit: asciiLit(term), term: term, prefix: term}
}

// asciiLit returns s lower-cased when it is ASCII, for mayHold; "" if not.
func asciiLit(s string) string {
	if !isASCII(s) {
		return ""
	}
	return strings.ToLower(s)
}

// isASCII reports whether s is ASCII, eight bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if (uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56)&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// wildcardReplacer is bleve's wildcardRegexpReplacer (unexported there).
var wildcardReplacer = strings.NewReplacer("+", `\+`, "(", `\(`, ")", `\)`, "^", `\^`, "$", `\$`, ".", `\.`,
	"{", `\{`, "}", `\}`, "[", `\[`, "]", `\]`, `|`, `\|`, `\`, `\\`, "*", ".*", "?", ".")

// automaton is what vellum's regexp and Levenshtein DFAs share.
type automaton interface {
	Start() int
	IsMatch(int) bool
	CanMatch(int) bool
	Accept(int, byte) int
}

// accepts runs a over the whole of term, as scorch runs it over terms.
func accepts(a automaton, term string) bool {
	s := a.Start()
	for i := 0; i < len(term); i++ {
		if s = a.Accept(s, term[i]); !a.CanMatch(s) {
			return false
		}
	}
	return a.IsMatch(s)
}

// regexpMatcher compiles pattern as scorch does (vellum, whole terms).
func regexpMatcher(pattern string) (termMatcher, error) {
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return termMatcher{}, err
	}
	re, err := vregexp.NewParsedWithLimit(pattern, parsed, vregexp.DefaultLimit)
	if err != nil {
		return termMatcher{}, err
	}
	return termMatcher{match: func(t string) bool { return accepts(re, t) }, lit: requiredLit(parsed), prefix: literalPrefix(parsed)}, nil
}

// literalPrefix returns a prefix of every term re matches whole ("" when it
// cannot tell). A case-folding literal gives its lower-case ASCII letters
// and digits up to the first s (ſ folds to it, and terms keep ſ) or other
// rune: terms are lower-cased, so the rest of its case orbit is in none.
func literalPrefix(re *syntax.Regexp) string {
	if re.Op == syntax.OpConcat && len(re.Sub) > 0 {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpLiteral {
		return ""
	}
	if re.Flags&syntax.FoldCase == 0 {
		return string(re.Rune)
	}
	var b strings.Builder
	for _, r := range re.Rune {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') || r == 's' {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// requiredLit returns the longest ASCII literal every match of re
// contains, lower-cased ("" when it cannot tell).
func requiredLit(re *syntax.Regexp) string {
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	best := ""
	for _, s := range subs {
		if s.Op == syntax.OpLiteral {
			if l := asciiLit(string(s.Rune)); len(l) > len(best) {
				best = l
			}
		}
	}
	return best
}

// levBuilders are scorch's Levenshtein automaton builders (distance 1 and
// 2, transpositions counting one), built once when first needed.
var levBuilders = sync.OnceValues(func() ([2]*levenshtein.LevenshteinAutomatonBuilder, error) {
	var bs [2]*levenshtein.LevenshteinAutomatonBuilder
	for i := range bs {
		b, err := levenshtein.NewLevenshteinAutomatonBuilder(uint8(i+1), true)
		if err != nil {
			return bs, err
		}
		bs[i] = b
	}
	return bs, nil
})

// fuzzyMatcher matches the terms within fuzziness edits of term that start
// with its first prefix bytes (rounded up to a whole character), as
// bleve's fuzzy searcher on scorch does.
func fuzzyMatcher(term string, fuzziness, prefix int) (termMatcher, error) {
	switch {
	case fuzziness > searcher.MaxFuzziness:
		return termMatcher{}, fmt.Errorf("fuzziness exceeds max (%d)", searcher.MaxFuzziness)
	case fuzziness < 0:
		return termMatcher{}, fmt.Errorf("invalid fuzziness, negative")
	case fuzziness == 0:
		return exactMatcher(term), nil
	case fuzziness > 2:
		return termMatcher{}, fmt.Errorf("fuzziness exceeds the max limit")
	}
	pre := term
	for i := range term {
		if i >= prefix {
			pre = term[:i]
			break
		}
	}
	bs, err := levBuilders()
	if err != nil {
		return termMatcher{}, err
	}
	dfa, err := bs[fuzziness-1].BuildDfa(term, uint8(fuzziness))
	if err != nil {
		return termMatcher{}, err
	}
	return termMatcher{match: func(t string) bool { return strings.HasPrefix(t, pre) && accepts(dfa, t) }, prefix: pre}, nil
}
