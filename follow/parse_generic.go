package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// genericParser reads logs of no particular engine: an optional timestamp
// at the start (ISO-8601, perhaps in brackets, or a time of day on the
// file's date), then a level word among the first tokens (DEBUG, INFO,
// WARN, WARNING, ERROR, FATAL, CRITICAL, TRACE in any case, maybe as
// "[ERROR]", "[ERROR  ]", "ERROR:", "<error>" or "level=error"), then the
// message. A name is taken where the line shows one: Python's
// "ERROR:root:msg", Rust's "[2024-05-01T12:34:56Z ERROR my_crate::net] msg",
// log4j's thread and level "[main/WARN]: msg", Godot's "SCRIPT ERROR: msg",
// Kivy's "[INFO   ] [Module      ] msg", a logger before " - " after the
// level, or a bracketed or " - "-separated token before it.
// java.util.logging's two-line records ("Dec 04, 2026 10:00:01 PM
// game.World tick", then "SEVERE: msg") are one entry (see beginJUL).
//
// Indented lines, and lines that start a trace ("at f(...)", "Caused by:",
// "Traceback (most recent call last):", "stack traceback:", "goroutine 1
// [running]:"), join the previous entry's stack, as do a Python
// traceback's closing exception line and a Go panic's unindented frames.
// After an entry that began with a timestamp, every line without a
// timestamp or level word joins it (a message of several lines, and a
// Java exception's first line after a warning or error that announced it),
// unless a line without a timestamp has begun an entry before: where a
// game's plain prints come between its logger's lines, only a line that
// looks like more of the entry (indented, a trace, that exception) joins;
// after an info or debug entry not ending in a colon, a line naming an
// exception at its start ("TypeError: x", "java.io.IOException: x")
// starts an error entry of its own, as it does after an entry without a
// timestamp.
// An entry without a level word whose stack turns out to be a trace is an
// error. A leading uptime ("4044.612 Error MainLoop.cpp:1429: ...") is
// skipped, the level word after it read in any case, and every line
// without one joins the entry; Ren'Py's traceback.txt is one error record
// (see renpyHeader); a UTF-8 BOM at a line's start is dropped.
type genericParser struct {
	clk      *clock
	e        entry
	explicit bool      // the held entry's level came from a level word
	stamped  bool      // the held entry began with a timestamp: lines without one join it
	plain    bool      // a line without a timestamp began an entry: prints mixed with a logger's lines
	uptime   bool      // the held entry began with an uptime: lines without one join it
	renpy    bool      // the held entry is Ren'Py's traceback.txt: every line joins it
	balatro  bool      // the held entry is Balatro's crash, as Steamodded reports it: every line up to a header joins it
	jul      bool      // the held entry is java.util.logging's header: its level line is next
	mel      bool      // the held entry is Microsoft.Extensions.Logging's header: its message is next
	fn       string    // the method java.util.logging names in the held entry's header
	upBase   time.Time // the time at uptime 0, from a line giving both
	head     bool      // a "Stack trace:" held, until the next line shows whether emilk/loguru's frames follow
	headEnd  int64
	pre      []string // emilk/loguru's "Stack trace:" and its frames, printed before the fatal line they are the stack of
	preEnd   int64
}

func (p *genericParser) Name() string { return "generic" }

func (p *genericParser) Flush() []Entry {
	var out []Entry
	if p.head {
		p.head = false
		out = p.line(loguruStack, p.headEnd)
	}
	return p.takePre(p.take(out))
}

func (p *genericParser) Line(line string, end int64) []Entry {
	s := trimRight(strings.TrimPrefix(line, "\ufeff")) // a BOM: Ren'Py's traceback.txt, Windows tools
	s = p.loguruUnwrapped(s)
	if p.head || len(p.pre) > 0 || s == loguruStack {
		return p.loguruLine(s, end)
	}
	return p.line(s, end)
}

// line reads s, a line without its BOM and trailing spaces.
func (p *genericParser) line(s string, end int64) []Entry {
	if s == "" {
		p.e.blank(end)
		return nil
	}
	if p.jul && p.e.held {
		p.jul = false
		if lv, text, ok := julLevel(s); ok {
			if lv == oplog.LevelError && strings.HasPrefix(text, "Uncaught exception thrown in Thread[") {
				lv = oplog.LevelFatal // jMonkeyEngine's handleError: the application stops
			}
			p.e.rec.Level, p.e.rec.Text, p.e.end, p.explicit = lv, oplog.ClipText(text), end, true
			return nil
		}
	}
	if p.mel && p.e.held && indented(s) {
		p.mel = false // Microsoft.Extensions.Logging's message, under its category
		p.e.rec.Text, p.e.end = oplog.ClipText(trimLeft(s)), end
		return nil
	}
	if p.e.held && oplog.AsyncioMessage(p.e.rec.Text) && p.asyncio(s, end) {
		return nil
	}
	if p.e.held && p.continues(s) {
		if p.e.add(s, end) {
			p.added(s)
			return nil
		}
	}
	out := p.take(nil)
	p.begin(s, end)
	return out
}

