package search

import (
	"time"

	"github.com/blevesearch/bleve/v2/document"
)

// span is the range of the record times (Unix nanoseconds) of the
// documents in one segment or in-memory chunk. Record times are writer
// timestamps, out of ID order at times, so a span is kept per segment rather
// than derived from IDs. A search skips a segment whose span cannot meet its
// time range, and checks no time where the whole span is inside it.
type span struct {
	Min   int64 `json:"min"`
	Max   int64 `json:"max"`
	N     int   `json:"n"`     // documents added (repeats included); 0: empty
	Wild  bool  `json:"wild"`  // a time out of UnixNano's range: never skip nor keep all
	Known bool  `json:"known"` // false in a meta.json written before spans: unknown
}

func newSpan() span { return span{Known: true} }

// add widens s over t.
func (s *span) add(t time.Time) {
	if t.IsZero() || !representable(t) {
		s.Wild = true // (the store refuses such times)
		return
	}
	n := t.UnixNano()
	if s.N == 0 || n < s.Min {
		s.Min = n
	}
	if s.N == 0 || n > s.Max {
		s.Max = n
	}
	s.N++
}

// merge widens s over o.
func (s *span) merge(o span) {
	s.Wild = s.Wild || o.Wild || !o.Known
	if o.N == 0 {
		return
	}
	if s.N == 0 || o.Min < s.Min {
		s.Min = o.Min
	}
	if s.N == 0 || o.Max > s.Max {
		s.Max = o.Max
	}
	s.N += o.N
}

// timeRange is a search's time filter: since <= t < until, a zero bound
// absent (the semantics of oplog.Filter and of the date range clause).
type timeRange struct {
	since, until time.Time
}

func (r timeRange) none() bool { return r.since.IsZero() && r.until.IsZero() }

// coverage says how a span's documents stand to r: outside (no document
// can match), inside (every one matches) or partly (each time is checked).
type coverage int

const (
	partly coverage = iota
	outside
	inside
)

func (s span) cover(r timeRange) coverage {
	if r.none() {
		return inside
	}
	if !s.Known || s.Wild || !representable(r.since) || !representable(r.until) {
		return partly
	}
	if s.N == 0 {
		return outside
	}
	if !r.since.IsZero() && s.Max < r.since.UnixNano() || !r.until.IsZero() && s.Min >= r.until.UnixNano() {
		return outside
	}
	if (r.since.IsZero() || s.Min >= r.since.UnixNano()) && (r.until.IsZero() || s.Max < r.until.UnixNano()) {
		return inside
	}
	return partly
}

// representable: t is zero or a time UnixNano represents.
func representable(t time.Time) bool {
	return t.IsZero() || !t.Before(document.MinTimeRepresentable) && !t.After(document.MaxTimeRepresentable)
}
