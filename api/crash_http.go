package api

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
)

// crashesAnswer is GET /api/v1/crashes's answer; oplog.CrashGroup carries
// its own JSON names.
type crashesAnswer struct {
	Groups []oplog.CrashGroup `json:"groups"`
	Total  int                `json:"total"`
	LastID uint64             `json:"lastId"`

	// With buckets=N: the span of the groups' histograms.
	HistogramFrom  time.Time `json:"histogramFrom,omitzero"`
	HistogramUntil time.Time `json:"histogramUntil,omitzero"`
}

// crashes answers GET /api/v1/crashes?since=&until=&source=&limit=&buckets=.
func (s *Server) crashes(c echo.Context) error {
	p := params{c: c}
	f := p.filter(0)
	q := oplog.CrashQuery{Since: f.Since, Until: f.Until, Source: f.Source, Limit: p.int("limit"), Buckets: p.int("buckets")}
	if p.err != nil {
		return p.err
	}
	page, err := s.log.FindCrashes(c.Request().Context(), q)
	if err != nil {
		return err
	}
	a := crashesAnswer{Groups: page.Groups, Total: page.Total, LastID: page.LastID,
		HistogramFrom: page.HistogramFrom, HistogramUntil: page.HistogramUntil}
	if a.Groups == nil {
		a.Groups = []oplog.CrashGroup{}
	}
	return c.JSON(http.StatusOK, a)
}

// FindCrashes asks the server for its crash groups (see oplog.Log.FindCrashes).
func (c *Client) FindCrashes(ctx context.Context, q oplog.CrashQuery) (oplog.CrashPage, error) {
	v := filterValues(&oplog.Filter{Since: q.Since, Until: q.Until, Source: q.Source})
	v.Del("kind")
	setNum(v, "limit", q.Limit)
	var a crashesAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/crashes", v, nil, &a); err != nil {
		return oplog.CrashPage{}, err
	}
	return oplog.CrashPage{Groups: a.Groups, Total: a.Total, LastID: a.LastID}, nil
}
