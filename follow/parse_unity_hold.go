package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Unity writes a console entry as its message, its stack and a "(Filename:
// ...)" trailer, with nothing to mark where a message of several lines
// starts or ends, between lines of the engine's own that have neither. The
// unity parser therefore holds the lines after an entry that may still be
// part of it ("Parameter name: index" under an exception, the second line
// of a warning, a Player.log report's "Loader exceptions:") as pending, and
// decides when it knows: a frame or the trailer joins them to the entry, a
// new entry's first line, a blank line not followed by the trailer or too
// many lines make them records of their own, as if never held.

const (
	crashEnd       = "========== END OF STACKTRACE" // the end of Windows' "Crash!!!" dump
	maxCrashLines  = 4000                           // lines a "Crash!!!" dump may take without its end
	maxReportLines = 64                             // lines an allocator's report may take without its trailer
	maxPendLines   = 16                             // lines held pending
)

// pendLine is a line held pending.
type pendLine struct {
	s   string
	ts  time.Time
	end int64
}

// trimEnd removes trailing spaces, tabs and carriage returns: Unity
// writes some lines with "\r\r\n".
func trimEnd(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '\r') {
		i--
	}
	return s[:i]
}

// blankLine ends the held entry's stack: only the trailer may follow, or
// the pending lines' trailer.
func (p *unityParser) blankLine(end int64) []Entry {
	p.run = false
	if len(p.pend) > 0 {
		if p.pendEnd == 0 {
			p.pendEnd = end
			return nil
		}
		out := p.split(nil)
		p.e.blank(end)
		p.e.closed = true
		return out
	}
	p.e.blank(end)
	p.e.closed = true
	return nil
}

// rawLine adds s to a dump that runs to its end marker; ok is false when s
// ended it without being taken (the trailer, a new entry) or the dump has
// taken its share of lines.
func (p *unityParser) rawLine(s string, end int64) (out []Entry, ok bool) {
	trailer := p.raw == "(Filename: "
	if trailer && (strings.HasPrefix(s, p.raw) || startsEntry(s)) || p.rawLeft <= 0 {
		p.raw = ""
		return nil, false
	}
	p.rawLeft--
	if !p.e.add(s, end) {
		p.e.end = end // full: the dump's lines are dropped, not made records
	}
	if !trailer && strings.HasPrefix(trimLeft(s), p.raw) {
		p.raw = ""
		p.e.closed = true
	}
	p.run = true
	return nil, true
}

// next handles a line that is not the trailer with nothing pending.
func (p *unityParser) next(s string, ts time.Time, end int64) []Entry {
	if p.e.held && !p.e.closed && p.continues(s) {
		p.run = true
		return p.add(s, end)
	}
	if p.holds(s) {
		p.pend = append(p.pend, pendLine{s, ts, end})
		p.run = true
		return nil
	}
	out := p.take(nil)
	p.begin(s, ts, end)
	return out
}

// pending handles a line that comes after pending ones.
func (p *unityParser) pending(s string, ts time.Time, end int64) []Entry {
	if p.pendEnd == 0 {
		if isStackFrame(s, p.native) {
			if !p.e.closed {
				p.merge()
				return p.next(s, ts, end)
			}
		} else if p.holds(s) {
			p.pend = append(p.pend, pendLine{s, ts, end})
			p.run = true
			return nil
		}
	}
	out := p.split(nil)
	return append(out, p.next(s, ts, end)...)
}

// holds reports whether s may be part of the held entry, to be decided by
// the lines after it.
func (p *unityParser) holds(s string) bool {
	if p.replay || !p.e.held || p.trailer || p.raw != "" || len(p.pend) >= maxPendLines {
		return false
	}
	if s != p.plain { // a line pending asks twice
		if startsEntry(s) {
			return false
		}
		if !indented(s) {
			p.plain = s // begin need not look again
		}
	}
	if p.e.closed {
		// Player.log: an exception's report may go on after a blank line
		// ("Loader exceptions:") up to its trailer.
		return p.frames
	}
	if p.typed && p.e.rec.Level >= oplog.LevelWarn || indented(s) || continuedLine(s) {
		return true
	}
	return p.fresh && len(p.pend) == 0 // a message's second line
}

// merge makes the pending lines part of the held entry: more of its
// message while it has no stack, else more of its stack.
func (p *unityParser) merge() {
	if len(p.pend) == 0 {
		return
	}
	for _, l := range p.pend {
		if p.e.lines == 0 && !p.e.closed {
			p.e.rec.Text = oplog.ClipText(p.e.rec.Text + "\n" + l.s)
			p.e.end = l.end
		} else if !p.e.add(l.s, l.end) {
			p.e.end = l.end
		}
	}
	p.e.end = max(p.e.end, p.pendEnd)
	p.pend, p.pendEnd = p.pend[:0], 0
}

