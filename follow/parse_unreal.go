package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// unrealParser reads Unreal Engine 4 and 5 logs (Saved/Logs/*.log):
//
//	[2019.05.03-19.02.32:939][  0]LogWindows: Error: === Critical error: ===
//
// a time (UTC, as Unreal writes it by default) and the engine's frame
// number, then the category (the record's name), an optional verbosity
// (Fatal, Error, Warning, Display, Log, Verbose, VeryVerbose; none is Log)
// and the message. The lines before the timestamps start ("LogInit: ...")
// read the same way without a time. A line without a category ("Script
// Stack (1 frames):") continues the entry before it.
//
// A block opened by "=== Critical error: ===" (or "=== Handled ensure:
// ===") takes the lines of its category and verbosity that follow — the
// assertion or exception, the "[Callstack] 0x... Module!Func() [file:line]"
// frames — and lines without a category (macOS and Linux frames): one
// record whose text is the block's first message, whose stack is the
// block, fatal for a critical error.
type unrealParser struct {
	e        entry
	block    bool   // the held entry is a "=== ... ===" block
	titled   bool   // the block's text is its first message
	blockCat string // the block's category and verbosity
	blockVb  string
}

// unrealLine is one line read.
type unrealLine struct {
	t       time.Time
	frame   int // -1 when the line has no [date][frame] prefix
	cat, vb string
	level   oplog.Level
	text    string // the message after category and verbosity, or the line
}

func (p *unrealParser) Name() string { return "unreal" }

func (p *unrealParser) Flush() []Entry { return p.e.take(nil) }

func (p *unrealParser) Line(line string, end int64) []Entry {
	s := trimRight(strings.TrimPrefix(line, "\ufeff"))
	if s == "" {
		p.e.blank(end)
		return nil
	}
	l := parseUnrealLine(s)
	if p.e.held && p.joins(&l) {
		if p.add(&l, s, end) {
			return nil
		}
	}
	out := p.e.take(nil)
	p.begin(&l, end)
	return out
}

// joins reports whether l continues the held entry.
func (p *unrealParser) joins(l *unrealLine) bool {
	if p.block {
		if l.cat == "" || l.frame < 0 && p.e.rec.Data != nil {
			return true // once stamps start, a line without one is part of the message
		}
		return l.cat == p.blockCat && l.vb == p.blockVb
	}
	return l.cat == "" && l.frame < 0
}

// add appends l to the held entry's stack; a block's first message becomes
// its text.
func (p *unrealParser) add(l *unrealLine, s string, end int64) bool {
	msg := s
	if p.block && l.cat == p.blockCat {
		msg = l.text
	}
	if msg == "" {
		p.e.end = end // "LogWindows: Error: " between a block's parts
		return true
	}
	if p.e.rec.Text == "" && !p.block {
		p.e.rec.Text = oplog.ClipText(msg) // "LogOutputDevice: Warning: " then the message
		p.e.end = end
		return true
	}
	if !p.e.add(msg, end) {
		return false
	}
	switch {
	case p.block && !p.titled:
		p.titled = true
		p.e.rec.Text = oplog.ClipText(msg)
	case p.block && p.e.rec.Text == "Fatal error!" && strings.HasPrefix(msg, "Unhandled Exception: "):
		// A crash's headline, what it was on the next line:
		// "Unhandled Exception: EXCEPTION_ACCESS_VIOLATION reading address …".
		p.e.rec.Text = oplog.ClipText(msg)
	case p.block && p.e.rec.Text == fatalAt(p.e.rec.Text):
		// "Fatal error: [File:…] [Line: 1137]" names where; its message
		// comes on the next line.
		p.e.rec.Text = oplog.ClipText("Fatal error: " + msg)
	}
	return true
}

// fatalAt is s when it is a fatal error's line that names only its file
// and line ("Fatal error: [File:X.cpp] [Line: 1137]"), else "".
func fatalAt(s string) string {
	rest, ok := strings.CutPrefix(s, "Fatal error: [File:")
	if i := strings.Index(rest, "] [Line: "); ok && i >= 0 && strings.HasSuffix(strings.TrimSpace(rest), "]") {
		return s
	}
	return ""
}

