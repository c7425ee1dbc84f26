package client

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// TailAnswer is GET /api/v1/tail's answer, and the data of each "lines"
// event of GET /api/v1/stream (see oplog.Tail).
type TailAnswer struct {
	Lines    []TailLine `json:"lines"`
	LastID   uint64     `json:"lastId"`
	Revision uint64     `json:"revision"`
	Dropped  uint64     `json:"dropped"`
	Reset    bool       `json:"reset"`
	More     bool       `json:"more"`
	// DamagedRuns are the runs of IDs the answer skipped, unreadable
	// (oplog.Tail.Damaged).
	DamagedRuns []oplog.Damaged `json:"damagedRuns,omitempty"`
}

// TailLine is one record of a TailAnswer. Template is the oplog.Template
// of a console line's text when its first line is at most
// oplog.MaxTemplateInput bytes (else empty): what the web page collapses
// runs of one template by, as console_tail does (mcptools/text.go), with
// no template function of its own.
type TailLine struct {
	oplog.Record
	Template string `json:"template,omitempty"`
}

// MarshalJSON is the record's JSON (oplog.Record.MarshalJSON, which the
// embedding would otherwise take alone) with template added.
func (l TailLine) MarshalJSON() ([]byte, error) {
	b, err := l.Record.MarshalJSON()
	if err != nil || l.Template == "" || len(b) < 2 || b[len(b)-1] != '}' {
		return b, err
	}
	t, err := oplog.MarshalJSON(l.Template, "")
	if err != nil {
		return nil, err
	}
	b = append(b[:len(b)-1], `,"template":`...)
	b = append(b, t...)
	return append(b, '}'), nil
}

// NewTailAnswer returns t as the API answers it, each console line with
// its template: Lines is [] rather than null when there are none.
func NewTailAnswer(t *oplog.Tail) TailAnswer {
	a := TailAnswer{Lines: make([]TailLine, len(t.Lines)), LastID: t.LastID, Revision: t.Revision, Dropped: t.Dropped, Reset: t.Reset, More: t.More,
		DamagedRuns: t.Damaged}
	for i := range t.Lines {
		a.Lines[i] = TailLine{Record: t.Lines[i], Template: lineTemplate(&t.Lines[i])}
	}
	return a
}

// lineTemplate is r's template when r is a console line whose text's first
// line may be compared by its template (see mcptools' templated), else "".
func lineTemplate(r *oplog.Record) string {
	if r.Kind != oplog.KindLine {
		return ""
	}
	first := r.Text
	if i := strings.IndexAny(first, "\r\n"); i >= 0 {
		first = first[:i]
	}
	if len(first) > oplog.MaxTemplateInput {
		return ""
	}
	return oplog.Template(first)
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
	lines := make([]oplog.Record, len(a.Lines))
	for i := range a.Lines {
		lines[i] = a.Lines[i].Record
	}
	return oplog.Tail{Lines: lines, LastID: a.LastID, Revision: a.Revision, Dropped: a.Dropped, Reset: a.Reset, More: a.More, Damaged: a.DamagedRuns}, nil
}
