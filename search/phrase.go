package search

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/mcplogd/mcplogd/oplog"
)

// The index keeps no word positions (term vectors were a third of the
// indexing time and half of the index), so bleve cannot match a phrase by
// itself. A phraseQuery finds the documents that hold every word of the
// phrase and keeps those whose record, read from the store, has the words
// one after another, as the analyzer splits the field. The answer is as
// exact as a positional index; its cost follows the documents that hold
// every word, which for the phrases people search is close to the hits.

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

// newPhrase returns the query for phrase in the text field: a phraseQuery,
// or a plain term query when the phrase is one word that its term tells
// apart, or nothing-matches when it is only stop words.
func newPhrase(field, phrase string, an analysis.Analyzer) query.Query {
	in := []byte(phrase)
	toks := an.Analyze(in)
	if len(toks) == 0 {
		return query.NewMatchNoneQuery()
	}
	q := &phraseQuery{field: field, an: an}
	for _, t := range toks {
		q.words = append(q.words, phraseWord{term: string(t.Term), at: t.Position - toks[0].Position, full: confirmWord(in, t)})
	}
	if len(q.words) == 1 && q.words[0].full == "" {
		tq := query.NewTermQuery(q.words[0].term)
		tq.SetField(field)
		return tq
	}
	return q
}

func (q *phraseQuery) Searcher(ctx context.Context, r index.IndexReader, _ mapping.IndexMapping, opts search.SearcherOptions) (search.Searcher, error) {
	recs, _ := ctx.Value(recordsKey{}).(*recordReader)
	if recs == nil {
		return nil, fmt.Errorf("phrase: no store to check phrases against")
	}
	var terms []search.Searcher
	var seen []string
	for _, w := range q.words {
		if slices.Contains(seen, w.term) {
			continue
		}
		seen = append(seen, w.term)
		ts, err := searcher.NewTermSearcher(ctx, r, w.term, q.field, 1, opts)
		if err != nil {
			for _, s := range terms {
				_ = s.Close()
			}
			return nil, err
		}
		terms = append(terms, ts)
	}
	all, err := searcher.NewConjunctionSearcher(ctx, r, terms, opts)
	if err != nil {
		return nil, err
	}
	return searcher.NewFilteringSearcher(ctx, all, func(_ *search.SearchContext, d *search.DocumentMatch) bool {
		rec, ok := recs.of(r, d)
		if !ok {
			return false
		}
		text := rec.Text
		if q.field == "stack" {
			text = rec.Stack
		}
		return q.in(text)
	}), nil
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

// recordsKey carries a search's *recordReader in its context.
type recordsKey struct{}

// recordReader reads the records a search checks phrases against, keeping
// the last one (a phrase without a field is checked against text and then
// stack) and the first error, which the search then returns.
type recordReader struct {
	st     oplog.Store
	onRead func(bytes int64) // told of each record read (nil: nothing)
	mu     sync.Mutex
	lo, hi uint64 // the IDs the segment search wants (hi 0: any); a document outside is not read
	last   oplog.Record
	err    error
}

func (rr *recordReader) get(id uint64) (oplog.Record, bool) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.last.ID == id && id != 0 {
		return rr.last, true
	}
	r, err := rr.st.Get(id)
	switch {
	case oplog.ErrorCode(err) == oplog.ENOTFOUND || oplog.IsDamaged(err):
		return r, false // trimmed by retention, or in a damaged block: no longer a hit
	case err != nil:
		if rr.err == nil {
			rr.err = err
		}
		return r, false
	}
	rr.last = r
	if rr.onRead != nil {
		rr.onRead(recordBytes(&r))
	}
	return r, true
}

// of returns the record of a document of r.
func (rr *recordReader) of(r index.IndexReader, d *search.DocumentMatch) (oplog.Record, bool) {
	ext, err := r.ExternalID(d.IndexInternalID)
	if err != nil {
		rr.fail(err)
		return oplog.Record{}, false
	}
	id, ok := parseDocID(ext)
	if !ok {
		rr.fail(fmt.Errorf("document %q is no record's", ext))
		return oplog.Record{}, false
	}
	rr.mu.Lock()
	outside := rr.hi != 0 && (id < rr.lo || id > rr.hi)
	rr.mu.Unlock()
	if outside {
		// not confirmed, and not a hit either way: searchIDs keeps only
		// the IDs of the window (a NOT of it too)
		return oplog.Record{}, false
	}
	return rr.get(id)
}

// window makes the confirmations (of) read no record outside lo..hi (hi
// 0: no bound), while a segment search wants only those IDs.
func (rr *recordReader) window(lo, hi uint64) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.lo, rr.hi = lo, hi
}

func (rr *recordReader) fail(err error) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.err == nil {
		rr.err = err
	}
}

func (rr *recordReader) error() error {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.err
}
