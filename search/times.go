package search

import (
	"context"
	"fmt"
	"sync"
	"time"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"

	"github.com/mcplogd/mcplogd/oplog"
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

// timeCol holds the record times (Unix nanoseconds; 0: unknown) of the IDs
// lo..lo+len(t)-1.
type timeCol struct {
	mu   sync.RWMutex
	lo   uint64
	t    []int64
	full bool // every record of the store in the range at fill time is here
}

func newTimeCol(lo, n uint64) *timeCol { return &timeCol{lo: lo, t: make([]int64, n)} }

// set records r's time. Under c.mu.
func (c *timeCol) set(r *oplog.Record) {
	if i := r.ID - c.lo; r.ID >= c.lo && i < uint64(len(c.t)) {
		c.t[i] = r.Time.UnixNano()
	}
}

// get returns id's time. Under c.mu (read).
func (c *timeCol) get(id uint64) (int64, bool) {
	if i := id - c.lo; id >= c.lo && i < uint64(len(c.t)) && c.t[i] != 0 {
		return c.t[i], true
	}
	return 0, false
}

// fill reads the times of the IDs lo..hi from st, once, telling read what
// it read.
func (c *timeCol) fill(st oplog.Store, hi uint64, read func(bytes int64)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.full {
		return nil
	}
	err := eachRecord(st, nil, c.lo, hi, func(batch []oplog.Record) bool {
		var bytes int64
		for i := range batch {
			c.set(&batch[i])
			bytes += recordBytes(&batch[i])
		}
		read(bytes)
		return true
	})
	if err != nil {
		return err
	}
	c.full = true
	return nil
}

// timeLookup returns a record's time, false when it is not known (the record
// is not there).
type timeLookup func(id uint64) (int64, bool)

type lookupKey struct{}

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

func (q *timeRangeQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, opts search.SearcherOptions) (search.Searcher, error) {
	look, _ := ctx.Value(lookupKey{}).(timeLookup)
	if look == nil {
		return nil, fmt.Errorf("time range: no record times for this index")
	}
	all, err := searcher.NewMatchAllSearcher(ctx, r, 1, opts)
	if err != nil {
		return nil, err
	}
	return searcher.NewFilteringSearcher(ctx, all, func(_ *search.SearchContext, d *search.DocumentMatch) bool {
		ext, err := r.ExternalID(d.IndexInternalID)
		if err != nil {
			return false
		}
		id, ok := parseDocID(ext)
		if !ok {
			return false
		}
		t, ok := look(id)
		return ok && q.match(t)
	}), nil
}