// take completes the held entry. A bare Python traceback gets its
// exception's line, which Python prints last, as text, and the whole
// traceback as stack.
func (p *genericParser) take(out []Entry) []Entry {
	if p.renpy && p.e.held {
		p.renpy = false
		p.takeRenpy()
	}
	if p.balatro && p.e.held {
		p.takeBalatro()
	}
	p.balatro = false
	if p.fn != "" && p.e.held {
		var o object
		o.str("function", p.fn)
		p.e.rec.Data = o.bytes()
	}
	p.fn, p.jul, p.mel = "", false, false
	return p.e.take(out)
}

// continues reports whether s joins the held entry's stack.
func (p *genericParser) continues(s string) bool {
	if p.renpy {
		return true
	}
	if p.balatro {
		return !p.isHeader(s)
	}
	if p.uptime {
		_, up := cutUptime(s)
		return up < 0
	}
	if strings.TrimSpace(s) == oplog.LoggingError {
		return false // beneath a logger that indents Python's output (Kivy's), its own line still
	}
	if indented(s) || startsTrace(s) || strings.HasPrefix(s, "During handling of the above exception") ||
		strings.HasPrefix(s, "The above exception was the direct cause") || strings.HasPrefix(s, "--- End of") ||
		strings.HasPrefix(s, "created by ") || strings.HasPrefix(s, "Suppressed: ") {
		return true
	}
	if p.stamped {
		switch exc := exceptionLine(s); {
		case exc && !p.announces():
			return false
		case p.plain && !exc:
			// Where the game's plain prints come between its logger's
			// lines, a line without a timestamp is one of them, unless
			// it looks like more of the entry (indented, a trace, the
			// exception a logged error announced).
			return false
		}
		return !p.isHeader(s)
	}
	return false
}

// announces reports whether the held entry announces a trace to follow:
// a warning or worse ("ERROR Loader - failed", then the exception), or a
// message ending in a colon ("Stack trace follows:").
func (p *genericParser) announces() bool {
	return p.e.rec.Level >= oplog.LevelWarn || p.e.lines == 0 && strings.HasSuffix(p.e.rec.Text, ":")
}

// exceptionLine reports a line that begins with an exception's name, as a
// runtime prints an uncaught one: "TypeError: x is undefined",
// "java.lang.IllegalStateException: pool exhausted",
// "java.lang.NullPointerException".
func exceptionLine(s string) bool {
	name, _, found := strings.Cut(s, ": ")
	if !found {
		name = strings.TrimSuffix(s, ":")
	}
	return exceptionName(name)
}

// startsTrace reports a line that begins or continues a stack trace.
func startsTrace(s string) bool {
	t := trimLeft(s)
	switch {
	case strings.HasPrefix(t, "at ") && isAtFrame(t[3:]),
		strings.HasPrefix(t, "Caused by: "), t == "Caused by:", // Java's; anyhow's (Rust), its causes indented under it
		t == "Traceback (most recent call last):",
		t == "stack traceback:",
		strings.HasPrefix(t, "goroutine ") && strings.HasSuffix(t, "]:"):
		return true
	}
	return false
}

// isAtFrame reports what follows "at " in a Java, .NET or JavaScript frame:
// a name with a parenthesis or a location, not prose ("at least ...").
func isAtFrame(s string) bool {
	sp := strings.IndexByte(s, ' ')
	first := s
	if sp >= 0 {
		first = s[:sp]
	}
	for i := 0; i < len(first); i++ { // a loop: ContainsAny builds its set at every frame
		if c := first[i]; c == '(' || c == '.' || c == ':' || c == '/' || c == '\\' {
			return true
		}
	}
	return strings.HasSuffix(s, ")")
}

// added makes an entry without a level word whose stack turned out to be
// a trace an error.
func (p *genericParser) added(s string) {
	if !p.explicit && p.e.rec.Level < oplog.LevelError && startsTrace(s) {
		p.e.rec.Level = oplog.LevelError
	}
}

