package search

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// The query language (package oplog/query) compiled for bleve: a word of
// text and stack is analysed as the mapping analyses those fields (one the
// analyzer splits, Foo.cs, is a phrase, checked on the records since the
// index keeps no positions: phrase.go), patterns on fields whose values are
// lower case are lower-cased, keyword values are whole terms, and each
// leaf on text or stack also takes the cut documents it holds on (cut.go).
// A time range reads the time column (times.go); a leaf on template the
// records of its buckets (templates.go). The tree's structure is
// bleve's: an And is a conjunction, or with Not nodes a boolean query of
// the others and none of those; an Or a disjunction.

// compiled is a SearchQuery translated for bleve.
type compiled struct {
	tree  ql.Node     // the query string and every filter but the time range, ANDed
	q     query.Query // tree for the segments
	rng   timeRange   // the filters' time range, applied to the IDs q finds
	times bool        // the query string has a time range: q reads the time column
	terms []string    // analysed words and prefix or wildcard patterns of the query string, for fragments
	// confirms: q holds a phrase, which a segment confirms on the records
	// of its candidates (phrase.go): searched in windows, newest first.
	confirms bool
}

// compile compiles q's tree (oplog.SearchQuery.Node: the query string
// as oplog parsed and checked it, q's filters ANDed to it as leaves on their
// fields), the fragment words of which oplog.HighlightWords chooses.
func (a *analyzers) compile(q *oplog.SearchQuery) (*compiled, error) {
	tree, err := q.Node()
	if err != nil {
		return nil, err
	}
	c := &compiled{tree: tree, rng: timeRange{since: q.Since, until: q.Until}, terms: oplog.HighlightWords(tree)}
	bq, err := a.bleve(c, c.tree)
	if err != nil {
		return nil, err
	}
	c.q = bq
	return c, nil
}

// plan says how to search documents whose times lie in sp: not at all
// (false), keeping every ID q finds (keep nil), or keeping those whose time
// look gives is in the filters' range.
func (c *compiled) plan(sp span, look func() timeLookup) (keep func(id uint64) bool, ok bool) {
	switch sp.cover(c.rng) {
	case outside:
		return nil, false
	case inside:
		return nil, true
	}
	l := look()
	return func(id uint64) bool {
		t, ok := l(id)
		return ok && c.rng.in(t)
	}, true
}

// bleve compiles n; one case per node type, the leaves in bleveLeaf.
func (a *analyzers) bleve(c *compiled, n ql.Node) (query.Query, error) {
	switch n := n.(type) {
	case *ql.And:
		var must, not []query.Query
		for _, sub := range n.Nodes {
			if x, ok := sub.(*ql.Not); ok {
				q, err := a.bleve(c, x.Node)
				if err != nil {
					return nil, err
				}
				not = append(not, q)
				continue
			}
			q, err := a.bleve(c, sub)
			if err != nil {
				return nil, err
			}
			must = append(must, q)
		}
		return andNot(must, not), nil
	case *ql.Or:
		qs, err := a.bleves(c, n.Nodes)
		if err != nil {
			return nil, err
		}
		return query.NewDisjunctionQuery(qs), nil
	case *ql.Not:
		return a.bleve(c, &ql.And{Nodes: []ql.Node{n}})
	case *ql.All:
		return query.NewMatchAllQuery(), nil
	case *ql.None:
		return query.NewMatchNoneQuery(), nil
	}
	field, _ := ql.Field(n)
	if field != "" {
		return a.bleveLeaf(c, n, field)
	}
	alts := make([]query.Query, 0, len(ql.TextFields))
	for _, f := range ql.TextFields {
		q, err := a.bleveLeaf(c, n, f)
		if err != nil {
			return nil, err
		}
		alts = append(alts, q)
	}
	return query.NewDisjunctionQuery(alts), nil
}

func (a *analyzers) bleves(c *compiled, ns []ql.Node) ([]query.Query, error) {
	qs := make([]query.Query, len(ns))
	for i, sub := range ns {
		q, err := a.bleve(c, sub)
		if err != nil {
			return nil, err
		}
		qs[i] = q
	}
	return qs, nil
}