// split makes the pending lines records of their own, read as if they had
// never been held.
func (p *unityParser) split(out []Entry) []Entry {
	if len(p.pend) == 0 {
		return out
	}
	pend, blankEnd := p.pend, p.pendEnd
	p.pend, p.pendEnd = p.pend[:0], 0
	p.replay = true
	for _, l := range pend {
		out = append(out, p.next(l.s, l.ts, l.end)...)
	}
	p.replay = false
	if blankEnd != 0 {
		p.e.blank(blankEnd)
		p.e.closed, p.run = true, false
	}
	return out
}

// startsEntry reports a line that always begins an entry: an exception, a
// compiler's diagnostic, a native crash or error.
func startsEntry(s string) bool {
	if s == "" || indented(s) {
		return false
	}
	return isException(s) || hasException(s) || s == "Crash!!!" || isNativeError(s) ||
		strings.HasPrefix(s, "Caught fatal signal") || strings.HasPrefix(s, "Received signal ") ||
		strings.HasPrefix(s, "Assertion failed") || hasDiagCode(s)
}

// hasDiagCode reports whether s holds "error CS" or "warning CS": one
// scan for the "CS" they share (a capital C is rarer than a space).
func hasDiagCode(s string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], "CS")
		if j < 0 {
			return false
		}
		i += j
		if strings.HasSuffix(s[:i], "error ") || strings.HasSuffix(s[:i], "warning ") {
			return true
		}
		i++
	}
}

// continuedLine reports a line that reads as the rest of a message, not a
// message of its own: a path ("C:\Program Files\...", "/home/..."),
// .NET's "Parameter name: index", a report's "****** Extra Data ******".
func continuedLine(s string) bool {
	c := s[0]
	switch {
	case c == '/',
		len(s) > 2 && s[1] == ':' && (s[2] == '\\' || s[2] == '/'),
		strings.HasPrefix(s, "Parameter name:"), strings.HasPrefix(s, "******"):
		return true
	}
	return false
}

// isStackFrame reports a frame of a managed stack, or of a native one.
func isStackFrame(s string, native bool) bool {
	if isUnityFrame(s) || strings.HasPrefix(trimLeft(s), "at ") {
		return true
	}
	return native && (isNativeFrame(s) || s[0] == '#' && len(s) > 1 && isDigit(s[1]))
}

// hasException reports a .NET exception after a logger's prefix:
// "Exception in Verse.AI.ThinkNode_Priority TryIssueJobPackage:
// System.NullReferenceException: Object reference not set ...".
func hasException(s string) bool {
	if !strings.Contains(s, "Exception") {
		return false
	}
	for i := strings.Index(s, ": "); i >= 0; {
		rest := s[i+2:]
		typ, _, found := strings.Cut(rest, ":")
		if isException(typ) && (found || typ == rest) {
			return true
		}
		j := strings.Index(rest, ": ")
		if j < 0 {
			return false
		}
		i += 2 + j
	}
	return false
}

// nativeErrors begin the engine's error lines that carry no level.
var nativeErrors = [...]string{
	"Could not allocate memory",
	"Invalid OffsetPtr access",
	"The referenced script",
	"Failed to ",
	"Fatal error",
	"d3d11: failed",
}

// isNativeError reports an error of the engine's own.
func isNativeError(s string) bool {
	if s == "" || nativeErrorStart[s[0]] == 0 {
		return false // most lines: one look at the first byte
	}
	for _, e := range nativeErrors {
		if strings.HasPrefix(s, e) {
			return true
		}
	}
	return false
}

// isNativeFrame reports a frame of a Windows native dump:
// "0x00007FF98B3542BB (UnityPlayer) UnityMain".
func isNativeFrame(s string) bool {
	if len(s) < 8 || s[0] != '0' || s[1] != 'x' {
		return false
	}
	i := 2
	for i < len(s) && isHexDigit(s[i]) {
		i++
	}
	return i > 6 && i+1 < len(s) && s[i] == ' ' && s[i+1] == '('
}

// nativeErrorStart marks the first bytes of nativeErrors.
var nativeErrorStart = func() (t [256]byte) {
	for _, e := range nativeErrors {
		t[e[0]] = 1
	}
	return t
}()

func isHexDigit(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
