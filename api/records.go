package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

func (s *Server) getRecord(c echo.Context) error {
	id, err := parseID(c.Param("id"))
	if err != nil {
		return err
	}
	r, err := s.log.Get(c.Request().Context(), id)
	if err != nil {
		return err
	}
	oplog.AddComeback(c.Request().Context(), s.log, &r)
	return c.JSON(http.StatusOK, r)
}

func (s *Server) listRecords(c echo.Context) error {
	p := params{c: c}
	r, st := p.resolve(s, p.args(), 0)
	if st != nil {
		return s.studioList(c, st, r)
	}
	q := oplog.Query{Filter: r.Filter, Count: p.int("count"), Offset: p.int("offset")}
	q.Before, _ = p.uint("before")
	if p.err != nil {
		return p.err
	}
	page, err := s.log.List(c.Request().Context(), q)
	if err != nil {
		return err
	}
	a := pageDamaged{client.PageAnswer{Records: page.Records, Total: page.Total, More: page.More, DamagedRuns: page.Damaged}, oplog.DamageText(page.Damaged)}
	if a.Records == nil {
		a.Records = []oplog.Record{}
	}
	if len(page.Records) == 0 && q.Offset == 0 && q.Before == 0 {
		a.Hint = oplog.FilterHint(c.Request().Context(), s.log, q.Filter)
	}

	return c.JSON(http.StatusOK, a)
}

// neighbors answers GET /api/v1/records/:id/neighbors.
func (s *Server) neighbors(c echo.Context) error {
	id, err := parseID(c.Param("id"))
	if err != nil {
		return err
	}
	prev, next, err := s.log.Neighbors(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, client.NeighborsAnswer{Prev: prev, Next: next})
}