// isHeader reports whether s starts an entry of its own: a timestamp or a
// level word at its start.
func (p *genericParser) isHeader(s string) bool {
	if n, _, _ := syslogPrefix(s); n > 0 {
		return true
	}
	_, rest, stamped := p.stamp(s)
	if stamped {
		return true
	}
	if _, _, ok := julHeader(s, p.clk.location()); ok {
		return true
	}
	if _, _, _, _, ok := p.rustHeader(s); ok {
		return true
	}
	if _, _, _, _, ok := p.rubyHeader(s); ok {
		return true
	}
	if _, _, _, _, ok := p.glibHeader(s); ok {
		return true
	}
	if _, _, _, _, ok := p.placeHeader(s); ok {
		return true
	}
	if _, _, _, ok := notifyHeader(rest); ok {
		return true
	}
	if _, _, _, ok := libraryHeader(rest); ok {
		return true
	}
	_, _, _, ok := findLevel(rest)
	return ok
}

// beginEntry starts an entry with line s, past a system log's prefix.
func (p *genericParser) beginEntry(line string, end int64) {
	if t, source, ok := julHeader(line, p.clk.location()); ok {
		p.beginJUL(t, source, end)
		return
	}
	if level, category, ok := melHeader(line); ok {
		p.explicit, p.stamped, p.plain, p.mel, p.renpy, p.uptime = true, false, false, true, false, false
		p.e.start(category, level, end)
		p.e.setName(category)
		return
	}
	s, up := cutUptime(line)
	t, rest, stamped := p.stamp(s)
	level, name, text, ok := oplog.LevelInfo, "", rest, false
	at := "" // a place the header gives, the stack's first line
	if rt, lv, nm, tx, found := p.rustHeader(s); found {
		t, level, name, text, ok, stamped = rt, lv, nm, tx, true, true
	} else if rt, lv, nm, tx, found := p.rubyHeader(s); found {
		t, level, name, text, ok, stamped = rt, lv, nm, tx, true, true
	} else if rt, lv, nm, tx, found := p.lovelyHeader(s); found {
		level, name, text, ok = lv, nm, tx, true
		if !rt.IsZero() {
			t, stamped = rt, true
		}
	} else if rt, lv, nm, tx, found := p.glibHeader(s); found {
		t, level, name, text, ok, stamped = rt, lv, nm, tx, true, !rt.IsZero()
	} else if rt, lv, place, tx, found := p.placeHeader(s); found {
		t, level, text, ok, stamped = rt, lv, tx, true, true
		name, _, _ = strings.Cut(place, ":")
		if level >= oplog.LevelError {
			at = "at " + place // where it was logged: a CHECK's, a LOG(FATAL)'s place
		}
	} else if lv, nm, tx, found := notifyHeader(rest); found {
		level, name, text, ok = lv, nm, tx, true
	} else if lv, nm, tx, found := libraryHeader(rest); found {
		level, name, text, ok = lv, nm, tx, true
	} else if lv, tx, found := upLevel(rest, up); found {
		level, text, ok = lv, tx, true // "4044.612 Error MainLoop.cpp:1429: ..."
	} else if lv, nm, tx, found := findLevel(rest); found {
		level, name, text, ok = lv, nm, tx, true
	} else if lv, found := placeLevel(rest); found {
		level, ok = lv, true
	} else if exceptionLine(rest) {
		level = oplog.LevelError // "TypeError: x", "java.io.IOException: x"
	}
	p.uptime = up >= 0
	t = p.upTime(t, stamped, up)
	if !stamped && strings.IndexByte(s, '=') > 0 {
		if v := logfmtValue(s, "time", "ts"); v != "" {
			if lt, n, isTime := parseISO(v, p.clk.location()); isTime && n == len(v) {
				t, stamped = lt, true
			}
		}
	}
	if strings.TrimSpace(text) == oplog.LoggingError {
		text = oplog.LoggingError // a logger's indentation (Kivy's) off
	}
	if factorioStop(text) {
		level = oplog.LevelFatal
	}
	p.explicit, p.stamped = ok, stamped
	p.plain = p.plain || !stamped && up < 0
	p.renpy = rest == renpyHeader
	if p.renpy && !ok {
		level = oplog.LevelError
	}
	if p.balatro = balatroCrash(text); p.balatro {
		level = oplog.LevelFatal
	}
	p.e.start(text, level, end)
	p.e.rec.Time = t
	p.e.setName(name)
	if at != "" {
		p.e.add(at, end)
	}
}

