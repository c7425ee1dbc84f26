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
	pick := func(sel string, exact map[string]uint64) map[string]uint64 {
		a := oplog.Args{SearchText: oplog.SearchText{FilterText: oplog.FilterText{Source: source}}, Run: sel, Runs: exact}
		r, err := oplog.Resolve(ctx, s.log, a, time.Now())
		if err != nil {
			p.fail(err)
		}
		return r.Runs
	}
	q := oplog.CompareQuery{Source: source, MaxRecords: p.int("maxRecords"), Current: pick(c.QueryParam("run"), p.runPairs("runs"))}
	if against := c.QueryParam("against"); against != "" {
		var err error
		if q.Previous, err = oplog.ResolveAgainst(ctx, s.log, source, against); err != nil {
			p.fail(err)
		}
	} else {
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
