package api

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

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

// args are the parameters of a read as oplog.Resolve reads them: level,
// name, kind, source, since (a time or last_compile), until, run or runs
// (runs.go), scope and machine; a search adds its own.
func (p *params) args() oplog.Args {
	q := p.c.QueryParam
	return oplog.Args{SearchText: oplog.SearchText{FilterText: oplog.FilterText{Level: q("level"), Name: q("name"), Kind: q("kind"),
		Source: q("source"), Since: q("since"), Until: q("until")}}, Run: q("run"), Runs: p.runs(), Scope: q("scope"), Machine: q("machine"),
		StudioWords: "scope=studio"}
}

// resolve turns a into one request, as every adapter does (oplog.Resolve),
// with kind def when the kind parameter is absent and markers read
// (runs.go). For scope=studio it returns the studio to ask, nil for this
// log; EUNAVAILABLE when the server has none.
func (p *params) resolve(s *Server, a oplog.Args, def oplog.Kind) (oplog.Request, oplog.Studio) {
	if p.err != nil {
		return oplog.Request{}, nil
	}
	r, err := oplog.Resolve(p.c.Request().Context(), s.log, a, time.Now())
	switch {
	case r.Studio && s.opts.StudioScope == nil: // before what the parameters got wrong: studio scope cannot work here at all
		p.fail(oplog.Errorf(oplog.EUNAVAILABLE, "scope: studio: this server has no studio (mcplogd serve --studio URL, or \"studio\" in config.json)"))
		return r, nil
	case err != nil:
		p.fail(err)
		return r, nil
	}
	if p.c.QueryParam("kind") == "" {
		r.Kind = def
	}
	p.markers(&r.Filter)
	if !r.Studio {
		return r, nil
	}
	return r, s.opts.StudioScope
}

// tailQuery reads what GET /api/v1/tail and the stream share: sinceId,
// revision, limit and the filters, kind defaulting to line, with markers
// unless markers=false.
func (p *params) tailQuery(s *Server) oplog.TailQuery {
	a := p.args()
	a.Scope, a.Machine = "", "" // a tail is this log's
	r, _ := p.resolve(s, a, oplog.KindLine)
	q := oplog.TailQuery{Filter: r.Filter, Limit: p.int("limit")}
	if p.c.QueryParam("markers") == "" {
		q.WithMarkers = true
	}
	q.SinceID, q.HasSince = p.uint("sinceId")
	q.Revision, _ = p.uint("revision")
	return q
}
