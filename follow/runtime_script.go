package follow

import (
	"strings"
	"time"
)

// Lua's uncaught errors and Rust's panics beneath a logger's prefix. The
// generic family of parsers reads them where a game prints them bare
// (luaParser, panicParser); under a prefix ("[WARNING] stderr: thread
// 'main' panicked at ...") the runtimes' layer reads them with the same two
// parsers, fed each line past its prefix, over a sink that hands back the
// lines they do not take, as they came, to the engine's parser.

// scripted is the layer's own Lua and Rust parsers.
type scripted struct {
	p   *luaParser
	on  bool             // a report is being read
	raw map[int64]string // the lines fed, as they came, by their end
	t   time.Time        // the time the prefix of the report's first line gives
}

// handed is a line the parsers handed on: not theirs.
type handed struct {
	line string
	end  int64
}

// sink is the layer beneath the scripted parsers: it keeps what they hand
// on, and says where an entry starts as the generic parser would.
type sink struct {
	g    genericParser
	back []handed
}

func (s *sink) Line(line string, end int64) []Entry {
	s.back = append(s.back, handed{line, end})
	return nil
}

func (s *sink) Flush() []Entry            { return nil }
func (s *sink) Name() string              { return "" }
func (s *sink) take(out []Entry) []Entry  { return out }
func (s *sink) isHeader(line string) bool { return s.g.isHeader(line) }

// newScripted returns Lua's parser over Rust's over a sink.
func newScripted() *scripted {
	c := &clock{date: time.Now, now: time.Now}
	return &scripted{p: &luaParser{name: "generic", g: &panicParser{g: &sink{g: genericParser{clk: c}}}},
		raw: map[int64]string{}}
}

// holding reports whether the scripted parsers hold a report.
func (sc *scripted) holding() bool {
	pp := sc.p.g.(*panicParser)
	return sc.p.held || pp.held || len(pp.waiting) > 0
}

// scriptStart reports a Lua error or a Rust panic's first line, past its
// prefix: "Error: main.lua:79: ...", "lua5.1: main.lua:3: ...", "thread
// 'main' panicked at ...".
func scriptStart(t string) bool {
	switch t[0] {
	case 't':
		_, _, ok := cutPanicHeader(t)
		return ok
	case 'E', 'l':
		msg, ok := cutLuaError(t)
		return ok && strings.Contains(msg, ".lua:") // not JavaScript's "Error: ..." with its frames
	}
	return false
}

// script starts reading a Lua error or a Rust panic beneath a prefix: line
// as it came, body past its prefix.
func (l *runtimeLayer) script(out []Entry, line, body string, end int64) []Entry {
	if l.scr == nil {
		l.scr = newScripted()
	}
	out = join(out, l.p.Flush())
	l.scr.on = true
	l.scr.raw[end] = line
	l.scr.t = l.lineTime(line)
	return join(out, l.scr.stamped(l.scr.p.Line(body, end)))
}

// stamped gives the reports in out without a time of their own the time
// of their first line's prefix.
func (sc *scripted) stamped(out []Entry) []Entry {
	for i := range out {
		if out[i].Record.Time.IsZero() {
			out[i].Record.Time = sc.t
		}
	}
	return out
}

// scriptLine feeds a line to the scripted parsers while they read a
// report, and hands what they do not take to the engine's parser.
func (l *runtimeLayer) scriptLine(line string, end int64) []Entry {
	sc := l.scr
	s := pastPrefix(line, true)
	sc.raw[end] = line
	out := sc.stamped(sc.p.Line(s, end))
	return l.scriptBack(out, end)
}

// scriptBack hands the lines the scripted parsers handed on to the
// engine's parser as they came (cur, the line just fed, as any line: it
// may start a report of its own), and ends the scripted reading once they
// hold nothing.
func (l *runtimeLayer) scriptBack(out []Entry, cur int64) []Entry {
	sc := l.scr
	s := sc.p.g.(*panicParser).g.(*sink)
	var back []handed
	if len(s.back) > 0 { // a copy: begin may start another report, which the sink hands back to
		back = append(back, s.back...)
		s.back = s.back[:0]
	}
	if !sc.holding() {
		sc.on = false
	}
	for _, h := range back {
		raw, ok := sc.raw[h.end]
		if !ok {
			raw = h.line
		}
		delete(sc.raw, h.end)
		if h.end == cur {
			out = l.begin(out, raw, h.end) // not the report's: any line, which may start one
			continue
		}
		out = join(out, l.below(raw, h.end, prefixFacts{}))
	}
	if !sc.on {
		clear(sc.raw)
	}
	return out
}

// scriptFlush completes what the scripted parsers hold.
func (l *runtimeLayer) scriptFlush(out []Entry) []Entry {
	out = join(out, l.scr.stamped(l.scr.p.Flush()))
	l.scr.on = false
	return l.scriptBack(out, -1)
}

// luaTraceback heads the frames of a Lua error's traceback.
const luaTraceback = "stack traceback:"

// luaErrorLine reports what may be a Lua error's message, as
// debug.traceback and engines print it before the traceback:
// "main.lua:10: attempt to index global 'foo' (a nil value)",
// "[string \"level\"]:3: …". It starts a report (rtLua) only when
// "stack traceback:" follows: beneath a prefix on every line (Solar2D's
// and Playdate's consoles, a timestamping wrapper) the generic parser
// would read each line as an entry of its own.
func luaErrorLine(t string) bool {
	// Asked of most lines beneath a prefix: only up to the first ':' that
	// a line number follows is read.
	i := strings.IndexByte(t, ':')
	if i == 1 && len(t) > 2 && (t[2] == '\\' || t[2] == '/') { // a drive: "C:\\game\\main.lua:10: …"
		if k := strings.IndexByte(t[2:], ':'); k >= 0 {
			i = 2 + k
		}
	}
	if strings.HasPrefix(t, `[string "`) {
		i = strings.Index(t, `"]:`) + 2
	}
	if i < 1 || i+2 >= len(t) || !isDigit(t[i+1]) {
		return false
	}
	j := i + 1
	for j < len(t) && isDigit(t[j]) {
		j++
	}
	if !strings.HasPrefix(t[j:], ": ") {
		return false
	}
	file := strings.TrimPrefix(t[:i], "...") // Lua cuts a long path: ".../mods/quests/init.lua"
	return file != "" && (file[0] == '[' || strings.IndexByte(file, '.') > 0 && strings.IndexByte(file, ' ') < 0)
}

// luaTrace reads a Lua traceback's lines: "stack traceback:" (Lua prints
// one for each coroutine a traceback goes through) and the frames indented
// beneath it.
func (r *report) luaTrace(s, t string, end int64) bool {
	switch {
	case t == luaTraceback:
		return r.add(t, end)
	case r.e.lines > 0 && r.indented(s):
		return r.add("\t"+t, end)
	}
	return false
}
