package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, client.HealthAnswer{Status: "ok", Version: s.opts.Version})
}

// appendLines answers only after the batch is durable.
func (s *Server) appendLines(c echo.Context) error {
	recs, err := DecodeLines(c.Request().Body)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return oplog.Errorf(oplog.EINVALID, "no lines: send a JSON array of line objects, NDJSON or one object")
	}
	if err := s.log.Append(c.Request().Context(), recs); err != nil {
		return err
	}
	a := client.AppendAnswer{Count: len(recs), FirstID: recs[0].ID, LastID: recs[len(recs)-1].ID, IDs: make([]uint64, len(recs))}
	for i := range recs {
		a.IDs[i] = recs[i].ID
	}
	return c.JSON(http.StatusOK, a)
}

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

func (s *Server) getRecord(c echo.Context) error {
	id, err := parseID(c.Param("id"))
	if err != nil {
		return err
	}
	r, err := s.log.Get(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

func (s *Server) listRecords(c echo.Context) error {
	p := params{c: c}
	q := oplog.Query{Filter: p.filter(0), Count: p.int("count"), Offset: p.int("offset")}
	q.Before, _ = p.uint("before")
	if p.err != nil {
		return p.err
	}
	page, err := s.log.List(c.Request().Context(), q)
	if err != nil {
		return err
	}
	a := client.PageAnswer{Records: page.Records, Total: page.Total, More: page.More}
	if a.Records == nil {
		a.Records = []oplog.Record{}
	}

	return c.JSON(http.StatusOK, a)
}

// tail answers a console reader; with waitMs it long-polls until a line
// arrives, the wait ends, the client goes away or the server shuts down.
func (s *Server) tail(c echo.Context) error {
	p := params{c: c}
	q := oplog.TailQuery{Filter: p.filter(oplog.KindLine), Limit: p.int("limit")}
	q.SinceID, q.HasSince = p.uint("sinceId")
	q.Revision, _ = p.uint("revision")
	q.Wait = time.Duration(min(p.int("waitMs"), int(oplog.MaxWait/time.Millisecond))) * time.Millisecond
	if p.err != nil {
		return p.err
	}
	reqCtx := c.Request().Context()
	ctx, cancel := context.WithCancel(reqCtx)
	defer cancel()
	stop := context.AfterFunc(s.stopping, cancel)
	defer stop()
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

func (s *Server) info(c echo.Context) error {
	st := s.log.Stats()
	a := client.NewInfoAnswer(&st, s.opts.Version)
	if s.opts.FileSize != nil {
		a.FileBytes = s.opts.FileSize()
	}
	return c.JSON(http.StatusOK, a)
}

func (s *Server) rotateToken(c echo.Context) error {
	token, err := s.opts.RotateToken()
	if err == nil {
		err = checkToken(token)
	}
	if err != nil {
		return fmt.Errorf("rotate token: %w", err) // EINTERNAL: the old token stays valid
	}
	s.SetToken(token)
	s.logger.Info("token rotated")
	return c.JSON(http.StatusOK, client.TokenAnswer{Token: token})
}

// readBody reads a request body within the server's limit.
func readBody(c echo.Context) ([]byte, error) {
	b, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return nil, &oplog.Error{Code: oplog.EINVALID, Message: fmt.Sprintf("cannot read the body: %v", err), Err: err}
	}
	return b, nil
}

func parseID(s string) (uint64, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil || id == 0 {
		return 0, oplog.Errorf(oplog.EINVALID, "id: must be a record ID (a positive whole number), got %q", s)
	}
	return id, nil
}

// params reads query parameters, keeping the first error, which names the
// parameter and what it accepts.
type params struct {
	c   echo.Context
	err error
}

func (p *params) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// uint returns the parameter as a uint64 and whether it was given.
func (p *params) uint(name string) (uint64, bool) {
	s := p.c.QueryParam(name)
	if s == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		p.fail(oplog.Errorf(oplog.EINVALID, "%s: must be a record ID (a whole number, 0 or more), got %q", name, s))
	}
	return n, err == nil
}

// int returns a non-negative integer parameter, 0 when absent.
func (p *params) int(name string) int {
	s := p.c.QueryParam(name)
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		p.fail(oplog.Errorf(oplog.EINVALID, "%s: must be a whole number, 0 or more, got %q", name, s))
		return 0
	}
	return n
}

// filter reads level, name, kind (def when absent), source, since and until.
func (p *params) filter(def oplog.Kind) oplog.Filter {
	f := oplog.Filter{Name: p.c.QueryParam("name"), Source: p.c.QueryParam("source"), Kind: def}
	var err error
	if f.MinLevel, err = oplog.ParseLevel(p.c.QueryParam("level")); err != nil {
		p.fail(oplog.Errorf(oplog.EINVALID, "level: %s", oplog.ErrorMessage(err)))
	}
	if s := p.c.QueryParam("kind"); s != "" {
		if f.Kind, err = oplog.ParseKind(s); err != nil {
			p.fail(oplog.Errorf(oplog.EINVALID, "kind: %s", oplog.ErrorMessage(err)))
		}
	}
	now := time.Now()
	for _, b := range []struct {
		name string
		t    *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if *b.t, err = oplog.ParseTime(p.c.QueryParam(b.name), now); err != nil {
			p.fail(oplog.Errorf(oplog.EINVALID, "%s: %s", b.name, oplog.ErrorMessage(err)))
		}
	}
	return f
}
