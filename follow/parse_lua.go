package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// luaParser reads the uncaught errors of Lua engines, LÖVE's error
// handler's and the standalone interpreters', and hands every other line
// to the layer below it (newGeneric: Rust's panics, then genericParser,
// which reads a game's own "[INFO] ..." and "WARNING: ..." prints,
// timestamps, and tracebacks under any message).
//
//	Error: main.lua:79: attempt to index local 'player' (a nil value)   (LÖVE)
//	stack traceback:
//		[love "boot.lua"]:345: in function '__index'
//		main.lua:79: in function 'update'
//		[C]: in function 'xpcall'
//
//	lua5.1: main.lua:3: attempt to index local 'player' (a nil value)   (lua, luajit)
//	stack traceback:
//		main.lua:3: in function 'update'
//		[C]: ?
//
// An uncaught error, "Error: " or "lua: " with the lines of its message
// (LÖVE puts a thread's error and a bad game path's hint on lines of their
// own) and the traceback after it, is one fatal record: the game stopped
// there (LÖVE shows its error screen until it is closed). The message
// is the text, without the prefix, the first location of the game's in
// it ("main.lua:79") goes to Data as srcFile and srcLine, and the
// traceback, every "stack traceback:" block of it, is the stack. An
// "Error: " line that no traceback follows is what the generic parser
// makes of it; an interpreter's ("lua5.1: (error object is not a
// string)", which Lua 5.1 and LuaJIT print without a traceback for an
// error that is no string) is fatal all the same: the interpreter prints
// it only as it ends.
type luaParser struct {
	name string // what Name returns: "generic"
	g    layer
	e    entry
	held bool     // e holds an uncaught error
	tb   bool     // its traceback began
	lua  bool     // it is an interpreter's ("lua5.1: …"), not LÖVE's "Error: "
	msg  []string // lines after its first, before a traceback
	ends []int64
}

// maxLuaMessageLines bounds the lines of an error's message held before
// its traceback: past them it was no uncaught error, unless they are the
// places require looked in (searcherLine), up to maxSearcherLines.
const (
	maxLuaMessageLines = 8
	maxSearcherLines   = 64
)

// searcherLine reports a line of require's error, a place it looked for
// the module: "\tno field package.preload['lib.camera']", "\tno file
// './lib/camera.lua'", LÖVE's "\tno 'lib/camera' in LOVE game directories.".
func searcherLine(s string) bool { return strings.HasPrefix(s, "\tno ") }

func (p *luaParser) Name() string { return p.name }

func (p *luaParser) take(out []Entry) []Entry { return p.g.take(p.release(out)) }

func (p *luaParser) isHeader(s string) bool {
	_, ok := cutLuaError(s)
	return ok || p.g.isHeader(s)
}

func (p *luaParser) Flush() []Entry {
	out := p.release(nil)
	return join(out, p.g.Flush())
}

func (p *luaParser) Line(line string, end int64) []Entry {
	s := trimRight(line)
	var out []Entry
	if p.held {
		if p.continues(s, end) {
			return nil
		}
		out = p.release(nil)
	}
	if msg, ok := cutLuaError(s); ok {
		out = p.g.take(out)
		p.held, p.tb, p.msg, p.ends = true, false, p.msg[:0], p.ends[:0]
		p.lua = !strings.HasPrefix(s, "Error: ")
		p.e.start(msg, oplog.LevelError, end)
		return out
	}
	return join(out, p.g.Line(line, end))
}

// continues adds s to the held error when it goes on with it.
func (p *luaParser) continues(s string, end int64) bool {
	if strings.TrimSpace(s) == "stack traceback:" {
		if !p.tb {
			p.tb = true
			p.joinMessage()
		}
		return p.e.add(strings.TrimSpace(s), end)
	}
	if p.tb {
		// Tab-indented, or space-indented as a terminal's or a web page's
		// copy of it has it: a frame.
		if strings.HasPrefix(s, "  ") && !strings.HasPrefix(trimLeft(s), "\t") {
			s = "\t" + trimLeft(s)
		}
		return s != "" && s[0] == '\t' && p.e.add(s, end)
	}
	if s != "" && (len(p.msg) >= maxLuaMessageLines && !searcherLine(s) || len(p.msg) >= maxSearcherLines || p.g.isHeader(s)) {
		return false
	}
	p.msg, p.ends = append(p.msg, s), append(p.ends, end)
	return true
}

