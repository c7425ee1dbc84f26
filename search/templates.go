package search

import (
	"context"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Templates are indexed by bucket. A record's template ID (12 hex digits,
// oplog.TextTemplateID) is nearly unique where messages are (every
// benchmark text is its own template): indexed whole, it took 16 bytes of
// the index a record, a term of its own each. The index holds the ID's
// first templateBucketLen digits instead (4,096 terms at most a
// segment, ~5 bytes a record), and a leaf on template takes the records of
// its buckets on which it holds, read from the store, as phrases are
// confirmed (phrase.go): a prefix of at most templateBucketLen digits is
// its buckets whole and needs no record.

// templateBucketLen is how many leading hex digits of a template ID the
// index holds.
const templateBucketLen = 3

// templateBucket is the term a template ID is indexed by; "" for none.
func templateBucket(id string) string {
	if len(id) < templateBucketLen {
		return id
	}
	return id[:templateBucketLen]
}

// bleveTemplate compiles leaf n on template (as oplog.ParseQuery checked
// it: a whole ID or a prefix of one, lower case, a wildcard or a regular
// expression as written).
func (a *analyzers) bleveTemplate(c *compiled, n ql.Node) (query.Query, error) {
	var lit string // the digits every template the leaf matches starts with
	switch n := n.(type) {
	case *ql.Term:
		lit = n.Text
	case *ql.Phrase:
		lit = n.Text
	case *ql.Prefix:
		lit = foldCase(ql.TemplateField, n.Prefix)
		if len(lit) <= templateBucketLen {
			return fieldQuery(query.NewPrefixQuery(lit)), nil
		}
	case *ql.Wildcard:
		p := foldCase(ql.TemplateField, n.Pattern)
		lit = p[:strings.IndexFunc(p+"*", func(r rune) bool { return r == '*' || r == '?' || r == '\\' })]
	case *ql.Regexp:
	default:
		return nil, oplog.Errorf(oplog.EINVALID, "query: %s takes a template ID", ql.TemplateField)
	}
	// Every record with a template holds a bucket: the prefix "" is all.
	cands := fieldQuery(query.NewPrefixQuery(lit))
	if len(lit) >= templateBucketLen {
		cands = fieldQuery(query.NewTermQuery(templateBucket(lit)))
	}
	c.confirms = true
	return &templateQuery{cands: cands, node: n, an: a.text}, nil
}

// fieldQuery sets q's field to template.
func fieldQuery(q query.FieldableQuery) query.Query {
	q.SetField(ql.TemplateField)
	return q
}

// templateQuery is a leaf on template: those of the documents cands finds
// on whose record node holds.
type templateQuery struct {
	cands query.Query
	node  ql.Node
	an    analysis.Analyzer
}

func (q *templateQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, opts search.SearcherOptions) (search.Searcher, error) {
	s, err := q.cands.Searcher(ctx, r, m, opts)
	if err != nil {
		return nil, err
	}
	c, err := confirmOnRecords(ctx, r, m, s, q.node, ql.TemplateField, q.an)
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	return c, nil
}
