package oplog

import (
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ParseBound parses a filter's time bound (since, until) as people write
// it, the way journalctl's --since does, in now's location (the local
// time zone for time.Now()):
//
//   - "now", "today", "yesterday", "tomorrow" (midnight of that day);
//   - a date and a time without a zone, "2026-12-01", "2026-12-01 10:00",
//     "2026-12-01T10:00:05.5", or a time alone, "10:00" (today at ten),
//     optionally after a weekday ("Tue 2026-12-01 10:00", as journalctl
//     prints), in local time; with "UTC" after it, in UTC;
//   - a span back from now, "-1h", "1h30m", "2 days ago", "-1d", or ahead,
//     "+5min", in Go's or systemd's units (us, ms, s, sec, min, m, h, hr,
//     d, day, w, week, M, month, y, year and their plurals);
//   - "@1733000000", Unix seconds;
//   - and everything ParseTime reads: RFC 3339 with a zone, Unix time as a
//     number.
//
// The result is in UTC. An EINVALID error lists the forms.
func ParseBound(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	loc := now.Location()
	day := func(offset int) time.Time {
		y, m, d := now.Date()
		return time.Date(y, m, d+offset, 0, 0, 0, 0, loc).UTC()
	}
	switch strings.ToLower(s) {
	case "now":
		return now.UTC(), nil
	case "today":
		return day(0), nil
	case "yesterday":
		return day(-1), nil
	case "tomorrow":
		return day(1), nil
	}
	if rest, ok := strings.CutPrefix(s, "@"); ok {
		if f, err := strconv.ParseFloat(rest, 64); err == nil && f < 9e9 && f > -9e9 {
			return time.Unix(0, int64(f*1e9)).UTC(), nil
		}
	}
	if t, ok := parseLocal(s, now); ok {
		return t.UTC(), nil
	}
	if d, ok := parseSpan(s); ok {
		return now.Add(d).UTC(), nil
	}
	if t, err := ParseTime(s, now); err == nil || !strings.HasPrefix(ErrorMessage(err), "cannot read time") {
		return t, err // read, or a number out of range: ParseTime says so
	}
	return time.Time{}, Errorf(EINVALID, "cannot read time %q; use yesterday, today, -1h, 2026-01-02, 2026-01-02 15:04 or 15:04 (local time), "+
		"RFC 3339 (2026-01-02T15:04:05Z) or Unix milliseconds", s)
}

// localLayouts are the zoneless forms ParseBound reads in local time.
var localLayouts = []string{"2006-01-02", "2006-01-02 15:04", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02T15:04:05"}

// parseLocal reads a zoneless date, date and time, or time of today, in
// now's location ("UTC" after it: in UTC), after an optional weekday that
// must be the date's.
func parseLocal(s string, now time.Time) (time.Time, bool) {
	loc := now.Location()
	if rest, ok := strings.CutSuffix(s, " UTC"); ok {
		s, loc = strings.TrimSpace(rest), time.UTC
	}
	weekday := -1
	if first, rest, ok := strings.Cut(s, " "); ok && len(first) >= 3 && unicode.IsLetter(rune(first[0])) {
		for d := time.Sunday; d <= time.Saturday; d++ {
			if name := d.String(); strings.EqualFold(first, name) || strings.EqualFold(first, name[:3]) {
				weekday, s = int(d), strings.TrimSpace(rest)
			}
		}
		if weekday < 0 {
			return time.Time{}, false
		}
	}
	var t time.Time
	ok := false
	for _, layout := range localLayouts {
		if p, err := time.ParseInLocation(layout, s, loc); err == nil {
			t, ok = p, true
			break
		}
	}
	if !ok {
		for _, layout := range []string{"15:04", "15:04:05"} {
			if p, err := time.ParseInLocation(layout, s, loc); err == nil {
				y, m, d := now.In(loc).Date()
				t, ok = time.Date(y, m, d, p.Hour(), p.Minute(), p.Second(), p.Nanosecond(), loc), true
				break
			}
		}
	}
	if !ok || weekday >= 0 && int(t.Weekday()) != weekday {
		return time.Time{}, false
	}
	return t, true
}

// spanUnits are systemd's time span units (and Go's), in nanoseconds;
// "m" is a minute and "M" a month, as in systemd.
var spanUnits = map[string]time.Duration{
	"ns": 1, "nsec": 1,
	"us": time.Microsecond, "µs": time.Microsecond, "μs": time.Microsecond, "usec": time.Microsecond,
	"ms": time.Millisecond, "msec": time.Millisecond,
	"s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"w": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
	"M": 2629800 * time.Second, "month": 2629800 * time.Second, "months": 2629800 * time.Second,
	"y": 31557600 * time.Second, "year": 31557600 * time.Second, "years": 31557600 * time.Second,
}

// maxSpan is the longest span ParseBound reads, within time.Duration.
const maxSpan = 200 * 365 * 24 * time.Hour

// parseSpan reads a span relative to now: "-1h", "1h30m", "2 days ago"
// and a bare "2h" are in the past, "+5min" in the future.
func parseSpan(s string) (time.Duration, bool) {
	sign := time.Duration(-1)
	if rest, ok := strings.CutSuffix(s, "ago"); ok {
		s = strings.TrimSpace(rest)
	} else if rest, ok := strings.CutPrefix(s, "+"); ok {
		s, sign = strings.TrimSpace(rest), 1
	}
	s = strings.TrimSpace(strings.TrimPrefix(s, "-"))
	var total time.Duration
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		if i <= 0 {
			return 0, false // no number, or a number without a unit
		}
		n, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return 0, false
		}
		s = strings.TrimLeft(s[i:], " ")
		j := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
		if j < 0 {
			j = len(s)
		}
		unit, ok := spanUnits[s[:j]]
		if !ok {
			if unit, ok = spanUnits[strings.ToLower(s[:j])]; !ok {
				return 0, false
			}
		}
		if float64(total)+n*float64(unit) > float64(maxSpan) {
			return 0, false
		}
		total += time.Duration(n * float64(unit))
		s = strings.TrimLeft(s[j:], " ")
	}
	return sign * total, true
}