// lineTime returns the time line's header gives (lineStamper).
func (p *genericParser) lineTime(line string) (time.Time, bool) {
	if n, _, k := syslogPrefix(line); n > 0 {
		return p.clk.syslogTime(line[:k])
	}
	s, _ := cutUptime(line)
	if t, _, ok := p.stamp(s); ok {
		return t, true
	}
	if t, _, _, _, ok := p.rustHeader(s); ok {
		return t, true
	}
	if t, _, _, _, ok := p.placeHeader(s); ok {
		return t, true
	}
	if t, _, _, _, ok := p.rubyHeader(s); ok {
		return t, true
	}
	return time.Time{}, false
}

// stamp reads a timestamp at the start of s, perhaps in brackets, and
// returns it with the rest of the line after it and its separators.
func (p *genericParser) stamp(s string) (time.Time, string, bool) {
	if s == "" {
		return time.Time{}, s, false
	}
	in := s
	bracket := s[0] == '['
	if bracket {
		in = s[1:]
	}
	if in == "" || !isDigit(in[0]) {
		return time.Time{}, s, false
	}
	var t time.Time
	var n int
	if tt, k, ok := parseISO(in, p.clk.location()); ok {
		t, n = tt, k
		p.clk.saw(t)
	} else if h, m, sec, ns, k, ok := parseClock(in); ok && (k == len(in) || in[k] == ' ' || in[k] == ']') {
		t, n = p.clk.at(h, m, sec, ns), k
	} else if tt, k, ok := parseDayMonthYear(in, p.clk.location()); ok {
		t, n = tt, k
		p.clk.saw(t)
	} else if h, m, k, ok := parseKitchen(in); ok && !bracket {
		t, n = p.clk.at(h, m, 0, 0), k
	} else {
		return time.Time{}, s, false
	}
	rest := in[n:]
	if z, ok := spacedZone(rest); ok { // Serilog's file sink: "2026-12-07 10:00:01.123 +01:00 [ERR] msg"
		t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), z)
		rest = rest[len(" +01:00"):]
	}
	if bracket {
		if word, after, ok := strings.Cut(strings.TrimPrefix(rest, " "), "]"); ok && rest != "" && rest[0] == ' ' && word != "" && isLevelWord(word) {
			return t, word + " " + trimSeparators(after), true // Serilog's console: "[10:00:01 ERR] msg"
		}
		if len(rest) > 3 && rest[0] == ' ' && rest[2] == ']' {
			if word, ok := letterLevels[rest[1]]; ok {
				return t, word + " " + trimSeparators(rest[3:]), true // OpenMW's "[12:00:00.003 E] msg"
			}
		}
		if inside, _, ok := strings.Cut(rest, "]"); ok && rest[0] == ' ' && strings.LastIndexByte(inside, ' ') > 1 {
			if _, _, _, ok := threadLevel("[" + rest[1:]); ok {
				return t, "[" + rest[1:], true // CustomSkinLoader's "[2021-02-18 16:50:16 Texture Downloader #1 INFO] msg"
			}
		}
		if !strings.HasPrefix(rest, "]") {
			return time.Time{}, s, false // "[2024-... LEVEL name]": rustHeader's
		}
		rest = rest[1:]
	}
	return t, trimSeparators(rest), true
}

// letterLevels are the levels OpenMW writes as one letter after the time
// in its brackets: " EWIVD" (V is its verbose).
var letterLevels = map[byte]string{'E': "ERROR", 'W': "WARN", 'I': "INFO", 'V': "DEBUG", 'D': "DEBUG"}

// spacedZone reads a zone offset after a space at the start of s, " +01:00".
func spacedZone(s string) (*time.Location, bool) {
	if len(s) < 7 || s[0] != ' ' || s[1] != '+' && s[1] != '-' || s[4] != ':' || len(s) > 7 && s[7] != ' ' && s[7] != ']' {
		return nil, false
	}
	h, ok1 := atoi(s[2:4])
	m, ok2 := atoi(s[5:7])
	if !ok1 || !ok2 || h > 14 || m > 59 {
		return nil, false
	}
	off := (h*60 + m) * 60
	if s[1] == '-' {
		off = -off
	}
	return time.FixedZone("", off), true
}

// trimSeparators removes leading spaces and the separators loggers put
// between fields: "-", "|", ":".
func trimSeparators(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t' || s[0] == '|' || s[0] == ':' ||
		s[0] == '-' && (len(s) == 1 || s[1] == ' ')) {
		s = s[1:]
	}
	return s
}