// joinMessage makes the lines held before the traceback part of the
// message, blank ones left out, and the error fatal.
func (p *luaParser) joinMessage() {
	text := p.e.rec.Text
	for _, l := range p.msg {
		if l != "" {
			text += "\n" + l
		}
	}
	p.e.rec.Text = oplog.ClipText(text)
	if len(p.ends) > 0 {
		p.e.end = p.ends[len(p.ends)-1]
	}
	p.msg, p.ends = p.msg[:0], p.ends[:0]
	p.e.rec.Level = oplog.LevelFatal
}

// release completes the held error: with its traceback, or, when none
// came, as the generic parser reads its lines.
func (p *luaParser) release(out []Entry) []Entry {
	if !p.held {
		return out
	}
	p.held = false
	if !p.tb && p.lua {
		p.e.rec.Level = oplog.LevelFatal
		out = p.e.take(out)
		for i, l := range p.msg {
			out = append(out, p.g.Line(l, p.ends[i])...)
		}
		p.msg, p.ends = p.msg[:0], p.ends[:0]
		return out
	}
	if p.tb {
		var o object
		if file, line, ok := luaLocationIn(p.e.rec.Text); ok {
			o.str("srcFile", file)
			o.num("srcLine", line)
		}
		p.e.rec.Data = o.bytes()
		return p.e.take(out)
	}
	first := "Error: " + p.e.rec.Text
	out = append(out, p.g.Line(first, p.e.end)...)
	p.e.held = false
	for i, l := range p.msg {
		out = append(out, p.g.Line(l, p.ends[i])...)
	}
	p.msg, p.ends = p.msg[:0], p.ends[:0]
	return out
}

// cutLuaError reads the first line of an uncaught Lua error: LÖVE's
// "Error: msg", an interpreter's "lua: msg", "lua5.1: msg", "luajit: msg",
// or Luanti's "AsyncErr: ServerThread::run Lua: Runtime error from mod …"
// (the line whole).
func cutLuaError(s string) (string, bool) {
	if msg, ok := strings.CutPrefix(s, "Error: "); ok {
		return msg, true
	}
	if strings.HasPrefix(s, "AsyncErr: ") && strings.Contains(s, "Runtime error from mod '") {
		return s, true // Luanti's error that stopped the server, as its dialog and a copy of it show it
	}
	if !strings.HasPrefix(s, "lua") {
		return "", false
	}
	prog, msg, ok := strings.Cut(s, ": ")
	if !ok {
		return "", false
	}
	if prog == "luajit" {
		return msg, true
	}
	for i := 3; i < len(prog); i++ {
		if !isDigit(prog[i]) && prog[i] != '.' {
			return "", false
		}
	}
	return msg, true
}

// luaLocationIn finds the first "file.lua:N:" of the game's in a Lua error
// message, skipping the engine's ("[love "boot.lua"]:276:", "[C]:").
func luaLocationIn(msg string) (string, int, bool) {
	for rest := msg; rest != ""; {
		i := strings.Index(rest, ".lua:")
		if i < 0 {
			return "", 0, false
		}
		start := strings.LastIndexAny(rest[:i], " \t\n'\"(") + 1
		file := rest[start : i+4]
		num := rest[i+5:]
		j := 0
		for j < len(num) && isDigit(num[j]) {
			j++
		}
		rest = num[j:]
		if n, ok := atoi(num[:j]); ok && !strings.HasPrefix(file, "[") {
			return file, n, true
		}
	}
	return "", 0, false
}
