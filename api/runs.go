package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// runs answers GET /api/v1/runs?source=&run=: the runs of source ("" every
// source) by source then run, oldest first; with run (current, previous or
// a number) only the runs it selects.
func (s *Server) runs(c echo.Context) error {
	ctx := c.Request().Context()
	source, sel := c.QueryParam("source"), c.QueryParam("run")
	picked, err := s.log.ResolveRun(ctx, source, sel) // first: a bad selector is EINVALID whatever the store
	if err != nil {
		return err
	}
	runs, err := s.log.Runs(ctx, source)
	if err != nil {
		return err
	}
	if picked != nil {
		kept := runs[:0]
		for _, r := range runs {
			if n, ok := picked[r.Source]; ok && n == r.Run {
				kept = append(kept, r)
			}
		}
		runs = kept
	}
	if runs == nil {
		runs = []oplog.RunInfo{}
	}
	return c.JSON(http.StatusOK, client.RunsAnswer{Runs: runs})
}

// scope applies the run parameters and since=last_compile to f: run (a
// selector of f.Source's runs, see oplog.Log.ResolveRun) or runs (exact
// SOURCE:RUN pairs, repeated, as package client sends a resolved
// Filter.Runs; present and empty: no run), and markers (true or false).
func (p *params) scope(f *oplog.Filter) {
	q := p.c.QueryParams()
	if m := q.Get("markers"); m != "" {
		b, err := strconv.ParseBool(m)
		if err != nil {
			p.fail(oplog.Errorf(oplog.EINVALID, "markers: must be true or false, got %q", m))
		}
		f.WithMarkers = b
	}
	if pairs, ok := q["runs"]; ok {
		f.Runs = map[string]uint64{}
		for _, pair := range pairs {
			if pair == "" {
				continue
			}
			i := strings.LastIndexByte(pair, ':')
			n, err := strconv.ParseUint(pair[i+1:], 10, 64)
			if i < 0 || err != nil {
				p.fail(oplog.Errorf(oplog.EINVALID, "runs: want SOURCE:RUN, got %q", pair))
				return
			}
			f.Runs[pair[:i]] = n
		}
	}
	if p.log == nil || p.err != nil {
		return
	}
	if err := mcptools.Scope(p.c.Request().Context(), p.log, f, q.Get("run"), q.Get("since")); err != nil {
		p.fail(err)
	}
}
