package oplog_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestParseBound reads journalctl's time words in a fixed zone, five and a
// half hours east of UTC, at a fixed now: 2026-12-03 01:30 there, which is
// still 2026-12-02 in UTC, so a date read in UTC instead of local time shows.
func TestParseBound(t *testing.T) {
	zone := time.FixedZone("IST", 5*3600+1800)
	now := time.Date(2026, 12, 3, 1, 30, 0, 0, zone) // a Thursday
	local := func(y int, mo time.Month, d, h, mi, s int) time.Time { return time.Date(y, mo, d, h, mi, s, 0, zone) }
	for in, want := range map[string]time.Time{
		"now":                            now,
		"today":                          local(2026, 12, 3, 0, 0, 0),
		"Today":                          local(2026, 12, 3, 0, 0, 0),
		"yesterday":                      local(2026, 12, 2, 0, 0, 0),
		"tomorrow":                       local(2026, 12, 4, 0, 0, 0),
		"2026-12-01":                     local(2026, 12, 1, 0, 0, 0),
		"2026-12-01 10:00":               local(2026, 12, 1, 10, 0, 0),
		"2026-12-01 10:00:05":            local(2026, 12, 1, 10, 0, 5),
		"2026-12-01T10:00:05.25":         local(2026, 12, 1, 10, 0, 5).Add(250 * time.Millisecond),
		"10:00":                          local(2026, 12, 3, 10, 0, 0),
		"00:15:30":                       local(2026, 12, 3, 0, 15, 30),
		"Tue 2026-12-01 10:00:00":        local(2026, 12, 1, 10, 0, 0),
		"tuesday 2026-12-01":             local(2026, 12, 1, 0, 0, 0),
		"2026-12-01 10:00 UTC":           time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC),
		"-1h":                            now.Add(-time.Hour),
		"1h":                             now.Add(-time.Hour),
		"-15m":                           now.Add(-15 * time.Minute),
		"-1d":                            now.Add(-24 * time.Hour),
		"-1h30m":                         now.Add(-90 * time.Minute),
		"-1h 30min":                      now.Add(-90 * time.Minute),
		"2 days ago":                     now.Add(-48 * time.Hour),
		"2h ago":                         now.Add(-2 * time.Hour),
		"-2weeks":                        now.Add(-14 * 24 * time.Hour),
		"-1M":                            now.Add(-2629800 * time.Second),
		"+5min":                          now.Add(5 * time.Minute),
		"-500ms":                         now.Add(-500 * time.Millisecond),
		"@1764504000":                    time.Unix(1764504000, 0),
		"2026-11-30T10:00:00Z":           time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		"2026-11-30T11:00:00+01:00":      time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		"2026-11-30 11:00:00.5+01:00":    time.Date(2026, 11, 30, 10, 0, 0, 5e8, time.UTC),
		"1764504000":                     time.Unix(1764504000, 0),
		"1764504000123":                  time.UnixMilli(1764504000123),
		"  yesterday  ":                  local(2026, 12, 2, 0, 0, 0),
		"2026-11-30T10:00:00.123456789Z": time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.UTC),
	} {
		got, err := oplog.ParseBound(in, now)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseBound(%q) = %v, %v; want %v in UTC", in, got, err, want.UTC())
		}
	}
	if got, err := oplog.ParseBound("", now); err != nil || !got.IsZero() {
		t.Errorf("ParseBound(\"\") = %v, %v; want the zero time", got, err)
	}
	for _, in := range []string{"99999999999999999999", "1e300"} {
		if _, err := oplog.ParseBound(in, now); oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("ParseBound(%q) error = %v; want EINVALID saying out of range", in, err)
		}
	}
	for _, in := range []string{"yesterday-ish", "Mon 2026-12-01", "1 fortnight", "10:61", "2026-13-01", "-300y", "99999y"} {
		_, err := oplog.ParseBound(in, now)
		if oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(err.Error(), "yesterday, today, -1h") {
			t.Errorf("ParseBound(%q) error = %v; want EINVALID listing the forms", in, err)
		}
	}
}

// TestFilterText_Parse_LocalTime: since and until, as MCP tools, HTTP
// parameters and CLI flags give them, read time words in now's zone.
func TestFilterText_Parse_LocalTime(t *testing.T) {
	zone := time.FixedZone("PST", -8*3600)
	now := time.Date(2026, 12, 2, 20, 0, 0, 0, zone) // 2026-12-03 04:00 UTC
	f, err := oplog.FilterText{Since: "yesterday", Until: "today"}.Parse(now)
	if err != nil || !f.Since.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, zone)) || !f.Until.Equal(time.Date(2026, 12, 2, 0, 0, 0, 0, zone)) {
		t.Fatalf("since yesterday, until today: %v to %v, %v", f.Since, f.Until, err)
	}
	if _, err := (oplog.FilterText{Until: "someday"}).Parse(now); err == nil || !strings.HasPrefix(oplog.ErrorMessage(err), "until: cannot read time") {
		t.Fatalf("until someday: %v; want an error naming until", err)
	}
}
