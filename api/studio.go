package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// Studio scope: scope=studio (and machine=) on GET /api/v1/search,
// /crashes and /records asks Options.Studio, every machine of the
// project, as the MCP tools' scope does; the answers are client's Studio*
// shapes. GET /api/v1/studio says whether there is a studio (the web page
// shows its local/studio switch then).

// studioInfo answers GET /api/v1/studio: whether there is a studio, and its project.
func (s *Server) studioInfo(c echo.Context) error {
	if s.opts.StudioScope == nil {
		return c.JSON(http.StatusOK, client.StudioAnswer{})
	}
	return c.JSON(http.StatusOK, client.StudioAnswer{Studio: true, Project: s.opts.StudioScope.Project()})
}

// studioScope reads scope and machine: the studio for scope=studio, nil
// for local; run and since=last_compile are one machine's.
func (s *Server) studioScope(c echo.Context) (oplog.Studio, error) {
	q := c.QueryParam
	switch strings.ToLower(q("scope")) {
	case "", "local":
		if q("machine") != "" {
			return nil, oplog.Errorf(oplog.EINVALID, "machine: only with scope=studio")
		}
		return nil, nil
	case "studio":
	default:
		return nil, oplog.Errorf(oplog.EINVALID, "scope: %q: expected local or studio", q("scope"))
	}
	if s.opts.StudioScope == nil {
		return nil, oplog.Errorf(oplog.EUNAVAILABLE, "scope: studio: this server has no studio (mcplogd serve --studio URL, or \"studio\" in config.json)")
	}
	if q("run") != "" || len(c.QueryParams()["runs"]) > 0 {
		return nil, oplog.Errorf(oplog.EINVALID, "run: runs are one machine's; with scope=studio use since and until")
	}
	if mcptools.IsLastCompile(q("since")) {
		return nil, oplog.Errorf(oplog.EINVALID, "since: last_compile is one machine's; with scope=studio give a time")
	}
	return s.opts.StudioScope, nil
}

func studioRecords(recs []oplog.StudioRecord, fragments []string) []client.StudioRecordAnswer {
	out := make([]client.StudioRecordAnswer, len(recs))
	for i := range recs {
		out[i] = client.StudioRecordAnswer{Machine: recs[i].Machine, Revision: recs[i].Revision, Record: recs[i].Record}
		if fragments != nil {
			out[i].Fragment = fragments[i]
		}
	}
	return out
}

// studioSearch answers GET /api/v1/search?scope=studio.
func (s *Server) studioSearch(c echo.Context, st oplog.Studio, q oplog.SearchQuery) error {
	p, err := st.Search(c.Request().Context(), oplog.StudioSearchQuery{SearchQuery: q, Machine: c.QueryParam("machine")})
	if err != nil {
		return err
	}
	recs, frags := make([]oplog.StudioRecord, len(p.Hits)), make([]string, len(p.Hits))
	for i, h := range p.Hits {
		recs[i], frags[i] = h.StudioRecord, h.Fragment
	}
	return c.JSON(http.StatusOK, client.StudioRecordsAnswer{Scope: "studio", Project: st.Project(), Records: studioRecords(recs, frags), NextCursor: p.NextCursor})
}

// studioList answers GET /api/v1/records?scope=studio: count and cursor page it.
func (s *Server) studioList(c echo.Context, st oplog.Studio) error {
	p := params{c: c}
	q := c.QueryParam
	f, err := oplog.FilterText{Level: q("level"), Name: q("name"), Kind: q("kind"), Source: q("source"), Since: q("since"), Until: q("until")}.Parse(time.Now())
	if err != nil {
		return err
	}
	lq := oplog.StudioListQuery{Filter: f, Machine: q("machine"), Count: p.int("count"), Cursor: q("cursor")}
	if p.err != nil {
		return p.err
	}
	if q("offset") != "" || q("before") != "" {
		return oplog.Errorf(oplog.EINVALID, "offset, before: with scope=studio, page with cursor (the previous nextCursor)")
	}
	page, err := st.List(c.Request().Context(), lq)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, client.StudioRecordsAnswer{Scope: "studio", Project: st.Project(), Records: studioRecords(page.Records, nil), NextCursor: page.NextCursor})
}

// studioCrashes answers GET /api/v1/crashes?scope=studio.
func (s *Server) studioCrashes(c echo.Context, st oplog.Studio) error {
	p := params{c: c}
	q := c.QueryParam
	f, err := oplog.FilterText{Source: q("source"), Since: q("since"), Until: q("until")}.Parse(time.Now())
	if err != nil {
		return err
	}
	level, err := oplog.ParseLevel(q("level"))
	if err != nil {
		return oplog.Errorf(oplog.EINVALID, "level: %s", oplog.ErrorMessage(err))
	}
	cq := oplog.StudioCrashQuery{Since: f.Since, Until: f.Until, Source: f.Source, Machine: q("machine"), Limit: p.int("limit"),
		Classes: p.list("class"), MinLevel: level}
	if p.err != nil {
		return p.err
	}
	page, err := st.FindCrashes(c.Request().Context(), cq)
	if err != nil {
		return err
	}
	a := client.StudioCrashesAnswer{Scope: "studio", Project: st.Project(), Groups: make([]client.StudioCrashGroupAnswer, len(page.Groups)), Total: page.Total}
	for i, g := range page.Groups {
		a.Groups[i] = client.StudioCrashGroupAnswer{CrashGroup: g.CrashGroup, FirstMachine: g.FirstMachine, LastMachine: g.LastMachine, Machines: g.Machines}
	}
	return c.JSON(http.StatusOK, a)
}
