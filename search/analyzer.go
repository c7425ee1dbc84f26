package search

import (
	"bytes"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// wordsName is the analyzer of text and stack: words are runs of letters,
// digits, marks and underscores (as oplog.Fragment reads them, and as the
// query language's ql.Words does), lower-cased, without English stop words, and cut to maxTokenBytes (appendTerm). It replaces bleve's standard analyzer, whose
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

// isStop says whether term (lower-cased) is a stop word.
func (a *wordsAnalyzer) isStop(term []byte) bool {
	if len(term) > a.maxStop {
		return false
	}
	_, stop := a.stop[string(term)]
	return stop
}

// eachWord calls fn with the bounds of each word of input, in order, and
// whether the word is ASCII, until fn returns false.
func eachWord(input []byte, fn func(start, end int, ascii bool) bool) {
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
			if !ql.IsWordRune(r) {
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
		if !fn(start, i, ascii) {
			return
		}
	}
}

// maxWordInput is how much of a word appendTerm reads: lower-casing
// shrinks a character at most threefold (the Kelvin sign's three bytes
// become k), so the first maxTokenBytes of the lower-cased word come from
// at most this many bytes of it.
const maxWordInput = 3*maxTokenBytes + utf8.UTFMax

// appendTerm appends word's term to buf: the word lower-cased, cut to
// maxTokenBytes at a character boundary, as Lucene's maxTokenLength cuts
// long tokens. A word of a megabyte (a base64 blob, a minified line) costs
// the index a term of maxTokenBytes, not a dictionary node per byte; the
// record keeps the word whole, and a query for it is confirmed on the
// records (see cutWord).
func appendTerm(buf, word []byte, ascii bool) []byte {
	if len(word) > maxWordInput {
		n := maxWordInput
		for n > 0 && !utf8.RuneStart(word[n]) {
			n--
		}
		word = word[:n]
	}
	from := len(buf)
	buf = appendLower(buf, word, ascii)
	if len(buf)-from > maxTokenBytes {
		n := from + maxTokenBytes
		for n > from && !utf8.RuneStart(buf[n]) {
			n--
		}
		buf = buf[:n]
	}
	return buf
}

// cutWord returns the whole lower-cased word of a token whose term
// appendTerm cut, and "" for a token whose term is its whole word.
func cutWord(input []byte, t *analysis.Token) string {
	if t.End-t.Start <= maxTokenBytes/2 { // lower-casing grows a character at most by half (ɐ to Ɐ is 2 to 3 bytes)
		return ""
	}
	if w := bytes.ToLower(input[t.Start:t.End]); len(w) > len(t.Term) {
		return string(w)
	}
	return ""
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
	eachWord(input, func(start, end int, ascii bool) bool {
		pos++
		wl := min(end-start, maxWordInput)
		if buf == nil || len(buf)+4*wl > cap(buf) { // after non-ASCII words that grew
			buf = make([]byte, 0, max(len(input), 4*wl))
		}
		from := len(buf)
		buf = appendTerm(buf, input[start:end], ascii)
		term := buf[from:len(buf):len(buf)]
		if a.isStop(term) {
			buf = buf[:from]
			return true
		}
		if toks == nil {
			toks = make([]analysis.Token, 0, len(input)/6+1)
		}
		if len(toks) == cap(toks) {
			toks = make([]analysis.Token, 0, cap(toks))
		}
		toks = append(toks, analysis.Token{Term: term, Start: start, End: end, Position: pos, Type: analysis.AlphaNumeric})
		out = append(out, &toks[len(toks)-1])
		return true
	})
	return out
}
