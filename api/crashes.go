package api

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// crashes answers GET /api/v1/crashes?since=&until=&source=&run=&class=&level=&limit=&buckets=.
// class is a comma list of oplog.CrashClasses, and may be repeated; level
// (error or fatal) keeps the occurrences at it or above; both apply to
// scope=studio too.
func (s *Server) crashes(c echo.Context) error {
	p := params{c: c}
	f, st := p.resolve(s, p.args(), 0) // level: oplog.ParseLevel's spellings, into f.MinLevel
	if st != nil {
		return s.studioCrashes(c, st, f)
	}
	q := oplog.CrashQuery{Since: f.Since, Until: f.Until, Source: f.Source, Runs: f.Runs, Limit: p.int("limit"), Buckets: p.int("buckets"),
		Classes: p.list("class"), MinLevel: f.MinLevel}
	if p.err != nil {
		return p.err
	}
	page, err := s.log.FindCrashes(c.Request().Context(), q) // EINVALID naming class or level for a bad one
	if err != nil {
		return err
	}
	a := client.CrashesAnswer{Groups: page.Groups, Total: page.Total, LastID: page.LastID,
		HistogramFrom: page.HistogramFrom, HistogramUntil: page.HistogramUntil}
	if a.Groups == nil {
		a.Groups = []oplog.CrashGroup{}
	}
	return c.JSON(http.StatusOK, a)
}

// list returns the comma-separated items of every occurrence of the
// parameter, trimmed and lower-cased, empty items dropped; nil when absent.
func (p *params) list(name string) []string {
	var out []string
	for _, v := range p.c.QueryParams()[name] {
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.ToLower(strings.TrimSpace(item)); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}
