package api

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

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
	log *oplog.Log // for run and since=last_compile; nil: not read
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

// filter reads level, name, kind (def when absent), source, since (a time
// or last_compile), until, run, runs and markers (runs.go).
func (p *params) filter(def oplog.Kind) oplog.Filter {
	q := p.c.QueryParam
	f, err := oplog.FilterText{Level: q("level"), Name: q("name"), Kind: q("kind"), Source: q("source"),
		Since: mcptools.SinceTime(q("since")), Until: q("until")}.Parse(time.Now())
	if err != nil {
		p.fail(err)
	}
	if q("kind") == "" {
		f.Kind = def
	}
	p.scope(&f)
	return f
}

// tailQuery reads what GET /api/v1/tail and the stream share: sinceId,
// revision, limit and the filters, kind defaulting to line, with markers
// unless markers=false.
func (p *params) tailQuery() oplog.TailQuery {
	q := oplog.TailQuery{Filter: p.filter(oplog.KindLine), Limit: p.int("limit")}
	if p.c.QueryParam("markers") == "" {
		q.WithMarkers = true
	}
	q.SinceID, q.HasSince = p.uint("sinceId")
	q.Revision, _ = p.uint("revision")
	return q
}
