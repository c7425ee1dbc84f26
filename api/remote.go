package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// names answers GET /api/v1/names?source=.
func (s *Server) names(c echo.Context) error {
	names, err := s.log.Names(c.Request().Context(), c.QueryParam("source"))
	if err != nil {
		return err
	}
	a := client.NamesAnswer{Names: make([]client.NameAnswer, len(names))}
	for i, n := range names {
		a.Names[i] = client.NameAnswer{Source: n.Source, Name: n.Name, Total: n.Total, Counts: n.Counts.Map(), FirstSeen: n.FirstSeen, LastSeen: n.LastSeen}
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

// clear answers POST /api/v1/clear {"confirm": true}.
func (s *Server) clear(c echo.Context) error {
	var req client.ClearRequest
	if b, err := readBody(c); err != nil {
		return err
	} else if len(b) > 0 {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return oplog.Errorf(oplog.EINVALID, `body: want {"confirm": true}: %v`, err)
		}
	}
	if !req.Confirm {
		return oplog.Errorf(oplog.EINVALID, `confirm: clearing deletes every record; send {"confirm": true}`)
	}
	if _, err := s.log.Clear(c.Request().Context()); err != nil {
		return err
	}
	return s.info(c)
}

// getOperation answers GET /api/v1/operations/:id?waitMs=: the operation,
// once complete or when the wait (up to 30 s) ends.
func (s *Server) getOperation(c echo.Context) error {
	id, err := parseID(c.Param("id"))
	if err != nil {
		return err
	}
	p := params{c: c}
	wait := time.Duration(min(p.int("waitMs"), int(oplog.MaxWait/time.Millisecond))) * time.Millisecond
	if p.err != nil {
		return p.err
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), wait)
	defer cancel()
	stop := context.AfterFunc(s.stopping, cancel)
	defer stop()
	r, err := s.log.AwaitComplete(ctx, id)
	if err != nil && (ctx.Err() == nil || c.Request().Context().Err() != nil) {
		return err
	}
	if r.Kind != oplog.KindOp {
		return oplog.Errorf(oplog.EINVALID, "id: record %d is a %s, not an operation", id, r.Kind)
	}
	return c.JSON(http.StatusOK, r)
}