// andNot is a conjunction of must, or a boolean query of must (or every
// record) and none of not.
func andNot(must, not []query.Query) query.Query {
	var m query.Query
	switch len(must) {
	case 0:
		m = query.NewMatchAllQuery()
	case 1:
		m = must[0]
	default:
		m = query.NewConjunctionQuery(must)
	}
	if len(not) == 0 {
		return m
	}
	return query.NewBooleanQuery([]query.Query{m}, nil, not)
}

// bleveLeaf compiles a leaf on field (not ""); on text and stack it also
// takes the cut documents it holds on.
func (a *analyzers) bleveLeaf(c *compiled, n ql.Node, field string) (query.Query, error) {
	text := slices.Contains(textFields, field)
	if !text && field != timeField && !slices.Contains(keywordFields, field) {
		return nil, oplog.Errorf(oplog.EINVALID, "query: unknown field %q", field)
	}
	if field == timeField {
		if _, ok := n.(*ql.TimeRange); !ok {
			return nil, oplog.Errorf(oplog.EINVALID, `query: time takes a date range, such as time:>="2026-05-01T12:00:00Z"`)
		}
	}
	if field == ql.TemplateField {
		return a.bleveTemplate(c, n)
	}
	var q query.FieldableQuery
	switch n := n.(type) {
	case *ql.Term:
		if text && n.Fuzzy == 0 && phraseOfWord(a.text, []byte(n.Text)) {
			// One word to the standard analyzer (Foo.cs, 3.14), several
			// here: they must follow each other, as they did in the word.
			// Or one word longer than its term: it is confirmed whole.
			return a.bleveText(c, n, field, newPhrase(field, n.Text, a.text)), nil
		}
		if forms := a.termForms(field, n); forms != nil {
			return a.bleveText(c, n, field, &inflectQuery{field: field, forms: forms}), nil
		}
		m := query.NewMatchQuery(n.Text)
		m.SetFuzziness(n.Fuzzy)
		q = m
	case *ql.Phrase:
		if text {
			return a.bleveText(c, n, field, newPhrase(field, n.Text, a.text)), nil
		}
		q = query.NewTermQuery(n.Text) // one keyword, spaces and all
	case *ql.Prefix:
		q = query.NewPrefixQuery(foldCase(field, n.Prefix))
	case *ql.Wildcard:
		q = query.NewWildcardQuery(foldCase(field, n.Pattern))
	case *ql.Regexp:
		q = query.NewRegexpQuery(foldRegexp(field, n.Pattern))
	case *ql.NumberRange:
		q = query.NewNumericRangeInclusiveQuery(n.Min, n.Max, &n.MinIncl, &n.MaxIncl)
	case *ql.TimeRange:
		if field == timeField {
			c.times = true
			return newTimeRangeQuery(n), nil
		}
		q = query.NewDateRangeInclusiveQuery(n.Start, n.End, n.StartIncl, n.EndIncl)
	default:
		panic(fmt.Sprintf("BUG: search: no bleve compilation of %T", n))
	}
	q.SetField(field)
	if !text {
		return q, nil
	}
	return a.bleveText(c, n, field, q), nil
}

// bleveText is q, a leaf on text field, with the cut documents of field on
// which n holds; a phrase sets c.confirms.
func (a *analyzers) bleveText(c *compiled, n ql.Node, field string, q query.Query) query.Query {
	if _, none := q.(*query.MatchNoneQuery); none {
		return q
	}
	if _, ok := q.(*phraseQuery); ok {
		c.confirms = true
	}
	return &cutQuery{leaf: q, node: n, field: field, an: a.text}
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

// termForms returns the words a Term on text field matches, its
// inflections (inflect.go); nil when it is searched otherwise.
func (a *analyzers) termForms(field string, n *ql.Term) []string {
	if n.Fuzzy != 0 || !slices.Contains(textFields, field) {
		return nil
	}
	return inflections(a.text, n.Text)
}

// phraseOfWord reports whether a query word must be searched as a phrase:
// the analyzer splits it in several (Foo.cs), or its term may stand for
// longer words too (see confirmWord).
func phraseOfWord(an analysis.Analyzer, in []byte) bool {
	toks := an.Analyze(in)
	return len(toks) > 1 || len(toks) == 1 && confirmWord(in, toks[0]) != ""
}
