package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// godotParser reads Godot's log (user://logs/godot.log, or its captured
// output):
//
//	SCRIPT ERROR: Invalid get index 'position' (on base: 'null instance').
//	   at: _process (res://scripts/player.gd:12)
//	   GDScript backtrace (most recent call first):
//	       [0] _process (res://scripts/player.gd:12)
//	ERROR: Node not found: "Sprite" (relative to "/root/Main").
//	   at: get_node (scene/main/node.cpp:1638)
//	WARNING: ...
//
// ERROR, SCRIPT ERROR and SHADER ERROR (also as "USER ...") are errors,
// WARNING a warning, with the message (without its label) as text, "script"
// or "shader" as name, and the indented lines below as stack. Godot 3's
// "   At: res://player.gd:12." lines are read too. A crash dump
// ("handle_crash: Program crashed with signal 11" up to "-- END OF
// BACKTRACE --") is one fatal record. Every other line is an info record:
// Godot prints no levels or times for print() output.
//
// Stack lines are written in the shape the crash grouping reads as frames:
// "at: f (file:line)" and backtrace lines "[0] f (file:line)" become
// "at f (file:line)", so that one error seen again has one signature.
type godotParser struct {
	e       entry
	errs    bool // the held entry is an error or warning: indented lines join it
	raw     bool // the held entry is a crash dump
	fn      string
	src     string
	srcLine int
	engine  string
}

func (p *godotParser) Name() string { return "godot" }

func (p *godotParser) Flush() []Entry { return p.take(nil) }

func (p *godotParser) Line(line string, end int64) []Entry {
	s := trimRight(line)
	if s == "" || isRule(s) {
		p.e.blank(end)
		if !p.raw {
			p.e.closed = true
		}
		return nil
	}
	if p.raw && p.e.held {
		t := trimLeft(s)
		switch {
		case strings.HasPrefix(t, "-- END OF BACKTRACE --"):
			p.raw, p.e.closed = false, true
		case strings.HasPrefix(t, "Engine version: "):
			p.engine = t[len("Engine version: "):]
			p.e.end = end
			return nil
		case strings.HasPrefix(t, "Dumping the backtrace."):
			p.e.end = end
			return nil
		}
		return p.add(p.frame(t), end)
	}
	if p.errs && p.e.held && !p.e.closed && indented(s) {
		return p.add(p.frame(trimLeft(s)), end)
	}
	out := p.take(nil)
	p.begin(s, end)
	return out
}

// add appends a stack line, completing the entry first when it is full.
func (p *godotParser) add(s string, end int64) []Entry {
	if p.e.add(s, end) {
		return nil
	}
	out := p.take(nil)
	p.begin(s, end)
	return out
}

// begin starts an entry with line s.
func (p *godotParser) begin(s string, end int64) {
	p.errs, p.raw, p.fn, p.src, p.srcLine, p.engine = false, false, "", "", -1, ""
	label, msg, _ := strings.Cut(strings.TrimPrefix(s, "USER "), ": ")
	level, name := oplog.LevelInfo, ""
	switch label {
	case "ERROR":
		level = oplog.LevelError
	case "SCRIPT ERROR":
		level, name = oplog.LevelError, "script"
	case "SHADER ERROR":
		level, name = oplog.LevelError, "shader"
	case "WARNING":
		level = oplog.LevelWarn
	case "SCRIPT WARNING":
		level, name = oplog.LevelWarn, "script"
	case "handle_crash", "CrashHandlerException":
		level, name = oplog.LevelFatal, "crash"
		p.raw = true
	default:
		p.e.start(s, oplog.LevelInfo, end)
		return
	}
	p.errs = true
	// Godot 3 starts the message with the function: "get_node: Node not found".
	if f, _, ok := strings.Cut(msg, ": "); ok && !strings.ContainsAny(f, " \t") {
		p.fn = f
	}
	p.e.start(msg, level, end)
	p.e.rec.Name = name
}

// frame rewrites a stack line of Godot's into a frame crash grouping reads.
func (p *godotParser) frame(t string) string {
	switch {
	case strings.HasPrefix(t, "at: "): // Godot 4: "at: f (file:line)"
		rest := t[len("at: "):]
		if i := strings.LastIndex(rest, " ("); i > 0 && strings.HasSuffix(rest, ")") {
			p.where(rest[:i], rest[i+2:len(rest)-1])
		}
		return "at " + rest
	case strings.HasPrefix(t, "At: "): // Godot 3: "At: file:line." or "At: file:line:f() - msg"
		loc := t[len("At: "):]
		if i := strings.Index(loc, " - "); i >= 0 {
			loc = loc[:i]
		}
		loc = strings.TrimSuffix(loc, ".")
		fn := p.fn
		if strings.HasSuffix(loc, "()") {
			if i := strings.LastIndexByte(loc, ':'); i > 0 {
				fn, loc = loc[i+1:len(loc)-2], loc[:i]
			}
		}
		p.where(fn, loc)
		if fn == "" {
			return "at " + loc
		}
		return "at " + fn + " (" + loc + ")"
	case len(t) > 3 && t[0] == '[' && isDigit(t[1]): // a backtrace's "[0] f (file:line)"
		if i := strings.IndexByte(t, ']'); i > 0 && i+2 < len(t) && t[i+1] == ' ' {
			return "at " + t[i+2:]
		}
	}
	return t
}

// where notes the first location of the entry for Data.
func (p *godotParser) where(fn, loc string) {
	if p.src != "" {
		return
	}
	i := strings.LastIndexByte(loc, ':')
	if i <= 0 {
		return
	}
	n, ok := atoi(loc[i+1:])
	if !ok {
		return
	}
	p.src, p.srcLine, p.fn = loc[:i], n, fn
}

func (p *godotParser) take(out []Entry) []Entry {
	if !p.e.held {
		return out
	}
	if p.src != "" || p.engine != "" {
		var o object
		o.str("srcFile", p.src)
		if p.src != "" {
			o.num("srcLine", p.srcLine)
		}
		o.str("function", p.fn)
		o.str("engineVersion", p.engine)
		p.e.rec.Data = o.bytes()
	}
	p.raw = false
	return p.e.take(out)
}

// isRule reports a line of ten or more '=' that frames a crash dump.
func isRule(s string) bool {
	if len(s) < 10 || s[0] != '=' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}
