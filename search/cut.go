package search

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Cut documents. Bleve's memory and time for a document follow its
// distinct words (~130 to ~600 bytes and 6 to 40 µs each, see consts.go):
// a 1 MiB stack of 120,000 random identifiers took ~80 MB and 5 s. A text
// or stack field of more than maxFieldTerms distinct words is therefore
// indexed by its first maxFieldTerms (field.go), and its document holds
// the keyword field cut with the field's name. Searches stay exact: in the
// segments, each leaf on text or stack also takes the documents cut in its
// field on which the leaf's predicate (eval.go) holds, evaluated on the
// record read from the store, as phrases are confirmed (phrase.go). A leaf
// that the index matches needs no confirmation: the terms indexed are
// words the field holds. Searches over segments without a cut document pay
// one lookup of the cut term per leaf and segment.

// cutField is the keyword field of a cut document: the names of its cut
// fields. Queries cannot name it.
const cutField = "cut"

// cutQuery is a leaf on a text field, and the documents cut in that field
// on which it holds: node, the tree's leaf, evaluated on field.
type cutQuery struct {
	leaf  query.Query
	node  ql.Node
	field string
	an    analysis.Analyzer
}

// Searcher is the leaf's searcher, or, when r holds documents cut in the
// field, the disjunction of it and of those on which the leaf holds.
func (q *cutQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, opts search.SearcherOptions) (search.Searcher, error) {
	s, err := q.leaf.Searcher(ctx, r, m, opts)
	if err != nil {
		return nil, err
	}
	if _, none := s.(*searcher.MatchNoneSearcher); none {
		return s, nil // as the leaf: boolean queries leave it out
	}
	cut, err := searcher.NewTermSearcher(ctx, r, q.field, cutField, 1, opts)
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	if cut.Count() == 0 {
		_ = cut.Close()
		return s, nil
	}
	confirmed, err := confirmOnRecords(ctx, r, m, cut, q.node, q.field, q.an)
	if err != nil {
		_, _ = s.Close(), cut.Close()
		return nil, err
	}
	return searcher.NewDisjunctionSearcher(ctx, r, []search.Searcher{s, confirmed}, 1, opts)
}

// confirmOnRecords keeps those of cands' documents on whose record, read
// from the store, leaf node on field holds (as eval.go evaluates it).
func confirmOnRecords(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, cands search.Searcher, node ql.Node, field string, an analysis.Analyzer) (search.Searcher, error) {
	recs, _ := ctx.Value(recordsKey{}).(*recordReader)
	if recs == nil {
		return nil, fmt.Errorf("%s: no store to confirm documents against", field)
	}
	p, err := newEvaluator(m, an).leafPred(node, field)
	if err != nil {
		return nil, err
	}
	return searcher.NewFilteringSearcher(ctx, cands, func(_ *search.SearchContext, d *search.DocumentMatch) bool {
		rec, ok := recs.of(r, d)
		return ok && p(&recView{r: &rec, an: an})
	}), nil
}
