package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Runtimes: a game's crash is printed by its runtime (CPython, glibc, the
// C++ runtime, a sanitizer, .NET or Mono, the JVM, Node, Go) beneath
// whatever its engine or logger puts in front of each line. runtimeLayer
// reads those reports in front of every engine's parser, beneath any prefix
// (cutPrefix), and makes one record of each: its text the message as the
// runtime prints it, its stack the frames, its level fatal when the report
// says the process ended and error when it cannot (a handled exception, a
// Python traceback, which looks the same printed by traceback.print_exc()).
// Every other line goes to the engine's parser as it came.
//
// A report joins the line before it only when that line announces it: an
// error or warning line (or one ending with ':') that the logger printed
// just before, as Python's logging.exception() and a Java logger's error
// with its throwable do. After an info or debug line, or a line a
// stderr/stdout wrapper made a warning, a report is a record of its own.
// Only reports a logger prints after its own line join one: Python's
// tracebacks and an exception's line with its frames; a report the runtime
// prints as the process dies (an uncaught Java or .NET exception, a
// signal, a sanitizer, a Go panic) is always its own.
type runtimeLayer struct {
	p     Parser
	own   uint32 // the kinds p reads itself (1 << kind)
	r     report
	cand  candidate
	last  prefixFacts // what the prefix of the last line handed to p said of it
	whole wholeReader // p, when it can read a file whole
	ident string      // the program of the system log's line whose escaped lines are read (syslogLines)
	// blank: the last line handed to p was blank past its prefix. A
	// report after a blank line is no logger's trace of the line before
	// it (start).
	blank bool
	scr   *scripted // Lua's and Rust's reports beneath a prefix; nil until one came
	rich  richLines // Python's rich library's rows and boxes, read as the lines they stand for
}

// lineStamper is an engine's parser that reads the time a line's own
// prefix gives: a report that begins beneath that prefix ("2024-05-01
// 10:00:01 [ERROR] Caught signal 11") happened then, not when it was read.
type lineStamper interface {
	lineTime(line string) (time.Time, bool)
}

// lineTime returns the time line's prefix gives, or the zero time.
func (l *runtimeLayer) lineTime(line string) time.Time {
	t, _ := stampOf(l.p, line)
	return t
}

// stampOf asks p, when it is a lineStamper, for the time line's prefix
// gives.
func stampOf(p any, line string) (time.Time, bool) {
	if st, ok := p.(lineStamper); ok {
		return st.lineTime(line)
	}
	return time.Time{}, false
}

// The generic family's layers ask the one beneath.
func (p *luaParser) lineTime(line string) (time.Time, bool)   { return stampOf(p.g, line) }
func (p *panicParser) lineTime(line string) (time.Time, bool) { return stampOf(p.g, line) }
func (p *rustParser) lineTime(line string) (time.Time, bool)  { return stampOf(p.g, line) }

func (p *luaParser) readingWhole() bool   { return readingWhole(p.g) }
func (p *panicParser) readingWhole() bool { return readingWhole(p.g) }

// readingWhole asks p, when it is a wholeReader, whether it reads a file
// whole.
func readingWhole(p any) bool {
	w, ok := p.(wholeReader)
	return ok && w.readingWhole()
}

// withRuntimes puts the runtimes' recognisers in front of p.
func withRuntimes(p Parser) Parser {
	l := &runtimeLayer{p: p}
	l.whole, _ = p.(wholeReader)
	if o, ok := p.(reportOwner); ok {
		for _, k := range o.ownReports() {
			l.own |= 1 << k
		}
	}
	return l
}

// wholeReader is an engine's parser that can be reading a file it makes one
// record of, every line its own (Ren'Py's traceback.txt: its tracebacks
// are that record's).
type wholeReader interface {
	readingWhole() bool
}

// reportOwner is an engine's parser that reads some reports its own way,
// as part of its engine's output: Unity's Mono exceptions and crash dumps,
// Godot's crash handler, a Java logger's throwables in a Log4j layout.
type reportOwner interface {
	ownReports() []rtKind
}