// firstToken cuts s at its first space, or after the first of bracketed
// fields written with no space between ("[warning][audio] msg").
func firstToken(s string) (tok, after string) {
	tok, after = s, ""
	if i := strings.IndexAny(s, " \t"); i >= 0 { // zap's console fields are tabbed
		tok, after = s[:i], s[i+1:]
	}
	if tok != "" && tok[0] == '[' {
		if k := strings.Index(tok, "]["); k > 0 {
			return tok[:k+1], s[k+1:]
		}
	}
	return tok, strings.TrimLeft(after, " \t")
}

// findLevel looks for a level word among the first tokens of s and
// returns the level, a name where one shows, and the message.
func findLevel(s string) (level oplog.Level, name, text string, ok bool) {
	if lv, text, ok := qualifiedLevel(s); ok {
		return lv, "", text, true
	}
	rest := s
	needSep, piped := false, false // a plain token came: only a separator may follow it; a '|' came
	for i := 0; i < 5 && rest != ""; i++ {
		tok, after := firstToken(rest)
		if w, a, ok := paddedLevel(rest); ok {
			tok, after = w, a // Kivy's "[INFO   ] [Module      ] text"
		}
		if tok == "-" || tok == "|" || tok == ":" {
			needSep, piped = false, piped || tok == "|"
			rest = after
			continue
		}
		if needSep {
			return 0, "", "", false
		}
		// logfmt: "time=... level=error msg=..." (slog's TextHandler, logrus).
		if strings.IndexByte(tok, '=') > 0 {
			if lv, ok := levelWord(logfmtValue(s, "level", "lvl", "severity")); ok {
				return lv, "", logfmtText(s), true
			}
			return 0, "", "", false
		}
		if lv, thread, ok := threadAfterLevel(tok); ok && i == 0 {
			return lv, thread, trimSeparators(after), true // Luanti's "ERROR[Main]: msg"
		}
		if tok == "CRASH:" {
			return oplog.LevelFatal, name, after, true // a game's own crash hook: "CRASH: AttributeError: …"
		}
		// Python's logging default, "ERROR:root:message"; NLog's, "ERROR|Game.Physics|message".
		if c := strings.IndexAny(tok, ":|"); c > 0 && c < len(tok)-1 && tok[0] != '[' && (tok[c] == ':' || isLevelWord(tok[:c])) {
			return joinedLevel(tok[:c], rest[c+1:], tok[c], name)
		}
		core, decorated := undecorate(tok)
		if lv, ok := levelWord(core); ok && (decorated || isUpper(core) || i == 0 && strongWord(core)) {
			if !decorated && !isUpper(core) {
				return lv, name, rest, true // "Error loading texture": the word is part of the message
			}
			text = trimSeparators(after)
			// "ERROR [worker-3] com.example.Loader - msg": thread, logger.
			if strings.HasPrefix(text, "[") {
				// A level word there is the message's own ("[INFO   ] [ERROR] x").
				k := strings.IndexByte(text, ']')
				if k > 1 && k+1 < len(text) && text[k+1] == ' ' && !isLevelWord(strings.TrimSpace(text[1:k])) {
					name, text = strings.TrimSpace(text[1:k]), trimSeparators(text[k+1:])
				}
				if threadID(name) {
					name = "" // a thread's number names nothing: plog's "[4832] [World::spawn@41] msg"
					if fn, msg, ok := plogPlace(text); ok {
						name, text = fn, msg
					}
				} else if fn, line, ok := strings.Cut(name, "@"); ok && fn != "" && isDigits(line) {
					name = fn // plog's place without the thread: "[World::spawn@41]"
				}
			}
			if n, t, ok := loggerName(text, piped || strings.HasPrefix(strings.TrimLeft(after, " "), "|")); ok {
				name, text = n, t
			}
			return lv, name, text, true
		}
		if lv, thread, text, ok := threadLevel(rest); ok {
			return lv, thread, text, true
		}
		switch {
		case decorated && tok[0] == '[' && core != "":
			if !threadID(core) {
				name = core // "[main] ERROR ...": the thread or category; not Boost.Log's "[0x00007f…]"
			}
		case i == 0 && !decorated:
			name, needSep = core, true // "name - ERROR - msg"
		default:
			return 0, "", "", false
		}
		rest = after
	}
	return 0, "", "", false
}

// threadID reports a thread's or process's number as a logger writes it
// in brackets: "4832", "0x00007f1234567890".
func threadID(s string) bool {
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		return isHex(h)
	}
	return isDigits(s)
}

