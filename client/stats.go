package client

import (
	"context"
	"net/http"

	"github.com/mcplogd/mcplogd/oplog"
)

// Digest returns the digest of the records q keeps, as oplog.Log.Digest
// does, the server counting (GET /api/v1/stats).
func (c *Client) Digest(ctx context.Context, q oplog.DigestQuery) (oplog.Digest, error) {
	v := filterValues(&q.Filter)
	setNum(v, "maxRecords", q.MaxRecords)
	var d oplog.Digest
	err := c.do(ctx, http.MethodGet, "/api/v1/stats", v, nil, &d)
	return d, err
}
