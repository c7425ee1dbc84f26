package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// search answers GET /api/v1/search?query=&level=&name=&source=&kind=&tool=&status=&replayOf=&since=&until=&run=&limit=&cursor=.
func (s *Server) search(c echo.Context) error {
	if c.QueryParams().Has("q") && !c.QueryParams().Has("query") {
		// (q is what many search APIs call it: answering every record instead would mislead)
		return oplog.Errorf(oplog.EINVALID, "q: unknown parameter; the query string is query=")
	}
	p := params{c: c}
	args := p.args()
	args.Query, args.Tool, args.Status, args.ReplayOf, args.Cursor = c.QueryParam("query"), c.QueryParam("tool"), c.QueryParam("status"),
		c.QueryParam("replayOf"), c.QueryParam("cursor")
	args.Limit = p.int("limit")
	q, st := p.resolve(s, args, 0)
	if p.err != nil {
		return p.err
	}
	if st != nil {
		return s.studioSearch(c, st, q)
	}
	q.Hint = true // an empty answer says what to send instead
	page, err := s.log.Search(c.Request().Context(), q.SearchQuery)
	if err != nil {
		return err
	}
	a := searchDamaged{client.SearchAnswer{Hits: make([]client.SearchHitAnswer, len(page.Hits)), Total: page.Total, TotalExact: page.TotalExact,
		NextCursor: page.NextCursor, IndexedThrough: page.IndexedThrough, DamagedRuns: page.Damaged, Hint: page.Hint}, oplog.DamageText(page.Damaged)}
	for i, h := range page.Hits {
		a.Hits[i] = client.SearchHitAnswer{Record: h.Record, Fragment: h.Fragment}
	}
	return c.JSON(http.StatusOK, a)
}
