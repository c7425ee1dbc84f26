package oplog

import (
	"context"
	"strings"
)

// StudioSearcher is what a studio hint asks: a Studio, or a client of one.
type StudioSearcher interface {
	Search(ctx context.Context, q StudioSearchQuery) (StudioSearchPage, error)
}

// StudioHint is the hint of a studio search (or list: q without a query)
// whose first page came back empty, made as Log.Search's is, with the
// studio's searches: the query with its misspelt words corrected, else
// the request without the filter that shuts out the most. The studio
// keeps no word list, so the corrections are the ones local (this
// machine's log, nil: none) suggests for the query alone, each searched
// in the studio before it is made. Its arguments carry scope "studio"
// (and the machine asked), so that sending them as is searches the
// studio again. A studio search counts no total: a count is of one page
// of hintPage hits, "about" when there are more. Nil when nothing finds
// records.
func StudioHint(ctx context.Context, s StudioSearcher, local Searcher, q StudioSearchQuery) *SearchHint {
	extra := map[string]string{"scope": "studio"}
	if q.Machine != "" {
		extra["machine"] = q.Machine
	}
	trial := func(ctx context.Context, c *SearchQuery) (int64, bool) {
		sq := StudioSearchQuery{SearchQuery: *c, Machine: q.Machine}
		sq.Limit, sq.Cursor, sq.Hint = hintPage, "", false
		if sq.Tree == nil && strings.TrimSpace(sq.Query) != "" {
			tree, err := ParseQuery(sq.Query)
			if err != nil {
				return 0, true
			}
			sq.Tree = tree
		}
		p, err := s.Search(ctx, sq)
		if err != nil {
			return 0, true
		}
		return int64(len(p.Hits)), p.NextCursor == ""
	}
	sq := q.SearchQuery
	sq.Cursor = ""
	sq.wholeSeconds()
	if fixed := localCorrection(ctx, local, sq.Query); fixed != "" {
		c := sq
		c.Query, c.Tree = fixed, nil
		if n, exact := trial(ctx, &c); n > 0 {
			return wordHint(&c, n, exact, extra)
		}
	}
	return filterHint(ctx, &sq, trial, extra)
}

// StudioFilterHint is FilterHint in the studio: the hint of a list of
// f's records (of machine, "" every machine) whose first page came back
// empty. Nil when neither f nor machine narrows the list.
func StudioFilterHint(ctx context.Context, s StudioSearcher, f Filter, machine string) *SearchHint {
	if !f.Narrows() && machine == "" {
		return nil
	}
	f.WithMarkers = false
	return listHint(StudioHint(ctx, s, nil, StudioSearchQuery{SearchQuery: SearchQuery{Filter: f}, Machine: machine}))
}

// localCorrection is query with its misspelt words corrected as local's
// search of query alone suggests ("" when it suggests none).
func localCorrection(ctx context.Context, local Searcher, query string) string {
	if local == nil || strings.TrimSpace(query) == "" {
		return ""
	}
	p, err := local.Search(ctx, SearchQuery{Query: query, Limit: 1, Hint: true})
	if err != nil || len(p.Hits) > 0 || p.Hint == nil || !strings.HasPrefix(p.Hint.Text, "0 hits; did you mean ") {
		return ""
	}
	if fixed := p.Hint.Args["query"]; fixed != query {
		return fixed
	}
	return ""
}
