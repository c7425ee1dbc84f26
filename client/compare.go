package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/mcplogd/mcplogd/oplog"
)

// CompareRuns compares runs as oplog.Log.CompareRuns does, the server
// reading them (GET /api/v1/compare).
func (c *Client) CompareRuns(ctx context.Context, q oplog.CompareQuery) (oplog.Comparison, error) {
	v := url.Values{}
	if q.Source != "" {
		v.Set("source", q.Source)
	}
	setNum(v, "maxRecords", q.MaxRecords)
	for name, runs := range map[string]map[string]uint64{"runs": q.Current, "previous": q.Previous} {
		for src, run := range runs {
			v.Add(name, src+":"+strconv.FormatUint(run, 10))
		}
	}
	var out oplog.Comparison
	err := c.do(ctx, http.MethodGet, "/api/v1/compare", v, nil, &out)
	return out, err
}