// plogPlace reads the place plog (C++) writes after the thread, "[World::
// spawnEnemy@58] msg": the function, and the message after it.
func plogPlace(s string) (fn, text string, ok bool) {
	place, text, ok := strings.Cut(s, "] ")
	if !ok || !strings.HasPrefix(place, "[") {
		return "", "", false
	}
	fn, line, ok := strings.Cut(place[1:], "@")
	if !ok || fn == "" || strings.ContainsAny(fn, " \t") || !isDigits(line) {
		return "", "", false
	}
	return fn, text, true
}

// threadAfterLevel reads a level word in capitals with its thread in
// brackets and a colon: Luanti's "ERROR[Main]:".
func threadAfterLevel(tok string) (oplog.Level, string, bool) {
	if !strings.HasSuffix(tok, "]:") {
		return 0, "", false
	}
	word, rest, ok := strings.Cut(tok, "[")
	thread, ok2 := strings.CutSuffix(rest, "]:")
	if !ok || !ok2 || thread == "" || !isUpper(word) {
		return 0, "", false
	}
	lv, ok := levelWord(word)
	return lv, thread, ok
}

// placeLevel reads the level of a line that begins with a source file's
// place, as Haxe's trace writes every line: "Game.hx:22: ERROR: missing
// texture" is an error (the line stays whole).
func placeLevel(s string) (oplog.Level, bool) {
	if sp := strings.IndexByte(s, ' '); sp < 4 || s[sp-1] != ':' || !isDigit(s[sp-2]) {
		return 0, false // asked of every line without a level: its first word first
	}
	tok, after := firstToken(s)
	loc, ok := strings.CutSuffix(tok, ":")
	if i := strings.LastIndexByte(loc, ':'); !ok || i <= 0 || !isDigits(loc[i+1:]) || !strings.Contains(loc[:i], ".") {
		return 0, false
	}
	lv, _, _, ok := findLevel(after)
	return lv, ok
}

// qualifiedLevel reads a level word in capitals after another, with its
// colon: Godot's "SCRIPT ERROR: msg" and "USER WARNING: msg"; when the
// first is a level word too, the stronger: "FATAL ERROR: msg" is fatal.
// The two in brackets too: "[FATAL ERROR] msg".
func qualifiedLevel(s string) (oplog.Level, string, bool) {
	if strings.HasPrefix(s, "[") {
		k := strings.IndexByte(s[:min(len(s), 18)], ']')
		if k < 0 || k+1 < len(s) && s[k+1] != ' ' {
			return 0, "", false
		}
		lv, _, ok := qualifiedLevel(s[1:k] + ": ")
		return lv, trimSeparators(s[k+1:]), ok
	}
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return 0, "", false
	}
	sp := strings.IndexByte(s[:min(len(s), 9)], ' ')
	if sp < 2 || leadingWord(s[:sp]) != s[:sp] || !isUpper(s[:sp]) {
		return 0, "", false
	}
	after := s[sp+1:]
	colon := strings.IndexByte(after[:min(len(after), 9)], ':') // the longest level word, WARNING, and its colon
	if colon < 4 || colon+1 >= len(after) || after[colon+1] != ' ' {
		return 0, "", false
	}
	lv := after[:colon]
	if !isUpper(lv) || leadingWord(lv) != lv {
		return 0, "", false
	}
	level, ok := levelWord(lv)
	if q, isLevel := levelWord(s[:sp]); isLevel && q > level {
		level = q
	}
	return level, after[colon+2:], ok
}

// threadLevel reads log4j's thread and level in brackets at the start of
// s: "[Render thread/WARN]: msg", or with a space between, as
// CustomSkinLoader's log writes them ("[Texture Downloader #1 INFO] msg");
// PyInstaller's bootloader's name, process
// and level, "[PYI-4321:ERROR] Failed to execute script 'main' due to
// unhandled exception!" (named "PYI": the process differs every run).
func threadLevel(s string) (level oplog.Level, thread, text string, ok bool) {
	if !strings.HasPrefix(s, "[") {
		return 0, "", "", false
	}
	k := strings.IndexByte(s, ']')
	if k < 0 {
		return 0, "", "", false
	}
	i := strings.LastIndexAny(s[:k], "/: ")
	if i <= 1 || !isUpper(s[i+1:k]) {
		return 0, "", "", false
	}
	if level, ok = levelWord(s[i+1 : k]); !ok {
		return 0, "", "", false
	}
	thread = s[1:i]
	if name, pid, found := strings.Cut(thread, "-"); found && s[i] == ':' && isDigits(pid) {
		thread = name
	}
	return level, thread, trimSeparators(s[k+1:]), true
}

