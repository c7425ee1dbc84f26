package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// tail answers a console reader; with waitMs it long-polls until a line
// arrives, the wait ends, the client goes away or the server shuts down.
func (s *Server) tail(c echo.Context) error {
	p := params{c: c, log: s.log}
	q := p.tailQuery()
	q.Wait = time.Duration(min(p.int("waitMs"), int(oplog.MaxWait/time.Millisecond))) * time.Millisecond
	if p.err != nil {
		return p.err
	}
	reqCtx := c.Request().Context()
	ctx, cancel := s.untilShutdown(reqCtx)
	defer cancel()
	t, err := s.log.Tail(ctx, q)
	if err != nil && s.stopping.Err() != nil && reqCtx.Err() == nil {
		q.Wait = 0 // Shutdown ended the wait: answer with what there is
		t, err = s.log.Tail(reqCtx, q)
	}
	if err != nil {
		return err
	}
	a := client.NewTailAnswer(&t)
	return c.JSON(http.StatusOK, a)
}
