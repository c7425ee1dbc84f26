package oplog

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Filter selects records. The zero Filter matches every record.
type Filter struct {
	MinLevel Level     // keep this level and above; zero: any
	Name     string    // exact log name (an op's tool name); empty: any
	Kind     Kind      // zero: any
	Source   string    // exact source; empty: any
	Since    time.Time // keep records with Time >= Since; zero: no bound
	Until    time.Time // keep records with Time < Until; zero: no bound

	// WithMarkers keeps markers too when Kind is KindLine: what a tail shows.
	WithMarkers bool

	// Runs keeps only records of the listed sources' runs (source → run,
	// see Log.ResolveRun); nil: any run. A non-nil empty map matches none.
	Runs map[string]uint64
}

// Match reports whether r passes every condition of f.
func (f *Filter) Match(r *Record) bool {
	if f.Runs != nil {
		if run, ok := f.Runs[r.Source]; !ok || r.Run != run {
			return false
		}
	}
	return f.MatchHeader(r.Kind, r.Level, r.Time.UnixNano()) &&
		(f.Name == "" || f.Name == r.Name) && (f.Source == "" || f.Source == r.Source)
}

// Narrows reports whether f has a condition that leaves records out.
func (f *Filter) Narrows() bool {
	return f.MinLevel != 0 || f.Name != "" || f.Kind != 0 || f.Source != "" || !f.Since.IsZero() || !f.Until.IsZero() || f.Runs != nil
}

// MatchHeader checks the conditions that need only a record's kind, level and
// time (Unix nanoseconds); stores use it to skip records without decoding them.
func (f *Filter) MatchHeader(k Kind, l Level, unixNano int64) bool {
	if f.Kind != 0 && k != f.Kind && !(f.WithMarkers && f.Kind == KindLine && k == KindMarker) || l < f.MinLevel {
		return false
	}
	if !f.Since.IsZero() && unixNano < f.Since.UnixNano() {
		return false
	}
	return f.Until.IsZero() || unixNano < f.Until.UnixNano()
}

// Query asks for records newest first.
type Query struct {
	Filter
	Count  int    // records per page; DefaultListCount when zero, capped at MaxListCount
	Offset int    // matching records to skip first
	Before uint64 // start below this ID; zero: from the newest
}

// Page is the answer to a Query.
type Page struct {
	Records []Record
	Total   int64     // matching records in the store, whatever Offset and Before say
	More    bool      // more matching records exist past this page
	Damaged []Damaged // runs of IDs this page skipped, unreadable (see Damaged); oldest first
}

// TailQuery asks for records oldest first after a known ID.
type TailQuery struct {
	Filter                 // console readers set Kind to KindLine
	SinceID  uint64        // the lastId of the previous answer
	HasSince bool          // false: return the newest Limit records instead
	Revision uint64        // the revision of the previous answer; zero: not checked
	Limit    int           // DefaultTailLimit when zero, capped at MaxTailLimit
	Wait     time.Duration // with no record to return, wait up to this long (capped at MaxWait) for one
}

// Tail is the answer to a TailQuery.
type Tail struct {
	Lines    []Record
	LastID   uint64    // pass as SinceID next time; covers records skipped by the filter too
	Revision uint64    // the store's generation
	Dropped  uint64    // records after SinceID that retention removed before they were read
	Reset    bool      // SinceID was past the newest ID or from another generation; Lines start over
	More     bool      // more records are ready now: ask again without waiting
	Damaged  []Damaged // runs of IDs after SinceID this answer skipped, unreadable (see Damaged)
}

// ParseTime parses a time bound as callers write it: RFC 3339 (with or
// without fraction or zone: a missing zone is UTC), a date, "now", a
// duration relative to now ("-15m", "2h" and "2h ago" all mean two hours
// before now), or Unix time as a number (seconds, milliseconds, microseconds
// or nanoseconds, told apart by size).
func ParseTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if s == "now" {
		return now.UTC(), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return UnixTime(n), nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		if f*1e9 >= math.MaxInt64 {
			// Seconds past 2262 (or a whole number too big for int64): as
			// nanoseconds it would wrap around to 1677.
			return time.Time{}, Errorf(EINVALID, "time %q is out of range: as Unix seconds it is after the year 2262", s)
		}
		return time.Unix(0, int64(f*1e9)).UTC(), nil
	}
	rel := strings.TrimSpace(strings.TrimSuffix(s, "ago"))
	rel = strings.TrimPrefix(rel, "-")
	if d, err := time.ParseDuration(rel); err == nil && d >= 0 {
		return now.Add(-d).UTC(), nil
	}
	return time.Time{}, Errorf(EINVALID, "cannot read time %q; use RFC 3339 (2026-01-02T15:04:05Z), a relative duration (-15m) or Unix milliseconds", s)
}

// FromUnixNano is the time of n nanoseconds since the Unix epoch, in UTC;
// zero gives the zero time. It is for times mcplogd stores itself (always
// nanoseconds); UnixTime guesses the unit of times that users write.
func FromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// FilterText is a Filter as callers write it: in tool arguments, query
// parameters and command-line flags. The zero FilterText is the zero Filter.
type FilterText struct {
	Level, Name, Kind, Source, Since, Until string
}

// Parse reads f, its times as ParseBound does (relative ones counted from
// now, dates and times without a zone in now's location). An EINVALID
// error names the field ("level: unknown level ..."); Kind "any" or ""
// is any kind.
func (f FilterText) Parse(now time.Time) (Filter, error) {
	q := Filter{Name: f.Name, Source: f.Source}
	var err error
	if q.MinLevel, err = ParseLevel(f.Level); err != nil {
		return q, Errorf(EINVALID, "level: %s", ErrorMessage(err))
	}
	if q.Kind, err = ParseKind(f.Kind); err != nil {
		return q, Errorf(EINVALID, "kind: %s", ErrorMessage(err))
	}
	if q.Since, err = ParseBound(f.Since, now); err != nil {
		return q, Errorf(EINVALID, "since: %s", ErrorMessage(err))
	}
	if q.Until, err = ParseBound(f.Until, now); err != nil {
		return q, Errorf(EINVALID, "until: %s", ErrorMessage(err))
	}
	return q, nil
}

// UnixTime converts a Unix timestamp in seconds, milliseconds, microseconds
// or nanoseconds (told apart by magnitude) to a UTC time. Zero gives the zero
// time.
func UnixTime(n int64) time.Time {
	switch {
	case n == 0:
		return time.Time{}
	case n < 1e11 && n > -1e11:
		return time.Unix(n, 0).UTC()
	case n < 1e14 && n > -1e14:
		return time.UnixMilli(n).UTC()
	case n < 1e17 && n > -1e17:
		return time.UnixMicro(n).UTC()
	}
	return time.Unix(0, n).UTC()
}
