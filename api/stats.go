package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
)

// stats answers GET /api/v1/stats: oplog.Log.Digest of the records the
// filters keep (level, name, kind, source, since, until, run, runs; by
// default each source's current run), maxRecords capping the records read.
// This machine's log only: scope=studio is refused, naming scope.
func (s *Server) stats(c echo.Context) error {
	p := params{c: c}
	a := p.args()
	if a.Scope != "" && a.Scope != "local" {
		return oplog.Errorf(oplog.EINVALID, "scope: stats read this machine's log only; the MCP tool log_stats reads the studio")
	}
	r, _ := p.resolve(s, a, 0)
	q := oplog.DigestQuery{Filter: r.Filter, MaxRecords: p.int("maxRecords")}
	if p.err != nil {
		return p.err
	}
	d, err := s.log.Digest(c.Request().Context(), q)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}