// candidate is a line held until the next shows whether it starts a
// report: an exception's line ("TypeError: ...", "java.lang.X: ..."), which
// frames must follow, or the ruler a sanitizer prints above its report.
type candidate struct {
	held     bool
	kind     rtKind // rtThrown, rtRuler, rtLua, rtGameMaker, rtZig, rtJVM or rtV8
	line     string
	body     string
	prefixed bool
	facts    prefixFacts
	end      int64
	extra    string // a line between an exception's line and its frames
	extraEnd int64
}

func (l *runtimeLayer) Name() string { return l.p.Name() }

func (l *runtimeLayer) Line(line string, end int64) []Entry {
	if i := strings.IndexByte(line, '#'); i > 20 && strings.Contains(line[i:], syslogNewline) && syslogEscaped(line) { // rsyslog's escaped line breaks, after its prefix
		if n, _, _ := syslogPrefix(line); n > 0 {
			return l.syslogLines(line, end)
		}
	}
	if i := strings.Index(line, pyTraceback); i > 0 && line[i-1] != ' ' && line[i-1] != '\t' && len(trimRight(line)) == i+len(pyTraceback) {
		if n, _ := cutPrefix(line); n <= i && strings.TrimSpace(line[n:i]) != "" {
			// A prompt the program printed without a line break ("press
			// enter to start"), then its traceback on the same line of the
			// output; not a logger's prefix ("ERROR:root:"), nor what ends
			// in a space (a prefix, an exception group's "  | " margin).
			return join(l.Line(line[:i], max(end-int64(len(line)-i)-1, 0)), l.Line(line[i:], end))
		}
	}
	lines := l.rich.line(line, end)
	if len(lines) == 1 {
		return l.line(lines[0].s, lines[0].end)
	}
	var out []Entry
	for _, r := range lines {
		out = join(out, l.line(r.s, r.end))
	}
	return out
}

// line reads a line as richLines gives it.
func (l *runtimeLayer) line(line string, end int64) []Entry {
	if l.scr != nil && l.scr.on {
		return l.scriptLine(line, end)
	}
	var out []Entry
	if l.r.kind != rtNone {
		if l.r.more(line, pastPrefix(line, l.r.prefixed), end) {
			if l.r.done {
				out = l.finish(out)
			}
			return out
		}
		out = l.finish(out)
	}
	if l.cand.held {
		c := l.cand
		l.cand.held = false
		if out, ok := l.confirm(out, &c, line, end); ok {
			return out
		}
		if t := trimLeft(pastPrefix(line, c.prefixed)); c.extra == "" && (c.kind == rtThrown && (strings.HasPrefix(t, "File name: '") || argumentLine(t)) ||
			c.kind == rtRuler && (isRuler(t) && strings.HasSuffix(c.body, ":DEADLYSIGNAL") || t == "" && isRuler(trimLeft(c.body)))) {
			// .NET's FileNotFoundException names the file before its
			// frames, its ArgumentException the parameter; ASan's
			// DEADLYSIGNAL comes before its report's ruler; a blank line
			// after a ruler, before Yamagi Quake II's report.
			l.cand, l.cand.extra, l.cand.extraEnd = c, line, end
			return out
		}
		out = join(out, l.releaseCand(&c))
	}
	return l.begin(out, line, end)
}

// releaseCand hands the lines of a candidate that started no report to
// the engine's parser.
func (l *runtimeLayer) releaseCand(c *candidate) []Entry {
	out := l.below(c.line, c.end, c.facts)
	if c.extra != "" {
		out = join(out, l.below(c.extra, c.extraEnd, c.facts))
	}
	return out
}

func (l *runtimeLayer) Flush() []Entry {
	var out []Entry
	for _, r := range l.rich.flush() {
		out = join(out, l.line(r.s, r.end))
	}
	if l.scr != nil && l.scr.on {
		out = l.scriptFlush(out)
	}
	if l.r.kind != rtNone {
		out = l.finish(out)
	}
	if l.cand.held {
		l.cand.held = false
		out = join(out, l.releaseCand(&l.cand))
	}
	return join(out, l.p.Flush())
}

