package search

import (
	"context"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Inflections (ql.Inflections): a bare word on text or stack matches the
// word or its inflections, each an exact term. In the segments that is
// inflectQuery; above the watermark, a matcher of the same words (eval.go)
// and the chunks' test of each (terms_pred.go).

// inflections returns the words a Term of text (no fuzziness, not a
// phrase) matches on a text field: nil when it is not one word, or when
// the word matches only itself.
func inflections(an analysis.Analyzer, text string) []string {
	toks := an.Analyze([]byte(text))
	if len(toks) != 1 {
		return nil
	}
	if forms := ql.Inflections(string(toks[0].Term)); len(forms) > 1 {
		return forms
	}
	return nil
}

// inflectQuery matches the documents holding any of forms in field: the
// first, the word as written, always searched, the others only where the
// segment's dictionary holds them, so that an inflection no record has
// costs one lookup, not a searcher.
type inflectQuery struct {
	field string
	forms []string
}

// Searcher is a term searcher of the forms the dictionary holds.
func (q *inflectQuery) Searcher(ctx context.Context, r index.IndexReader, _ mapping.IndexMapping, opts search.SearcherOptions) (search.Searcher, error) {
	terms := q.forms
	if rc, ok := r.(index.IndexReaderContains); ok { // scorch's is
		dict, err := rc.FieldDictContains(q.field)
		if err != nil {
			return nil, err
		}
		terms = q.forms[:1:1]
		for _, f := range q.forms[1:] {
			ok, err := dict.Contains([]byte(f))
			if err != nil {
				return nil, err
			}
			if ok {
				terms = append(terms, f)
			}
		}
	}
	if len(terms) == 1 {
		return searcher.NewTermSearcher(ctx, r, terms[0], q.field, 1, opts)
	}
	return searcher.NewMultiTermSearcher(ctx, r, terms, q.field, 1, opts, false)
}
