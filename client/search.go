package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/mcplogd/mcplogd/oplog"
)

// SearchHitAnswer is one hit of GET /api/v1/search's answer.
type SearchHitAnswer struct {
	Record   oplog.Record `json:"record"`
	Fragment string       `json:"fragment,omitempty"`
}

// SearchAnswer is GET /api/v1/search's answer (see oplog.SearchPage).
type SearchAnswer struct {
	Hits           []SearchHitAnswer `json:"hits"`
	Total          int64             `json:"total"`
	TotalExact     bool              `json:"totalExact"`
	NextCursor     string            `json:"nextCursor,omitempty"`
	IndexedThrough uint64            `json:"indexedThrough"`
	// DamagedRuns are the runs of IDs the search could not read
	// (oplog.SearchPage.Damaged).
	DamagedRuns []oplog.Damaged `json:"damagedRuns,omitempty"`
	// Hint, on an empty first page, is a request that finds records
	// (oplog.SearchPage.Hint): its args are this route's parameters.
	Hint *oplog.SearchHint `json:"hint,omitempty"`
}

// Search asks the server's GET /api/v1/search.
func (c *Client) Search(ctx context.Context, q oplog.SearchQuery) (oplog.SearchPage, error) {
	var a SearchAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/search", searchValues(&q), nil, &a); err != nil {
		return oplog.SearchPage{}, err
	}
	p := oplog.SearchPage{Hits: make([]oplog.SearchHit, len(a.Hits)), Total: a.Total, TotalExact: a.TotalExact,
		NextCursor: a.NextCursor, IndexedThrough: a.IndexedThrough, Damaged: a.DamagedRuns, Hint: a.Hint}
	for i, h := range a.Hits {
		p.Hits[i] = oplog.SearchHit{Record: h.Record, Fragment: h.Fragment}
	}
	return p, nil
}

// searchValues encodes q as GET /api/v1/search's query parameters.
func searchValues(q *oplog.SearchQuery) url.Values {
	v := filterValues(&q.Filter)
	set := func(name, s string) {
		if s != "" {
			v.Set(name, s)
		}
	}
	set("query", q.Query)
	set("tool", q.Tool)
	set("status", q.Status.String())
	set("cursor", q.Cursor)
	if q.ReplayOf != 0 {
		v.Set("replayOf", strconv.FormatUint(q.ReplayOf, 10))
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}
