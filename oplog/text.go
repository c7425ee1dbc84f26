package oplog

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ClipText returns s as a record's text: s itself when it fits
// MaxTextBytes, else its head cut at a character and followed by the mark
// of a cut line (CutMark), on every way records arrive.
func ClipText(s string) string {
	if len(s) <= MaxTextBytes {
		return s
	}
	head := ClipBytes(s, CutHead)
	return head + CutMark(int64(len(s)), len(head))
}

// CutHead is how much of a line too long for a record's text is kept: what
// the text holds with its CutMark.
const CutHead = MaxTextBytes - cutMarkRoom

// cutMarkRoom is room enough for the longest CutMark.
const cutMarkRoom = 80

// CutMark is the mark that ends the head of a line cut short, kept of its
// total bytes, which says how long the line was and how much of it was
// dropped:
//
//	… [line cut: 52428800 bytes, 52166736 dropped]
func CutMark(total int64, kept int) string {
	return " … [line cut: " + strconv.FormatInt(total, 10) + " bytes, " + strconv.FormatInt(total-int64(kept), 10) + " dropped]"
}

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

// SourceName is a source and a name as lists of names and their counts
// print them: "Game/Boot", and "Game (no name)" for the records of Game
// without a name, which "Game/" would leave the reader to guess and "Game"
// would pass off as the whole source.
func SourceName(source, name string) string {
	if name == "" {
		return source + " (no name)"
	}
	return source + "/" + name
}

// OneLine keeps s on one line: each newline, carriage return and tab
// becomes a space, so that every other byte stays where it was (a search
// fragment's marks, a text's length). With squeeze, every run of white
// space becomes one space and the ends are trimmed instead, for a message
// printed in one column of a table.
func OneLine(s string, squeeze bool) string {
	if squeeze {
		return strings.Join(strings.Fields(s), " ")
	}
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}
