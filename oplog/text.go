package oplog

import (
	"strings"
	"unicode/utf8"
)

// ClipBytes returns s cut to at most n bytes, at a UTF-8 boundary so that
// no character is split. A string of n bytes or fewer comes back as it is;
// n <= 0 gives "".
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ClipRunes returns s cut to at most n characters (runes) and whether it
// was cut. n <= 0 gives "" for any non-empty s.
func ClipRunes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false // fewer bytes than n: fewer runes too
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j], true
		}
		i++
	}
	return s, false
}

// Label makes s fit a record's name, source or tool: one line (newlines,
// carriage returns and NULs become spaces), at most MaxLabelBytes bytes.
func Label(s string) string {
	if strings.ContainsAny(s, "\n\r\x00") {
		s = strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' || r == 0 {
				return ' '
			}
			return r
		}, s)
	}
	return ClipBytes(s, MaxLabelBytes)
}