// below hands a line to the engine's parser.
func (l *runtimeLayer) below(line string, end int64, f prefixFacts) []Entry {
	l.last = f
	if line != "" && line[0] == '=' && valgrindBlank(line) {
		line = "" // Valgrind's pid with nothing after it: its blank line
	}
	body := strings.TrimSpace(line[min(len(f.prefix), len(line)):])
	if body == "" && f.wrapped && f.from >= len(f.prefix) {
		line = "" // a launcher's wrapper with nothing after it: "[WARNING] stderr: ", the program's blank line
	}
	l.blank = body == ""
	return l.p.Line(line, end)
}

// begin starts a report, holds a candidate, or hands the line below.
func (l *runtimeLayer) begin(out []Entry, line string, end int64) []Entry {
	if l.whole != nil && l.whole.readingWhole() {
		return join(out, l.below(line, end, prefixFacts{}))
	}
	s := trimRight(line)
	n, facts := cutPrefix(s)
	if gmStart(s) || defoldStart(s) || zigError(s) {
		n, facts = 0, prefixFacts{} // its level words are its own first line, not a prefix
	} else if is, _ := v8Start(s[facts.from:]); is {
		n = facts.from // V8's "FATAL ERROR:" too, past a launcher's wrapper
	}
	body, prefixed := s[n:], n > 0
	var kind rtKind
	var level oplog.Level
	if t := trimLeft(body); prefixed && len(t) >= 4 && l.own&(1<<rtScript) == 0 && scriptStart(t) {
		return l.script(out, line, t, end) // Lua's error or Rust's panic beneath a prefix
	} else if len(body)-len(t) > 1 && len(t) >= 4 {
		// A line indented deeper than one space goes on with what came
		// before it (a frame, a source line): only a report's own first
		// words start one there (a SyntaxError's File line).
		kind, level = startByFirst(t)
	} else {
		kind, level = startOf(t)
	}
	if kind == rtNone && prefixed && l.own&(1<<rtLua) == 0 && luaErrorLine(trimLeft(body)) {
		kind = rtLua // a candidate until its "stack traceback:"
	}
	if kind == rtNone && prefixed && flutterStart(trimLeft(body), facts) {
		kind, level = rtDart, oplog.LevelError
	}
	if kind == rtNone && trimLeft(body) == "#" {
		kind = rtJVM // a candidate until the JVM's fatal error's headline (runtime_jvm.go)
	}
	switch {
	case kind == rtNone || l.own&(1<<kind) != 0 && !(kind == rtNative && nativeAbort(trimLeft(body))):
		// An engine that reads its own crash dumps still leaves the C
		// runtime's abort (glibc's heap checks, terminate) to this layer.
		return join(out, l.below(line, end, facts))
	case kind == rtThrown || kind == rtRuler || kind == rtGameMaker || kind == rtLua || kind == rtZig && zigError(trimLeft(body)) ||
		kind == rtJVM && trimLeft(body) == "#" || kind == rtV8 && level == 0 || kind == rtPython && trimLeft(body) == renpyFull:
		l.cand = candidate{held: true, kind: kind, line: line, body: body, prefixed: prefixed, facts: facts, end: end}
		return out
	}
	return l.start(out, kind, level, line, body, prefixed, facts, end)
}

