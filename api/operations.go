package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

func (s *Server) startOperation(c echo.Context) error {
	b, err := readBody(c)
	if err != nil {
		return err
	}
	r, err := decodeOperation(b)
	if err != nil {
		return err
	}
	recs := []oplog.Record{r}
	if err := s.log.Append(c.Request().Context(), recs); err != nil {
		if be, ok := oplog.IsBatchError(err); ok {
			return be.Err // one operation is not a batch: no index
		}
		return err
	}
	return c.JSON(http.StatusCreated, recs[0])
}

func (s *Server) completeOperation(c echo.Context) error {
	id, err := parseID(c.Param("id"))
	if err != nil {
		return err
	}
	b, err := readBody(c)
	if err != nil {
		return err
	}
	comp, err := decodeCompletion(b)
	if err != nil {
		return err
	}
	r, err := s.log.Complete(c.Request().Context(), id, comp)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
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
	if wait > 0 {
		if !s.polls.take() {
			return s.polls.busy(c)
		}
		defer s.polls.put()
	}
	sctx, cancel := s.untilShutdown(c.Request().Context())
	defer cancel()
	ctx, cancelWait := context.WithTimeout(sctx, wait)
	defer cancelWait()
	r, err := s.log.AwaitComplete(ctx, id)
	waitEnded := ctx.Err() != nil && errors.Is(err, ctx.Err()) && c.Request().Context().Err() == nil
	if err != nil && !waitEnded {
		return err // an unknown ID is 404, with waitMs=0 too
	}
	if r.Kind != oplog.KindOp {
		return oplog.Errorf(oplog.EINVALID, "id: record %d is a %s, not an operation", id, r.Kind)
	}
	oplog.AddComeback(c.Request().Context(), s.log, &r)
	return c.JSON(http.StatusOK, r)
}

func (s *Server) replay(c echo.Context) error {
	id, err := parseID(c.Param("id"))
	if err != nil {
		return err
	}
	var req client.ReplayRequest
	if b, err := readBody(c); err != nil {
		return err
	} else if len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &req); err != nil {
			return oplog.Errorf(oplog.EINVALID, "body: want {\"confirm\": true|false}: %v", err)
		}
	}
	if s.opts.Gateway == nil {
		return oplog.Errorf(oplog.EUNAVAILABLE, "replay: this server has no upstreams (start it with --upstream NAME=URL)")
	}
	r, err := s.opts.Gateway.Replay(c.Request().Context(), id, req.Confirm)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, client.ReplayAnswer{Original: r.Original, Replay: r.Replay, Same: r.Same, Diff: r.Diff})
}
