package mcptools

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Every list answer formats a time or two per entry; time.Format parses its
// layout each time, which showed in console_tail's profile
// when its latency was measured. These write the same bytes by hand for the usual case (UTC,
// years 0–9999) and leave anything else to time.Format.

// listTimeOf is t.Format(listTime).
func listTimeOf(t time.Time) string {
	if t.Location() != time.UTC {
		return t.Format(listTime)
	}
	var a [24]byte
	b, ok := appendDate(a[:0], t)
	if !ok {
		return t.Format(listTime)
	}
	b = append(b, 'T')
	b = appendClock(b, t)
	return string(append(b, 'Z'))
}

// appendDate appends t's date as time.DateOnly writes it; ok is false for
// years outside 0–9999.
func appendDate(b []byte, t time.Time) ([]byte, bool) {
	y, m, d := t.Date()
	if y < 0 || y > 9999 {
		return b, false
	}
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, int(m), 2)
	b = append(b, '-')
	return appendDigits(b, d, 2), true
}

// appendClock appends t's time of day as "15:04:05.000" writes it
// (milliseconds cut, not rounded, as time.Format does).
func appendClock(b []byte, t time.Time) []byte {
	h, mi, s := t.Clock()
	b = appendDigits(b, h, 2)
	b = append(b, ':')
	b = appendDigits(b, mi, 2)
	b = append(b, ':')
	b = appendDigits(b, s, 2)
	b = append(b, '.')
	return appendDigits(b, t.Nanosecond()/int(time.Millisecond), 3)
}

// appendDigits appends v (0 ≤ v < 10^width) in exactly width digits.
func appendDigits(b []byte, v, width int) []byte {
	var a [4]byte
	for i := width - 1; i >= 0; i-- {
		a[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, a[:width]...)
}

// upperLevels are the levels' names as the text blocks show them.
var upperLevels = func() (u [oplog.LevelFatal + 1]string) {
	for l := range u {
		u[l] = strings.ToUpper(oplog.Level(l).String())
	}
	return u
}()

// upperLevel is strings.ToUpper(l.String()).
func upperLevel(l oplog.Level) string {
	if int(l) < len(upperLevels) {
		return upperLevels[l]
	}
	return strings.ToUpper(l.String())
}