// confirm starts the report candidate c heads when line goes on with it.
func (l *runtimeLayer) confirm(out []Entry, c *candidate, line string, end int64) ([]Entry, bool) {
	s := pastPrefix(line, c.prefixed)
	t := trimLeft(s)
	switch c.kind {
	case rtThrown:
		if nativeFrameLine(t) && signalHeadline(trimLeft(c.body)) {
			// "Error: signal 11:", then backtrace_symbols' frames: the
			// crash handler most C and C++ games copy.
			out = l.start(out, rtNative, oplog.LevelFatal, c.line, c.body, c.prefixed, c.facts, c.end)
			l.r.more(line, s, end)
			return out, true
		}
		if !isFrameStart(t) {
			return out, false
		}
		out = l.start(out, rtThrown, oplog.LevelError, c.line, c.body, c.prefixed, c.facts, c.end)
		if c.extra != "" {
			l.r.add(trimLeft(pastPrefix(c.extra, c.prefixed)), c.extraEnd)
		}
		l.r.more(line, s, end)
		return out, true
	case rtRuler:
		if k, level := startOf(t); k == rtSanitizer {
			return l.start(out, k, level, line, s, c.prefixed, c.facts, end), true
		}
		if t == monoNativeCrash {
			return l.start(out, rtMonoNative, oplog.LevelFatal, line, s, c.prefixed, c.facts, end), true
		}
		if gameCrashStart(t) {
			return l.start(out, rtGameCrash, oplog.LevelFatal, line, s, c.prefixed, c.facts, end), true // its banner's ruler left out
		}
	case rtJVM:
		if jvmStart(t) {
			return l.start(out, rtJVM, oplog.LevelFatal, line, s, c.prefixed, c.facts, end), true
		}
	case rtV8:
		if t == v8NativeStack || v8Frame(t) {
			out = l.start(out, rtV8, oplog.LevelFatal, c.line, c.body, c.prefixed, c.facts, c.end)
			l.r.more(line, s, end)
			return out, true
		}
	case rtLua:
		if t != luaTraceback {
			return out, false
		}
		level := oplog.LevelError
		if lv, ok := c.facts.level(); ok && lv > level {
			level = lv // the game's own word for it: "FATAL: main.lua:5: …" before it exits
		}
		out = l.start(out, rtLua, level, c.line, c.body, c.prefixed, c.facts, c.end)
		l.r.more(line, s, end)
		return out, true
	case rtPython: // "Full traceback:", a header many programs print: Ren'Py's report only when frames follow
		if !strings.HasPrefix(t, `File "`) && t != pyTraceback {
			return out, false
		}
		out = l.start(out, rtPython, oplog.LevelError, c.line, c.body, c.prefixed, c.facts, c.end)
		l.r.more(line, s, end)
		return out, true
	case rtGameMaker, rtZig:
		if c.kind == rtGameMaker && !strings.HasPrefix(t, "action number ") || c.kind == rtZig && !zigFrame(t) {
			return out, false
		}
		out = l.start(out, c.kind, oplog.LevelFatal, c.line, c.body, c.prefixed, c.facts, c.end)
		l.r.more(line, s, end)
		return out, true
	}
	return out, false
}

// start begins a report of kind with its first line (body: past its prefix). The entry the
// engine's parser holds is completed first; a report a logger prints after
// its own line joins that line when it announces it.
func (l *runtimeLayer) start(out []Entry, kind rtKind, level oplog.Level, line, body string, prefixed bool, facts prefixFacts, end int64) []Entry {
	before := l.p.Flush()
	r := &l.r
	r.begin(kind, line, body, prefixed, level, end)
	r.wrapped = prefixed && facts.wrapped && facts.from >= len(facts.prefix)
	if prefixed {
		r.e.rec.Time = l.lineTime(line)
	}
	if r.e.rec.Name == "" {
		// The program the system's log names: on the report's line, or,
		// for a message of several lines, on the line its further lines
		// are indented under.
		if _, ident, _ := syslogPrefix(line); ident != "" {
			r.e.setName(ident)
		} else if _, ident, _ := syslogPrefix(l.last.prefix); ident != "" && !prefixed && indentation(body) > 0 {
			r.e.setName(ident)
		} else if l.ident != "" && !prefixed {
			r.e.setName(l.ident) // a line of an escaped message (syslogLines)
		}
	}
	if n := len(before); n > 0 && !l.blank && ((kind == rtPython || kind == rtThrown || kind == rtCpptrace) && l.announces(kind, &before[n-1].Record) ||
		kind == rtDefold && defoldDump(&before[n-1].Record)) {
		r.attach, r.attached = before[n-1].Record, true
		before = before[:n-1]
	}
	if n := len(before); kind == rtSDL && n > 0 && strings.TrimSpace(before[n-1].Record.Text) == "" {
		before = before[:n-1] // SDL's "WARN: " whose message the report is
	}
	if n := len(before); kind == rtRuby && n > 0 && rubyThreadDied(&before[n-1].Record) {
		r.e.rec.Level = oplog.LevelError // a thread died of it, not the program
	}
	out = join(out, before)
	l.last = facts
	if r.done {
		out = l.finish(out)
	}
	return out
}

