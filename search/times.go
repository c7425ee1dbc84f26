package search

import (
	"time"

	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Record times are not in bleve: a datetime field costs 16 prefix-coded
// terms per document, most of them unique, which was a third of the
// indexing time and of the index size. Each segment keeps its documents'
// times in a column instead (8 bytes per ID, in memory; a segment opened
// from disk fills it from the store the first time a time range needs
// it), with its span for skipping. A since/until
// filter is applied to the IDs a search collects; a time range written in
// the query string is a timeRangeQuery, which filters bleve's documents
// through the column.

// in reports whether t passes r (since inclusive, until exclusive).
func (r timeRange) in(t int64) bool {
	return (r.since.IsZero() || t >= r.since.UnixNano()) && (r.until.IsZero() || t < r.until.UnixNano())
}

// timeRangeQuery is a time range of the query string (time:>"2026-05-01"):
// the documents of a reader whose record time is in it, read from the
// column that the search puts in the context.
type timeRangeQuery struct {
	start, end         time.Time // zero: open
	inclStart, inclEnd bool
}

func newTimeRangeQuery(n *ql.TimeRange) *timeRangeQuery {
	t := &timeRangeQuery{start: n.Start, end: n.End, inclStart: true}
	if n.StartIncl != nil {
		t.inclStart = *n.StartIncl
	}
	if n.EndIncl != nil {
		t.inclEnd = *n.EndIncl
	}
	return t
}

func (q *timeRangeQuery) match(t int64) bool {
	if !q.start.IsZero() {
		if s := q.start.UnixNano(); t < s || t == s && !q.inclStart {
			return false
		}
	}
	if !q.end.IsZero() {
		if e := q.end.UnixNano(); t > e || t == e && !q.inclEnd {
			return false
		}
	}
	return true
}
