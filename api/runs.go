package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// runs answers GET /api/v1/runs?source=&run=: the runs of source ("" every
// source) by source then run, oldest first; with run (current, previous or
// a number) only the runs it selects.
func (s *Server) runs(c echo.Context) error {
	ctx := c.Request().Context()
	source := c.QueryParam("source")
	// First: a bad selector is EINVALID whatever the store.
	r, err := oplog.Resolve(ctx, s.log, oplog.Args{SearchText: oplog.SearchText{FilterText: oplog.FilterText{Source: source}},
		Run: c.QueryParam("run")}, time.Now())
	if err != nil {
		return err
	}
	picked := r.Runs
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

// runs reads the runs parameter: exact SOURCE:RUN pairs, repeated, as
// package client sends a resolved Filter.Runs; nil when absent, present and
// empty: no run.
func (p *params) runs() map[string]uint64 { return p.runPairs("runs") }

// runPairs reads a parameter of exact SOURCE:RUN pairs, as runs.
func (p *params) runPairs(name string) map[string]uint64 {
	pairs, ok := p.c.QueryParams()[name]
	if !ok {
		return nil
	}
	runs := map[string]uint64{}
	for _, pair := range pairs {
		if pair == "" {
			continue
		}
		i := strings.LastIndexByte(pair, ':')
		n, err := strconv.ParseUint(pair[i+1:], 10, 64)
		if i < 0 || err != nil {
			p.fail(oplog.Errorf(oplog.EINVALID, "%s: want SOURCE:RUN, got %q", name, pair))
			return runs
		}
		runs[pair[:i]] = n
	}
	return runs
}

// markers reads the markers parameter (true or false) into f.WithMarkers.
func (p *params) markers(f *oplog.Filter) {
	if m := p.c.QueryParam("markers"); m != "" {
		b, err := strconv.ParseBool(m)
		if err != nil {
			p.fail(oplog.Errorf(oplog.EINVALID, "markers: must be true or false, got %q", m))
		}
		f.WithMarkers = b
	}
}