// announces reports whether r, the record the engine's parser held, is a
// line after which a logger prints a trace of kind: an error or warning
// without a stack of its own, or a message ending with ':'. The level is
// the one its prefix's last level word says (a logger that prefixes every
// line of the game's output at error says nothing of each), never a stderr
// or stdout wrapper's; without one, the parser's. A Python traceback after
// a warning is the program's own, uncaught: Python's loggers print one
// after logger.exception() and logger.error(exc_info=True), a game's
// "sound disabled" warning just before it crashes is no part of it.
func (l *runtimeLayer) announces(kind rtKind, r *oplog.Record) bool {
	least := oplog.LevelWarn
	if kind == rtPython {
		least = oplog.LevelError
	}
	switch {
	case r.Kind == oplog.KindLine && oplog.AsyncioMessage(r.Text):
		return true // its context lines its stack so far
	case r.Kind != oplog.KindLine || r.Stack != "" || ownLine(r.Name):
		return false
	case strings.HasSuffix(strings.TrimSpace(r.Text), ":"), oplog.GoesOnAfter(r.Text):
		// Python's line before the traceback of an exception it goes on
		// after: a destructor's, an asyncio task's nothing awaited.
		return true
	}
	if lv, ok := l.last.level(); ok {
		return lv >= least
	}
	return !l.last.wrapped && r.Level >= least
}

// finish completes the report: its record, or, for one that never showed
// what it promised (a Node location without its error), its lines handed
// to the engine's parser as they came.
func (l *runtimeLayer) finish(out []Entry) []Entry {
	r := &l.r
	kind := r.kind
	r.kind = rtNone
	if !r.confirmed {
		for i, s := range r.raw {
			out = join(out, l.below(s, r.rawEnds[i], prefixFacts{}))
		}
		r.raw, r.rawEnds = r.raw[:0], r.rawEnds[:0]
		return out
	}
	if r.attached {
		if kind == rtThrown { // the exception's line heads its frames
			r.e.stack = append(append([]byte(r.head), '\n'), r.e.stack...)
		}
		a := r.attach
		if a.Stack != "" { // asyncio's context, under its message
			r.e.stack = append(append([]byte(a.Stack), '\n'), r.e.stack...)
		}
		a.Level = max(a.Level, r.e.rec.Level)
		r.e.rec = a
	}
	if kind == rtD && len(r.e.stack) == 0 && r.head != "" {
		r.e.stack = append(r.e.stack, "at "+r.head...) // no frames: where it was thrown
	}
	if r.ubsan && len(r.e.stack) == 0 {
		// UndefinedBehaviorSanitizer without print_stacktrace says only
		// where: that place is its stack, so that the error it halts the
		// program on is the crash, not the exit status after it.
		if loc, _, ok := strings.Cut(r.e.rec.Text, ": runtime error: "); ok {
			r.e.stack = append(r.e.stack, "at "+loc...)
		}
	}
	return r.e.take(out)
}

// The reports engines' parsers read themselves.
// An engine that prints no Lua of its own beneath its prefixes owns
// rtLua: its lines are not looked at for a Lua error's.
func (*unityParser) ownReports() []rtKind {
	return []rtKind{rtThrown, rtNative, rtDotnet, rtAssert, rtLua}
}
func (*godotParser) ownReports() []rtKind {
	return []rtKind{rtNative, rtThrown, rtDotnet, rtAssert, rtLua}
}
func (*log4jParser) ownReports() []rtKind   { return []rtKind{rtThrown, rtLua} }
func (*mcCrashParser) ownReports() []rtKind { return []rtKind{rtThrown, rtJava, rtLua} }
func (*unrealParser) ownReports() []rtKind  { return []rtKind{rtNative, rtAssert, rtLua} }
func (*luantiParser) ownReports() []rtKind  { return []rtKind{rtScript, rtLua} }

// waiting reports a report begun and not ended that pauses between its
// parts (waiter): Wine's, while winedbg starts; AddressSanitizer's (up to
// its "==PID==ABORTING"), while it symbolizes the frames; Mono's native
// crash (up to its managed frames), while gdb attaches; Ren'Py's, whose
// second copy (an exception at init) comes after it wrote traceback.txt.
func (l *runtimeLayer) waiting() bool {
	return !l.r.done && (l.r.kind == rtWine || l.r.kind == rtSanitizer && !l.r.ubsan || l.r.kind == rtMonoNative && !l.r.managed ||
		l.r.kind == rtPython && l.r.renpy > 0 && l.r.renpy < 4)
}
