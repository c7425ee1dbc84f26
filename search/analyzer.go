package search

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
)

// wordsName is the analyzer of text and stack: words are runs of letters,
// digits, marks and underscores (as oplog.Fragment reads them), lower-cased,
// without English stop words. It replaces bleve's standard analyzer, whose
// Unicode word segmentation was a fifth of the indexing time: the index
// and every query use it, so the two always agree. Unlike the standard
// analyzer it splits Foo.cs, 3.14 and don't into two words; a query word
// that splits is searched as a phrase (see leaf), so it still matches the
// same text.
const wordsName = "mcplogd_words"

func init() {
	if err := registry.RegisterAnalyzer(wordsName, func(_ map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
		stop, err := cache.TokenMapNamed(en.StopName)
		if err != nil {
			return nil, err
		}
		return newWordsAnalyzer(stop), nil
	}); err != nil {
		panic(err)
	}
}

type wordsAnalyzer struct {
	stop    analysis.TokenMap
	maxStop int // the longest stop word's length: longer words skip the lookup
}

func newWordsAnalyzer(stop analysis.TokenMap) *wordsAnalyzer {
	a := &wordsAnalyzer{stop: stop}
	for w := range stop {
		a.maxStop = max(a.maxStop, len(w))
	}
	return a
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || unicode.IsMark(r)
}

// isStop says whether term (lower-cased) is a stop word.
func (a *wordsAnalyzer) isStop(term []byte) bool {
	if len(term) > a.maxStop {
		return false
	}
	_, stop := a.stop[string(term)]
	return stop
}

// eachWord calls fn with the bounds of each word of input, in order, and
// whether the word is ASCII.
func eachWord(input []byte, fn func(start, end int, ascii bool)) {
	for i := 0; i < len(input); {
		start, ascii := i, true
		for i < len(input) {
			if c := input[i]; c < utf8.RuneSelf {
				if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
					i++
					continue
				}
				break
			}
			r, n := utf8.DecodeRune(input[i:])
			if !isWordRune(r) {
				break
			}
			ascii = false
			i += n
		}
		if i == start { // not a word character
			if input[i] < utf8.RuneSelf {
				i++
			} else {
				_, n := utf8.DecodeRune(input[i:])
				i += n
			}
			continue
		}
		fn(start, i, ascii)
	}
}

// appendLower appends word, lower-cased, to buf.
func appendLower(buf, word []byte, ascii bool) []byte {
	if !ascii {
		return append(buf, bytes.ToLower(word)...)
	}
	for _, c := range word {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

// Analyze splits input into words; positions count stop words too, as
// bleve's stop filter leaves them.
func (a *wordsAnalyzer) Analyze(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	var toks []analysis.Token // one allocation for the tokens of input
	var buf []byte            // and one for their terms
	pos := 0
	eachWord(input, func(start, end int, ascii bool) {
		pos++
		if buf == nil || len(buf)+4*(end-start) > cap(buf) { // after non-ASCII words that grew
			buf = make([]byte, 0, max(len(input), 4*(end-start)))
		}
		from := len(buf)
		buf = appendLower(buf, input[start:end], ascii)
		term := buf[from:len(buf):len(buf)]
		if a.isStop(term) {
			buf = buf[:from]
			return
		}
		if toks == nil {
			toks = make([]analysis.Token, 0, len(input)/6+1)
		}
		if len(toks) == cap(toks) {
			toks = make([]analysis.Token, 0, cap(toks))
		}
		toks = append(toks, analysis.Token{Term: term, Start: start, End: end, Position: pos, Type: analysis.AlphaNumeric})
		out = append(out, &toks[len(toks)-1])
	})
	return out
}
