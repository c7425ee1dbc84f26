package client

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// CrashesAnswer is GET /api/v1/crashes's answer; oplog.CrashGroup carries
// its own JSON names.
type CrashesAnswer struct {
	Groups []oplog.CrashGroup `json:"groups"`
	Total  int                `json:"total"`
	LastID uint64             `json:"lastId"`

	// With buckets=N: the span of the groups' histograms.
	HistogramFrom  time.Time `json:"histogramFrom,omitzero"`
	HistogramUntil time.Time `json:"histogramUntil,omitzero"`
}

// FindCrashes asks the server for its crash groups (see oplog.Log.FindCrashes),
// sending Classes as class and MinLevel as level; the server's EINVALID
// names a bad one.
func (c *Client) FindCrashes(ctx context.Context, q oplog.CrashQuery) (oplog.CrashPage, error) {
	v := filterValues(&oplog.Filter{Since: q.Since, Until: q.Until, Source: q.Source, Runs: q.Runs, MinLevel: q.MinLevel})
	v.Del("kind")
	setNum(v, "limit", q.Limit)
	if len(q.Classes) > 0 {
		v.Set("class", strings.Join(q.Classes, ","))
	}
	var a CrashesAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/crashes", v, nil, &a); err != nil {
		return oplog.CrashPage{}, err
	}
	return oplog.CrashPage{Groups: a.Groups, Total: a.Total, LastID: a.LastID}, nil
}
