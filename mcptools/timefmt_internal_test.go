package mcptools

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// The hand-written formatting must write exactly what time.Format writes,
// since answers and their goldens show it.
func TestListTimeOf_MatchesFormat(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	times := []time.Time{
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 31, 23, 59, 59, 999_999_999, time.UTC), // cut, not rounded
		time.Date(1, 2, 3, 4, 5, 6, 7_000_000, time.UTC),
		time.Date(9999, 9, 9, 9, 9, 9, 123_456_789, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), // five-digit year: time.Format's
		time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 14, 23, 30, 0, 5_000_000, paris), // another day in UTC
		{},
	}
	for _, tm := range times {
		if got, want := listTimeOf(tm), tm.Format(listTime); got != want {
			t.Errorf("listTimeOf(%v) = %q, want %q", tm, got, want)
		}
		if got, want := dayOf(tm), tm.UTC().Format(time.DateOnly); got != want {
			t.Errorf("dayOf(%v) = %q, want %q", tm, got, want)
		}
		if got, want := string(appendClock(nil, tm.UTC())), tm.UTC().Format("15:04:05.000"); got != want {
			t.Errorf("appendClock(%v) = %q, want %q", tm, got, want)
		}
	}
	for l := oplog.Level(0); l < 8; l++ {
		if got, want := upperLevel(l), strings.ToUpper(l.String()); got != want {
			t.Errorf("upperLevel(%d) = %q, want %q", l, got, want)
		}
	}
}

// jsonStringLen must count what json.Marshal writes, or answers overrun
// their budget (or stop short of it).
func TestJSONStringLen_MatchesMarshal(t *testing.T) {
	cases := []string{"", "plain", `q"b\s`, "\b\f\n\r\t\x00\x1f\x7f", "<a href=x>&amp;</a>", "é ✓ 😀",
		"\u2028\u2029", "\xff\xfe bad \xc3", "cut \xe2\x9c", "#1 12:00:00.000 INFO src/Name text… [600 chars] [stack]"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab<>&\"\\\n\t\x01\x7f\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\xff")
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		m, _ := json.Marshal(s)
		if got, want := jsonStringLen(s), len(m)-2; got != want {
			t.Fatalf("jsonStringLen(%q) = %d, want %d (%s)", s, got, want, m)
		}
	}
}
