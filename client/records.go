package client

import (
	"context"
	"net/http"
	"strconv"

	"github.com/mcplogd/mcplogd/oplog"
)

// PageAnswer is GET /api/v1/records's answer: records newest first.
type PageAnswer struct {
	Records []oplog.Record `json:"records"`
	Total   int64          `json:"total"` // matching records, whatever offset and before say
	More    bool           `json:"more"`
	// DamagedRuns are the runs of IDs the page skipped, unreadable
	// (oplog.Page.Damaged).
	DamagedRuns []oplog.Damaged `json:"damagedRuns,omitempty"`
	// Hint, on an empty first page with filters, is a request that finds
	// records (oplog.FilterHint); its args are this route's parameters.
	Hint *oplog.SearchHint `json:"hint,omitempty"`
}

// NeighborsAnswer is GET /api/v1/records/:id/neighbors's answer: the IDs
// before and after the record, 0 for none.
type NeighborsAnswer struct {
	Prev uint64 `json:"prev"`
	Next uint64 `json:"next"`
}

// Get returns one record; ENOTFOUND when there is none.
func (c *Client) Get(ctx context.Context, id uint64) (oplog.Record, error) {
	var r oplog.Record
	err := c.do(ctx, http.MethodGet, "/api/v1/records/"+strconv.FormatUint(id, 10), nil, nil, &r)
	return r, err
}

// List returns records newest first.
func (c *Client) List(ctx context.Context, q oplog.Query) (oplog.Page, error) {
	v := filterValues(&q.Filter)
	setNum(v, "count", q.Count)
	setNum(v, "offset", q.Offset)
	setNum(v, "before", q.Before)
	var a PageAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/records", v, nil, &a); err != nil {
		return oplog.Page{}, err
	}
	return oplog.Page{Records: a.Records, Total: a.Total, More: a.More, Damaged: a.DamagedRuns}, nil
}

// Neighbors returns the IDs before and after id.
func (c *Client) Neighbors(ctx context.Context, id uint64) (prev, next uint64, err error) {
	var a NeighborsAnswer
	err = c.do(ctx, http.MethodGet, "/api/v1/records/"+strconv.FormatUint(id, 10)+"/neighbors", nil, nil, &a)
	return a.Prev, a.Next, err
}
