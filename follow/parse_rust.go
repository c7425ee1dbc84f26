package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// rustParser reads the lines of tracing-subscriber's fmt layer, the way
// Bevy and most Rust games log, and hands every other line to the generic
// parser (which reads Rust's panics, env_logger's "[... INFO target] msg"
// and println! output):
//
//	2024-05-01T12:34:56.123456Z  INFO bevy_render::renderer: AdapterInfo { ... }
//	2024-05-01T12:34:56.123456Z  WARN frame{n=1}:system{name="move"}: game::ai: lost target id=3
//	2024-05-01T12:34:56.123456Z ERROR main ThreadId(01) game: src/main.rs:9: failed code=42
//
// The level is the level word (TRACE and DEBUG are debug), the name the
// target, the time the timestamp (left out by .without_time(): the
// record's arrival then). The spans and the thread go to Data. The lines
// after it that start no entry are the rest of its message (tracing
// writes a message's line breaks as they are).
type rustParser struct {
	clk  *clock
	g    layer
	e    entry
	held bool // e holds a tracing line
	data object
}

func (p *rustParser) Name() string { return "rust" }

func (p *rustParser) Flush() []Entry { return join(p.takeOwn(nil), p.g.Flush()) }

func (p *rustParser) Line(line string, end int64) []Entry {
	s := trimRight(line)
	var out []Entry
	if p.held {
		if s == "" {
			p.e.blank(end)
			p.e.closed = true
			return nil
		}
		if !p.e.closed && !p.isHeader(s) && appendText(&p.e, s) {
			p.e.end = end
			return nil
		}
		out = p.takeOwn(nil)
	}
	if t, ok := parseTracing(s, p.clk); ok {
		out = p.g.take(out)
		p.held = true
		p.e.start(t.text, t.level, end)
		p.e.rec.Time = t.t
		p.e.setName(t.target)
		p.data = object{}
		p.data.str("spans", t.spans)
		p.data.str("thread", t.thread)
		if file, line, text, ok := cutSourceLine(t.text); ok { // .with_file(true).with_line_number(true)
			p.e.rec.Text = text
			p.data.str("srcFile", file)
			p.data.num("srcLine", line)
		}
		return out
	}
	return join(out, p.g.Line(line, end))
}

func (p *rustParser) take(out []Entry) []Entry { return p.g.take(p.takeOwn(out)) }

func (p *rustParser) isHeader(s string) bool {
	_, ok := parseTracing(s, p.clk)
	return ok || p.g.isHeader(s)
}

// takeOwn completes the held tracing line, if any.
func (p *rustParser) takeOwn(out []Entry) []Entry {
	if !p.held {
		return out
	}
	p.held = false
	p.e.rec.Data = p.data.bytes()
	return p.e.take(out)
}

// tracingLine is what a line of tracing-subscriber's fmt layer says.
type tracingLine struct {
	t                           time.Time
	level                       oplog.Level
	thread, spans, target, text string
}

// parseTracing reads "2024-05-01T12:34:56.123456Z  INFO spans: target: msg"
// (the time may be left out, the thread's name and ThreadId(N) may come
// before the spans).
func parseTracing(s string, clk *clock) (tracingLine, bool) {
	var t tracingLine
	rest := s
	if len(s) > 20 && isDigit(s[0]) {
		if s[10] != 'T' {
			return t, false
		}
		ts, n, ok := parseISO(s, clk.location())
		if !ok || n >= len(s) || s[n] != ' ' {
			return t, false
		}
		t.t, rest = ts, s[n:]
	}
	rest = strings.TrimLeft(rest, " ")
	word, after, ok := strings.Cut(rest, " ")
	if !ok {
		return t, false
	}
	switch word {
	case "TRACE", "DEBUG":
		t.level = oplog.LevelDebug
	case "INFO":
		t.level = oplog.LevelInfo
	case "WARN":
		t.level = oplog.LevelWarn
	case "ERROR":
		t.level = oplog.LevelError
	default:
		return t, false
	}
	if i := strings.Index(after, "ThreadId("); i >= 0 && !strings.Contains(after[:i], ": ") {
		if j := strings.IndexByte(after[i:], ')'); j > 0 && i+j+1 < len(after) && after[i+j+1] == ' ' {
			t.thread, after = strings.TrimSpace(after[:i]), after[i+j+2:]
		}
	}
	t.spans, t.target, t.text = cutTarget(after)
	return t, t.target != ""
}

// cutTarget splits "span{a=1}:span2: target: message" into the span
// chain, the target (a Rust path) and the message.
func cutTarget(s string) (spans, target, text string) {
	k := nextColon(s, 0)
	if k < 0 {
		return "", "", s
	}
	if isRustPath(s[:k]) {
		return "", s[:k], s[k+2:]
	}
	m := nextColon(s, k+2)
	if m < 0 || !isRustPath(s[k+2:m]) {
		return "", "", s
	}
	return s[:k], s[k+2 : m], s[m+2:]
}

// nextColon returns the index of the first ": " at or after i outside
// braces and the quoted strings in them, or -1.
func nextColon(s string, i int) int {
	depth, quoted := 0, false
	for ; i+1 < len(s); i++ {
		c := s[i]
		switch {
		case quoted:
			if c == '\\' {
				i++
			} else if c == '"' {
				quoted = false
			}
		case c == '"' && depth > 0:
			quoted = true
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case c == ':' && s[i+1] == ' ' && depth == 0:
			return i
		}
	}
	return -1
}

// isRustPath reports a module path: "bevy_render::renderer", "game".
func isRustPath(s string) bool {
	if s == "" || s[0] == ':' || s[len(s)-1] == ':' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == ':' || c == '-' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// cutSourceLine cuts the "src/main.rs:23: " tracing puts before a message
// when it is asked for the file and line.
func cutSourceLine(s string) (file string, line int, text string, ok bool) {
	i := strings.Index(s, ".rs:")
	if i <= 0 || strings.ContainsAny(s[:i], " \t") {
		return "", 0, s, false
	}
	rest := s[i+4:]
	j := strings.Index(rest, ": ")
	if j <= 0 {
		return "", 0, s, false
	}
	n, ok := atoi(rest[:j])
	if !ok {
		return "", 0, s, false
	}
	return s[:i+3], n, rest[j+2:], true
}
