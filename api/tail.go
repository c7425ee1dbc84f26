package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
)

// tail answers a console reader; with waitMs it long-polls until a line
// arrives, the wait ends, the client goes away or the server shuts down
// (past Limits.LongPolls waiting, 503). A wait ended by a token rotation
// answers 401.
func (s *Server) tail(c echo.Context) error {
	p := params{c: c}
	q := p.tailQuery(s)
	q.Wait = time.Duration(min(p.int("waitMs"), int(oplog.MaxWait/time.Millisecond))) * time.Millisecond
	if p.err != nil {
		return p.err
	}
	if q.Wait > 0 {
		if !s.polls.take() {
			return s.polls.busy(c)
		}
		defer s.polls.put()
	}
	reqCtx := c.Request().Context()
	sctx, cancel := s.untilShutdown(reqCtx)
	defer cancel()
	ctx, cancelRevoked := s.untilRevoked(sctx, c)
	defer cancelRevoked()
	t, err := s.log.Tail(ctx, q)
	if s.generationOf(c).revoked() {
		return unauthorized(c)
	}
	if err != nil && s.stopping.Err() != nil && reqCtx.Err() == nil {
		q.Wait = 0 // Shutdown ended the wait: answer with what there is
		t, err = s.log.Tail(reqCtx, q)
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, tailAnswer(&t))
}
