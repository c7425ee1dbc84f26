package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
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
func (s *Server) studioSearch(c echo.Context, st oplog.Studio, q oplog.Request) error {
	p, err := st.Search(c.Request().Context(), oplog.StudioSearchQuery{SearchQuery: q.SearchQuery, Machine: q.Machine})
	if err != nil {
		return err
	}
	recs, frags := make([]oplog.StudioRecord, len(p.Hits)), make([]string, len(p.Hits))
	for i, h := range p.Hits {
		recs[i], frags[i] = h.StudioRecord, h.Fragment
	}
	a := client.StudioRecordsAnswer{Scope: "studio", Project: st.Project(), Records: studioRecords(recs, frags), NextCursor: p.NextCursor}
	if len(p.Hits) == 0 && q.Cursor == "" { // an empty answer says what to send instead
		a.Hint = oplog.StudioHint(c.Request().Context(), st, s.log, oplog.StudioSearchQuery{SearchQuery: q.SearchQuery, Machine: q.Machine})
	}
	return c.JSON(http.StatusOK, a)
}

// studioList answers GET /api/v1/records?scope=studio: count and cursor page it.
func (s *Server) studioList(c echo.Context, st oplog.Studio, r oplog.Request) error {
	p := params{c: c}
	q := c.QueryParam
	lq := oplog.StudioListQuery{Filter: r.Filter, Machine: r.Machine, Count: p.int("count"), Cursor: q("cursor")}
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
	a := client.StudioRecordsAnswer{Scope: "studio", Project: st.Project(), Records: studioRecords(page.Records, nil), NextCursor: page.NextCursor}
	if len(page.Records) == 0 && lq.Cursor == "" { // an empty answer says what to send instead
		a.Hint = oplog.StudioFilterHint(c.Request().Context(), st, r.Filter, r.Machine)
	}
	return c.JSON(http.StatusOK, a)
}

// studioCrashes answers GET /api/v1/crashes?scope=studio.
func (s *Server) studioCrashes(c echo.Context, st oplog.Studio, f oplog.Request) error {
	p := params{c: c}
	cq := oplog.StudioCrashQuery{Since: f.Since, Until: f.Until, Source: f.Source, Machine: f.Machine, Limit: p.int("limit"),
		Classes: p.list("class"), MinLevel: f.MinLevel}
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
