package search

import (
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// A phrase is matched on the records: a chunk whose set holds every word
// of it is read, and its records that hold the words one after another, as
// the analyzer splits the field, match.

// phraseQuery matches the records whose field holds words in order.
type phraseQuery struct {
	field string
	words []phraseWord // in order
	an    analysis.Analyzer
}

// phraseWord is a word of a phrase and its position relative to the first
// (stop words left gaps). full is the whole word, lower-cased, when its
// term may stand for longer words too (see confirmWord): the records'
// words are compared whole.
type phraseWord struct {
	term string
	at   int
	full string
}

// confirmWord returns the whole lower-cased word of token t of input when
// the index cannot tell it from other words by its term: its term was cut
// to maxTokenBytes, or is so close to it that a longer word's cut term can
// equal it. "" when the term is the word and no other word's.
func confirmWord(input []byte, t *analysis.Token) string {
	if w := cutWord(input, t); w != "" {
		return w
	}
	if len(t.Term) > maxTokenBytes-utf8.UTFMax {
		return string(t.Term)
	}
	return ""
}

// is reports whether token t of input is w.
func (w *phraseWord) is(input []byte, t *analysis.Token) bool {
	if string(t.Term) != w.term {
		return false
	}
	if w.full == "" {
		return true // a term this short is no longer word's cut term
	}
	whole := cutWord(input, t)
	if whole == "" {
		whole = string(t.Term)
	}
	return whole == w.full
}

// newPhrase returns phrase in field analysed: its words in order, or nil
// for a phrase of stop words only; one word when the phrase is one.
func newPhrase(field, phrase string, an analysis.Analyzer) *phraseQuery {
	in := []byte(phrase)
	toks := an.Analyze(in)
	if len(toks) == 0 {
		return nil
	}
	q := &phraseQuery{field: field, an: an}
	for _, t := range toks {
		q.words = append(q.words, phraseWord{term: string(t.Term), at: t.Position - toks[0].Position, full: confirmWord(in, t)})
	}
	return q
}

// in reports whether text, analysed, holds q's words in order.
func (q *phraseQuery) in(text string) bool {
	in := []byte(text)
	toks := q.an.Analyze(in)
	for i, t := range toks {
		if q.words[0].is(in, t) && q.follows(in, toks, i) {
			return true
		}
	}
	return false
}

// follows reports whether the rest of q's words follow toks[i] at their
// positions. Tokens come in position order; stop words left gaps.
func (q *phraseQuery) follows(in []byte, toks analysis.TokenStream, i int) bool {
	p, j := toks[i].Position, i
	for k := range q.words[1:] {
		w := &q.words[1+k]
		want := p + w.at
		for j < len(toks) && toks[j].Position < want {
			j++
		}
		if j == len(toks) || toks[j].Position != want || !w.is(in, toks[j]) {
			return false
		}
	}
	return true
}
