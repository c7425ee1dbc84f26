package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
)

type (
	searchHitAnswer struct {
		Record   oplog.Record `json:"record"`
		Fragment string       `json:"fragment,omitempty"`
	}
	searchAnswer struct {
		Hits           []searchHitAnswer `json:"hits"`
		Total          int64             `json:"total"`
		TotalExact     bool              `json:"totalExact"`
		NextCursor     string            `json:"nextCursor,omitempty"`
		IndexedThrough uint64            `json:"indexedThrough"`
	}
)

// search answers GET /api/v1/search?query=&level=&name=&source=&kind=&tool=&status=&replayOf=&since=&until=&limit=&cursor=.
func (s *Server) search(c echo.Context) error {
	p := params{c: c}
	in := oplog.SearchText{FilterText: oplog.FilterText{Level: c.QueryParam("level"), Name: c.QueryParam("name"),
		Kind: c.QueryParam("kind"), Source: c.QueryParam("source"), Since: c.QueryParam("since"), Until: c.QueryParam("until")},
		Query: c.QueryParam("query"), Tool: c.QueryParam("tool"), Status: c.QueryParam("status"),
		ReplayOf: c.QueryParam("replayOf"), Limit: p.int("limit"), Cursor: c.QueryParam("cursor")}
	if p.err != nil {
		return p.err
	}
	q, err := in.Parse(time.Now())
	if err != nil {
		return err
	}
	page, err := s.log.Search(c.Request().Context(), q)
	if err != nil {
		return err
	}
	a := searchAnswer{Hits: make([]searchHitAnswer, len(page.Hits)), Total: page.Total, TotalExact: page.TotalExact,
		NextCursor: page.NextCursor, IndexedThrough: page.IndexedThrough}
	for i, h := range page.Hits {
		a.Hits[i] = searchHitAnswer{Record: h.Record, Fragment: h.Fragment}
	}
	return c.JSON(http.StatusOK, a)
}

// Search asks the server's GET /api/v1/search.
func (c *Client) Search(ctx context.Context, q oplog.SearchQuery) (oplog.SearchPage, error) {
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
	var a searchAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/search", url.Values(v), nil, &a); err != nil {
		return oplog.SearchPage{}, err
	}
	p := oplog.SearchPage{Hits: make([]oplog.SearchHit, len(a.Hits)), Total: a.Total, TotalExact: a.TotalExact,
		NextCursor: a.NextCursor, IndexedThrough: a.IndexedThrough}
	for i, h := range a.Hits {
		p.Hits[i] = oplog.SearchHit{Record: h.Record, Fragment: h.Fragment}
	}
	return p, nil
}
