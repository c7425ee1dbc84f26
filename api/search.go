package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// search answers GET /api/v1/search?query=&level=&name=&source=&kind=&tool=&status=&replayOf=&since=&until=&run=&limit=&cursor=.
func (s *Server) search(c echo.Context) error {
	if c.QueryParams().Has("q") && !c.QueryParams().Has("query") {
		// (q is what many search APIs call it: answering every record instead would mislead)
		return oplog.Errorf(oplog.EINVALID, "q: unknown parameter; the query string is query=")
	}
	p := params{c: c}
	in := oplog.SearchText{FilterText: oplog.FilterText{Level: c.QueryParam("level"), Name: c.QueryParam("name"),
		Kind: c.QueryParam("kind"), Source: c.QueryParam("source"), Since: mcptools.SinceTime(c.QueryParam("since")), Until: c.QueryParam("until")},
		Query: c.QueryParam("query"), Tool: c.QueryParam("tool"), Status: c.QueryParam("status"),
		ReplayOf: c.QueryParam("replayOf"), Limit: p.int("limit"), Cursor: c.QueryParam("cursor")}
	if p.err != nil {
		return p.err
	}
	q, err := in.Parse(time.Now())
	if err != nil {
		return err
	}
	if st, err := s.studioScope(c); err != nil || st != nil {
		if err != nil {
			return err
		}
		return s.studioSearch(c, st, q)
	}
	p.log = s.log
	if p.scope(&q.Filter); p.err != nil {
		return p.err
	}
	page, err := s.log.Search(c.Request().Context(), q)
	if err != nil {
		return err
	}
	a := client.SearchAnswer{Hits: make([]client.SearchHitAnswer, len(page.Hits)), Total: page.Total, TotalExact: page.TotalExact,
		NextCursor: page.NextCursor, IndexedThrough: page.IndexedThrough}
	for i, h := range page.Hits {
		a.Hits[i] = client.SearchHitAnswer{Record: h.Record, Fragment: h.Fragment}
	}
	return c.JSON(http.StatusOK, a)
}
