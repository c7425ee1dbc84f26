package search

import (
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// A search's query, compiled once: the evaluator's predicate on records
// (eval.go) and its mirror on a chunk's term set (terms_pred.go) are both
// compiled from it.

// compiled is a SearchQuery ready to be evaluated.
type compiled struct {
	tree  ql.Node   // the query string and every filter but the time range, ANDed
	rng   timeRange // the filters' time range
	terms []string  // analysed words and prefix or wildcard patterns of the query string, for fragments
}

// compile compiles q's tree (oplog.SearchQuery.Node: the query string
// as oplog parsed and checked it, q's filters ANDed to it as leaves on their
// fields), the fragment words of which oplog.HighlightWords chooses.
func (a *analyzers) compile(q *oplog.SearchQuery) (*compiled, error) {
	tree, err := q.Node()
	if err != nil {
		return nil, err
	}
	return &compiled{tree: tree, rng: timeRange{since: q.Since, until: q.Until}, terms: oplog.HighlightWords(tree)}, nil
}

// foldCase lower-cases a prefix or wildcard on a field whose values are
// lower case (ql.Folds).
func foldCase(field, p string) string {
	if ql.Folds(field) {
		return strings.ToLower(p)
	}
	return p
}

// foldRegexp reads re case-insensitively (where it does not say otherwise
// itself) on a field whose values are lower case.
func foldRegexp(field, re string) string {
	if ql.Folds(field) {
		return "(?i)" + re
	}
	return re
}

// phraseOfWord reports whether a query word must be searched as a phrase:
// the analyzer splits it in several (Foo.cs), or its term may stand for
// longer words too (see confirmWord).
func phraseOfWord(an analysis.Analyzer, in []byte) bool {
	toks := an.Analyze(in)
	return len(toks) > 1 || len(toks) == 1 && confirmWord(in, toks[0]) != ""
}
