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
// "   At: res://player.gd:12." lines are read too (its console's "ERROR:
// f: msg" has the function first, its file logger's "**ERROR**: msg" the
// message alone), and one unindented line
// between a message and its "   at:" (a hint, a message's second line)
// joins the message. A crash dump ("handle_crash: Program crashed with
// signal 11" or "CrashHandlerException: ...") is one fatal record that ends
// at its end marker ("-- END OF BACKTRACE --", 4.5's "-- END OF C++
// BACKTRACE --" and the "====" line after it, with the script backtraces
// that follow it), or at a run banner ("Godot Engine v4.x") or an entry's
// label if the dump was cut short. C# exceptions ("ERROR: System.X: ..."
// with "   at ..." frames, or printed by the game: "Error: ...",
// "[ERROR] ...", "Unhandled Exception:") are one error record with the
// frames as stack. Every other line is an info record: Godot prints no
// levels or times for print() output.
//
// Stack lines are written in the shape the crash grouping reads as frames:
// "at: f (file:line)" and backtrace lines "[0] f (file:line)" become
// "at f (file:line)", a C++ frame's arguments and return type are dropped
// and an unsymbolised one becomes "at module+offset", so that one error
// seen again has one signature.
type godotParser struct {
	e       entry
	errs    bool // the held entry is an error or warning: indented lines join it
	dump    int8 // the held entry is a crash dump: dumpIn, or dumpEnded after its end marker
	exc     bool // the held entry is "Unhandled Exception:": the next line is its exception
	hint    string
	hintEnd int64
	hasHint bool // hint is an unindented line held after an error without stack
	fn      string
	src     string
	srcLine int
	engine  string
}

const (
	dumpIn    = 1
	dumpEnded = 2
)

func (p *godotParser) Name() string { return "godot" }

func (p *godotParser) Flush() []Entry { return p.take(nil) }

func (p *godotParser) Line(line string, end int64) []Entry {
	s := trimRight(line)
	if s == "" || isRule(s) {
		if p.hasHint {
			return p.newEntry(s, end)
		}
		p.e.blank(end)
		if p.dump == 0 {
			p.e.closed = true
		}
		return nil
	}
	if p.dump != 0 && p.e.held {
		if out, ok := p.dumpLine(s, end); ok {
			return out
		}
		return p.newEntry(s, end)
	}
	if p.e.held && !p.e.closed {
		if p.hasHint {
			if !indented(s) || !isStackStart(trimLeft(s)) {
				return p.newEntry(s, end)
			}
			p.e.rec.Text = oplog.ClipText(p.e.rec.Text + "\n" + p.hint)
			p.hasHint = false
		}
		if out, ok := p.continuation(s, end); ok {
			return out
		}
	}
	return p.newEntry(s, end)
}

// continuation adds s to the held entry when it continues it.
func (p *godotParser) continuation(s string, end int64) ([]Entry, bool) {
	switch {
	case p.exc: // "Unhandled Exception:" then "System.X: message"
		p.exc = false
		return p.add(s, end), true
	case p.errs && indented(s):
		return p.add(p.frame(trimLeft(s)), end), true
	case indented(s) && isManagedFrame(trimLeft(s)):
		// print()ed C# or Java: "Error: ..." and its "   at ..." frames.
		if p.e.lines == 0 && p.e.rec.Level < oplog.LevelError && looksLikeException(p.e.rec.Text) {
			p.e.rec.Level = oplog.LevelError
		}
		return p.add(trimLeft(s), end), true
	case p.errs && p.e.rec.Level >= oplog.LevelError && (p.e.lines > 0 || looksLikeException(p.e.rec.Text)) && strings.HasPrefix(s, "ERROR: "):
		// The editor's Output panel labels every line: "ERROR:    at X.Y()".
		if rest, ok := strings.CutPrefix(s, "ERROR: "); ok && indented(rest) && isManagedFrame(trimLeft(rest)) {
			return p.add(trimLeft(rest), end), true
		}
	case p.errs && p.e.lines == 0 && !isGodotHeader(s):
		p.hint, p.hintEnd, p.hasHint = s, end, true
		return nil, true
	}
	return nil, false
}

// newEntry completes the held entry (and a held hint line) and starts one with s.
func (p *godotParser) newEntry(s string, end int64) []Entry {
	out := p.take(nil)
	if s == "" || isRule(s) {
		return out
	}
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
	p.errs, p.dump, p.exc, p.fn, p.src, p.srcLine, p.engine = false, 0, false, "", "", -1, ""
	label, msg, _ := godotLabel(s)
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
		p.dump = dumpIn
	default:
		p.e.start(s, printLevel(s), end)
		p.exc = s == "Unhandled Exception:" || s == "Unhandled exception."
		if p.exc {
			p.e.rec.Level = oplog.LevelError
		}
		return
	}
	p.errs = true
	// Godot 3's console starts the message with the function: "get_node:
	// Node not found". Its file logger ("**ERROR**: msg") writes the
	// message alone, and the function on the "At:" line.
	fileLogger := strings.HasPrefix(strings.TrimPrefix(s, "USER "), "**")
	if f, _, ok := strings.Cut(msg, ": "); ok && !fileLogger && !strings.ContainsAny(f, " \t") && !strings.Contains(f, ".") {
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
			fn := cppName(rest[:i])
			p.where(fn, rest[i+2:len(rest)-1])
			return "at " + fn + rest[i:]
		}
		return "at " + rest
	case strings.HasPrefix(t, "At: "): // Godot 3: "At: file:line." or "At: file:line:f() - msg"
		if p.e.lines == 0 && p.fn != "" {
			// The console's "ERROR: f: msg": the text is the message, as
			// the file logger writes it ("**ERROR**: msg").
			p.e.rec.Text = strings.TrimPrefix(p.e.rec.Text, p.fn+": ")
		}
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
			return "at " + scriptFrame(t[i+2:])
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
	p.dump, p.exc = 0, false
	out = p.e.take(out)
	if p.hasHint {
		p.hasHint = false
		out = append(out, Entry{Record: oplog.Record{Kind: oplog.KindLine, Level: printLevel(p.hint),
			Text: oplog.ClipText(p.hint)}, End: p.hintEnd})
	}
	return out
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
