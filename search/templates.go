package search

import (
	"context"

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
// its bucket on which it holds, read from the store, as phrases are
// confirmed (phrase.go): a prefix of at most templateBucketLen digits is
// its buckets whole and needs no record. The query language takes no
// other pattern on template (oplog.ParseQuery): one that does not start
// with the digits would read every record.

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

// bleveTemplate compiles leaf n on template, as oplog.ParseQuery checked
// it: a whole ID or the start of one, lower case.
func (a *analyzers) bleveTemplate(c *compiled, n ql.Node) (query.Query, error) {
	var id string
	switch n := n.(type) {
	case *ql.Term:
		id = n.Text
	case *ql.Phrase:
		id = n.Text
	case *ql.Prefix:
		if len(n.Prefix) <= templateBucketLen {
			return fieldQuery(query.NewPrefixQuery(n.Prefix)), nil
		}
		id = n.Prefix
	default:
		return nil, oplog.Errorf(oplog.EINVALID, "query: %s takes a template ID or the start of one", ql.TemplateField)
	}
	c.confirms = true
	return &templateQuery{cands: fieldQuery(query.NewTermQuery(templateBucket(id))), node: n, an: a.text}, nil
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
