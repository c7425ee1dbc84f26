package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
)

// compare answers GET /api/v1/compare: oplog.Log.CompareRuns of source's
// runs ("" every source with two): run (a selector, default current) or
// runs (exact SOURCE:RUN pairs) against against (a selector, default the
// run before) or previous (exact pairs); maxRecords caps each run's reads.
func (s *Server) compare(c echo.Context) error {
	ctx := c.Request().Context()
	p := params{c: c}
	source := c.QueryParam("source")
	q := oplog.CompareQuery{Source: source, MaxRecords: p.int("maxRecords")}
	a := oplog.Args{SearchText: oplog.SearchText{FilterText: oplog.FilterText{Source: source}}, Run: c.QueryParam("run"), Runs: p.runPairs("runs"),
		Against: c.QueryParam("against")}
	r, err := oplog.Resolve(ctx, s.log, a, time.Now())
	if err != nil {
		p.fail(err)
	}
	q.Current, q.Previous = r.Runs, r.Previous
	if a.Against == "" {
		q.Previous = p.runPairs("previous")
	}
	if p.err != nil {
		return p.err
	}
	cmp, err := s.log.CompareRuns(ctx, q)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, cmp)
}