// isLevelWord reports a level word, or an empty name.
func isLevelWord(s string) bool {
	_, ok := levelWord(s)
	return ok || s == ""
}

// paddedLevel reads a level word padded inside its brackets at the start
// of s, as Kivy writes it ("[INFO   ] ...", "[ERROR  ] ..."), and returns
// it as the token "[INFO]" with the rest of s after the bracket.
func paddedLevel(s string) (tok, after string, ok bool) {
	if !strings.HasPrefix(s, "[") {
		return "", "", false
	}
	k := strings.IndexByte(s, ']')
	if k < 0 {
		return "", "", false
	}
	word := strings.TrimRight(s[1:k], " ")
	if len(word) == k-1 || strings.IndexByte(word, ' ') >= 0 {
		return "", "", false // not padded: the token is read as it is
	}
	if _, ok := levelWord(word); !ok {
		return "", "", false
	}
	return "[" + word + "]", strings.TrimLeft(s[k+1:], " "), true
}

// logfmtValue returns the value of the first of keys in the logfmt line s.
func logfmtValue(s string, keys ...string) string {
	for _, k := range keys {
		for i := 0; ; {
			j := strings.Index(s[i:], k+"=")
			if j < 0 {
				break
			}
			j += i
			if j == 0 || s[j-1] == ' ' {
				v := s[j+len(k)+1:]
				if strings.HasPrefix(v, `"`) {
					v, _, _ = strings.Cut(v[1:], `"`)
				} else {
					v, _, _ = strings.Cut(v, " ")
				}
				return v
			}
			i = j + 1
		}
	}
	return ""
}

// undecorate strips the brackets and colon around a level word:
// "[ERROR]", "<warn>", "(info)", "ERROR:", "[ERROR]:".
func undecorate(tok string) (string, bool) {
	core := strings.TrimRight(tok, ":,")
	if core != "" && strings.IndexByte("[(<|", core[0]) >= 0 {
		core = core[1:]
	}
	if core != "" && strings.IndexByte("])>|", core[len(core)-1]) >= 0 {
		core = core[:len(core)-1]
	}
	return core, core != tok
}

func isUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'a' <= s[i] && s[i] <= 'z' {
			return false
		}
	}
	return s != ""
}

// strongWord reports level words that start a message as its level even
// undecorated and not in capitals: "Error loading texture", "Fatal error".
func strongWord(s string) bool {
	return strings.EqualFold(s, "error") || strings.EqualFold(s, "warning") || strings.EqualFold(s, "fatal")
}

// cutUptime cuts a leading uptime in seconds ("4044.612 Error ...",
// Factorio's right-aligned "   0.054 Loading mod ...") from s and returns
// the rest and the uptime in milliseconds, or s and -1.
func cutUptime(s string) (string, int64) {
	t := trimLeft(s)
	i := 0
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	if i == 0 || i > 9 || i+4 >= len(t) || t[i] != '.' || !isDigit(t[i+1]) || !isDigit(t[i+2]) || !isDigit(t[i+3]) || t[i+4] != ' ' {
		return s, -1
	}
	sec, _ := atoi(t[:i])
	ms, _ := atoi(t[i+1 : i+4])
	return strings.TrimLeft(t[i+4:], " "), int64(sec)*1000 + int64(ms)
}

// upLevel reads the level word that follows an uptime, in any case
// ("Info", "Error"), and the message after it.
func upLevel(rest string, up int64) (oplog.Level, string, bool) {
	if up < 0 {
		return 0, "", false
	}
	word, text, _ := strings.Cut(rest, " ")
	lv, ok := levelWord(strings.TrimSuffix(word, ":"))
	return lv, text, ok
}

// upTime dates an uptime line: a line giving both an uptime and a time
// ("   0.000 2026-09-01 23:37:49; Factorio 2.0.60") fixes the time at
// uptime 0; later lines with only an uptime are dated from it.
func (p *genericParser) upTime(t time.Time, stamped bool, up int64) time.Time {
	switch {
	case up < 0:
		return t
	case stamped && !t.IsZero():
		p.upBase = t.Add(-time.Duration(up) * time.Millisecond)
		return t
	case !p.upBase.IsZero():
		return p.upBase.Add(time.Duration(up) * time.Millisecond)
	}
	return t
}

