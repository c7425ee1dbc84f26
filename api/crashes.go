package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// crashes answers GET /api/v1/crashes?since=&until=&source=&run=&limit=&buckets=.
func (s *Server) crashes(c echo.Context) error {
	if st, err := s.studioScope(c); err != nil || st != nil {
		if err != nil {
			return err
		}
		return s.studioCrashes(c, st)
	}
	p := params{c: c, log: s.log}
	f := p.filter(0)
	q := oplog.CrashQuery{Since: f.Since, Until: f.Until, Source: f.Source, Runs: f.Runs, Limit: p.int("limit"), Buckets: p.int("buckets")}
	if p.err != nil {
		return p.err
	}
	page, err := s.log.FindCrashes(c.Request().Context(), q)
	if err != nil {
		return err
	}
	a := client.CrashesAnswer{Groups: page.Groups, Total: page.Total, LastID: page.LastID,
		HistogramFrom: page.HistogramFrom, HistogramUntil: page.HistogramUntil}
	if a.Groups == nil {
		a.Groups = []oplog.CrashGroup{}
	}
	return c.JSON(http.StatusOK, a)
}
