package client

import (
	"context"
	"net/http"
	"strconv"

	"github.com/mcplogd/mcplogd/oplog"
)

// TailAnswer is GET /api/v1/tail's answer, and the data of each "lines"
// event of GET /api/v1/stream (see oplog.Tail).
type TailAnswer struct {
	Lines    []oplog.Record `json:"lines"`
	LastID   uint64         `json:"lastId"`
	Revision uint64         `json:"revision"`
	Dropped  uint64         `json:"dropped"`
	Reset    bool           `json:"reset"`
	More     bool           `json:"more"`
}

// NewTailAnswer returns t as the API answers it: Lines is [] rather than
// null when there are none.
func NewTailAnswer(t *oplog.Tail) TailAnswer {
	a := TailAnswer{Lines: t.Lines, LastID: t.LastID, Revision: t.Revision, Dropped: t.Dropped, Reset: t.Reset, More: t.More}
	if a.Lines == nil {
		a.Lines = []oplog.Record{}
	}
	return a
}

// Tail returns records after q.SinceID oldest first (see oplog.TailQuery); a
// zero q.Kind means any kind, as in oplog. q.Wait long-polls (in whole
// milliseconds, at most oplog.MaxWait).
func (c *Client) Tail(ctx context.Context, q oplog.TailQuery) (oplog.Tail, error) {
	v := filterValues(&q.Filter)
	if q.HasSince {
		v.Set("sinceId", strconv.FormatUint(q.SinceID, 10))
	}
	setNum(v, "revision", q.Revision)
	setNum(v, "limit", q.Limit)
	if q.Wait > 0 {
		v.Set("waitMs", strconv.FormatInt(max(q.Wait.Milliseconds(), 1), 10))
	}
	var a TailAnswer
	if err := c.do(ctx, http.MethodGet, "/api/v1/tail", v, nil, &a); err != nil {
		return oplog.Tail{}, err
	}
	return oplog.Tail{Lines: a.Lines, LastID: a.LastID, Revision: a.Revision, Dropped: a.Dropped, Reset: a.Reset, More: a.More}, nil
}