// begin starts an entry with l.
func (p *unrealParser) begin(l *unrealLine, end int64) {
	p.e.start(l.text, l.level, end)
	p.e.rec.Time = l.t
	p.e.setName(l.cat)
	if l.frame >= 0 {
		var o object
		o.num("frame", l.frame)
		p.e.rec.Data = o.bytes()
	}
	p.block, p.titled = false, false
	if l.cat != "" && len(l.text) > 8 && strings.HasPrefix(l.text, "=== ") && strings.HasSuffix(l.text, " ===") {
		p.block, p.blockCat, p.blockVb = true, l.cat, l.vb
		if strings.Contains(l.text, "Critical error") {
			p.e.rec.Level = oplog.LevelFatal
		}
	}
}

// parseUnrealLine reads the prefix, category and verbosity of s.
func parseUnrealLine(s string) unrealLine {
	l := unrealLine{frame: -1, level: oplog.LevelInfo, text: s}
	rest := s
	if t, frame, n, ok := unrealStamp(s); ok {
		l.t, l.frame, rest = t, frame, s[n:]
		l.text = rest
	}
	cat, msg, ok := strings.Cut(rest, ":")
	if !ok || !unrealCategory(cat) || msg != "" && msg[0] != ' ' && !verbosityFirst(msg) {
		return l
	}
	l.cat, l.text = cat, strings.TrimPrefix(msg, " ")
	if vb, after, ok := strings.Cut(l.text, ":"); ok && (after == "" || after[0] == ' ') {
		if lv, ok := unrealVerbosity(vb); ok {
			l.vb, l.level, l.text = vb, lv, strings.TrimPrefix(after, " ")
		}
	}
	return l
}

// unrealStamp reads "[2019.05.03-19.02.32:939][  0]" at the start of s and
// returns the time, the frame and the bytes read.
func unrealStamp(s string) (time.Time, int, int, bool) {
	// [YYYY.MM.DD-HH.MM.SS:mmm][fff]
	if len(s) < 30 || s[0] != '[' || s[5] != '.' || s[8] != '.' || s[11] != '-' || s[14] != '.' || s[17] != '.' ||
		s[20] != ':' || s[24] != ']' || s[25] != '[' {
		return time.Time{}, 0, 0, false
	}
	y, ok1 := four(s[1:])
	mo, ok2 := two(s, 6)
	d, ok3 := two(s, 9)
	h, ok4 := two(s, 12)
	mi, ok5 := two(s, 15)
	sec, ok6 := two(s, 18)
	msA, ok7 := two(s, 21)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || !ok7 || !isDigit(s[23]) ||
		mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 {
		return time.Time{}, 0, 0, false
	}
	ms := msA*10 + int(s[23]-'0')
	close := strings.IndexByte(s[26:], ']')
	if close < 0 {
		return time.Time{}, 0, 0, false
	}
	frame, ok := atoi(strings.TrimLeft(s[26:26+close], " "))
	if !ok {
		return time.Time{}, 0, 0, false
	}
	var t time.Time
	if y >= minYear && y <= maxYear {
		t = time.Date(y, time.Month(mo), d, h, mi, min(sec, 59), ms*1e6, time.UTC)
	}
	return t, frame, 27 + close, true
}

// unrealCategory reports whether s is a log category: a name of letters,
// digits and underscores ("LogWindows", "AssetCheck").
func unrealCategory(s string) bool {
	if s == "" || len(s) > oplog.MaxLabelBytes || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_') {
			return false
		}
	}
	return true
}

// verbosityFirst reports whether msg, after a category's colon with no
// space, begins with a verbosity and its colon: some games' builds write
// "LogWindows:Error: === Critical error: ===".
func verbosityFirst(msg string) bool {
	vb, _, ok := strings.Cut(msg, ":")
	_, isVb := unrealVerbosity(vb)
	return ok && isVb
}

// unrealVerbosity reads ELogVerbosity's names as they are written.
func unrealVerbosity(s string) (oplog.Level, bool) {
	switch s {
	case "Fatal":
		return oplog.LevelFatal, true
	case "Error":
		return oplog.LevelError, true
	case "Warning":
		return oplog.LevelWarn, true
	case "Display", "Log":
		return oplog.LevelInfo, true
	case "Verbose", "VeryVerbose":
		return oplog.LevelDebug, true
	}
	return 0, false
}