// beginJUL starts an entry with the header line of java.util.logging's
// SimpleFormatter; the line after it gives the entry its level and text.
// The entry is named by the source's class (or the logger's name when the
// record names no source); its method goes to Data as "function".
func (p *genericParser) beginJUL(t time.Time, source string, end int64) {
	p.explicit, p.stamped, p.jul = false, true, true
	p.renpy, p.uptime = false, false
	class, method, _ := strings.Cut(source, " ")
	p.e.start(source, oplog.LevelInfo, end)
	p.e.rec.Time = t
	p.e.setName(class)
	p.fn = strings.TrimSpace(method)
}

// julHeader reads the first line of a record java.util.logging's
// SimpleFormatter writes by default, "Dec 04, 2026 10:00:01 PM game.World
// tick": the date in English, a 12-hour time in loc, then the source (the
// class and method, or the logger's name). The time is zero when its year
// is outside what the Log stores.
func julHeader(s string, loc *time.Location) (time.Time, string, bool) {
	if len(s) < 24 || s[3] != ' ' {
		return time.Time{}, "", false
	}
	mi := strings.Index("JanFebMarAprMayJunJulAugSepOctNovDec", s[:3])
	if mi < 0 || mi%3 != 0 {
		return time.Time{}, "", false
	}
	d, i, ok1 := julNumber(s, 4, 2)
	if !strings.HasPrefix(s[i:], ", ") {
		return time.Time{}, "", false
	}
	y, i, ok2 := julNumber(s, i+2, 4)
	h, i, ok3 := julField(s, i, ' ', 2)
	m, i, ok4 := julField(s, i, ':', 2)
	sec, i, ok5 := julField(s, i, ':', 2)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || d < 1 || d > 31 || h < 1 || h > 12 || m > 59 || sec > 60 ||
		i+4 > len(s) || s[i] != ' ' || s[i+2] != 'M' || s[i+3] != ' ' || (s[i+1] != 'A' && s[i+1] != 'P') {
		return time.Time{}, "", false
	}
	source := strings.TrimSpace(s[i+4:])
	if source == "" || strings.HasPrefix(source, "-") {
		return time.Time{}, "", false
	}
	h %= 12
	if s[i+1] == 'P' {
		h += 12
	}
	if y < minYear || y > maxYear {
		return time.Time{}, source, true
	}
	return time.Date(y, time.Month(mi/3+1), d, h, m, min(sec, 59), 0, loc), source, true
}

// julField reads the separator sep at s[i] and the number after it, of
// at most width digits (exactly width when width is 2 and sep is ':').
func julField(s string, i int, sep byte, width int) (int, int, bool) {
	if i >= len(s) || s[i] != sep {
		return 0, i, false
	}
	v, j, ok := julNumber(s, i+1, width)
	if sep == ':' && j-i-1 != width {
		return 0, j, false
	}
	return v, j, ok
}

// julNumber reads up to width digits at s[i]: its value and the index after it.
func julNumber(s string, i, width int) (int, int, bool) {
	v, j := 0, i
	for j < len(s) && j-i < width && isDigit(s[j]) {
		v = v*10 + int(s[j]-'0')
		j++
	}
	return v, j, j > i && (width != 4 || j-i == 4)
}

// julLevel reads the second line of a java.util.logging record,
// "SEVERE: enemy pool exhausted": CONFIG is info, FINE, FINER and FINEST
// are debug (as jul-to-slf4j maps them).
func julLevel(s string) (oplog.Level, string, bool) {
	word, text, found := strings.Cut(s, ": ")
	if !found {
		word, found = strings.CutSuffix(s, ":")
	}
	if !found {
		return 0, "", false
	}
	switch word {
	case "SEVERE":
		return oplog.LevelError, text, true
	case "WARNING":
		return oplog.LevelWarn, text, true
	case "INFO", "CONFIG":
		return oplog.LevelInfo, text, true
	case "FINE", "FINER", "FINEST":
		return oplog.LevelDebug, text, true
	}
	return 0, "", false
}

// factorioStop reports Factorio's line as a mod's error stops the game (it
// shows the error and leaves the map; a headless server quits): "Exception
// at tick 25061558: The mod Warp Drive Machine (0.9.41) caused a
// non-recoverable error.", or the same as its dialog shows it. The
// multiplayer manager's quote of it ("MultiplayerManager failed: …") is
// another record of that crash, an error.
func factorioStop(text string) bool {
	return strings.HasSuffix(text, " caused a non-recoverable error.") &&
		(strings.HasPrefix(text, "The mod ") || strings.Contains(text, ": Exception at tick "))
}
