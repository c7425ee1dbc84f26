package follow

import (
	"bytes"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// log4jParser reads log4j2 logs as Minecraft writes them (logs/latest.log):
//
//	[12:34:56] [Server thread/INFO]: Starting minecraft server version 1.20.1
//	[12:34:56] [Render thread/INFO] (Minecraft) Setting user: Dev          (Fabric)
//	[12:34:56] [main/INFO] [cp.mo.mo.Launcher/MODLAUNCHER]: ModLauncher ... (Forge)
//	[08Aug.2023 16:21:34.441] [Render thread/ERROR] [net.minecraft.client.Minecraft/FATAL]: ... (Forge debug.log)
//	[12:34:56 INFO]: Done (3.214s)! For help, type "help"                   (Paper's console)
//	2020-02-22 [22:02:37] [Server thread/INFO]: Loading server properties... (PocketMine-MP: parse_pmmp.go)
//
// The level is the header's, the name the logger where the line has one
// (the thread then goes to Data), else the thread; the time is the
// file's date with the header's time of day. Every line that is not a
// header joins the entry held: the exception after the message ("java.lang.
// NullPointerException: ..."), "\tat" frames, "Caused by:" chains, "\t...
// 12 more". An exception printed to System.err one log call per line
// ("[STDERR]: \tat ...") is put back together too. A crash report printed
// into the log (a message ending "---- Minecraft Crash Report ----", or
// that line alone after the log's, as a launcher shows the game's output)
// is read as mcCrashParser reads it: one fatal record with the report's
// exception. A header with no message takes its text from the line after
// it; after an error of the same thread, logger and level, it goes on
// that error.
type log4jParser struct {
	clk    *clock
	e      entry
	thread string // the held entry's thread
	logger string
	marker string
	level  oplog.Level // the held entry's header's level
	stderr bool        // the held entry's message came through [STDERR]
	exc    string      // the exception's first line, when the held entry's message is one or a line joined was
	report bool        // the held entry's message is a crash report's banner: r reads its lines
	r      mcReport
	pmmp   bool   // the held entry is an exception PocketMine-MP caught: its trace's lines join it
	pmmpAt string // the place that exception was thrown, until frame #0 names the call
}

func (p *log4jParser) Name() string { return "log4j" }

func (p *log4jParser) Flush() []Entry { return p.take(nil) }

func (p *log4jParser) Line(line string, end int64) []Entry {
	s := trimRight(line)
	if s == "" {
		p.e.blank(end)
		if p.report && p.e.held {
			p.r.line(s, p.clk.location())
		}
		return nil
	}
	if s[0] == '[' || isDigit(s[0]) {
		if h, ok := parseLog4jHeader(s, p.clk.location()); ok {
			if p.e.held && p.pmmp && h.thread == p.thread && pmmpCrash(&h) {
				p.e.rec.Level = oplog.LevelFatal // the server crashed of it
				p.e.add(h.msg, end)
				return nil
			}
			if p.e.held && !p.report && h.thread == p.thread && p.joinStack(&h, end) {
				return nil
			}
			if p.e.held && !p.report && h.msg == "" && h.level >= oplog.LevelError && h.thread == p.thread && h.logger == p.logger && h.level == p.level {
				return nil // an error's header again, alone: the lines after it are the error's (Forge's mod states)
			}
			out := p.take(nil)
			p.begin(&h, end)
			return out
		}
	}
	if level, ok := reportBanner(s); ok {
		// A crash report printed after the log's lines, as a launcher
		// shows the game's output: a record of its own, not the held
		// entry's lines.
		out := p.take(nil)
		p.reset()
		p.e.start(s, level, end)
		p.report = true
		p.r.reset()
		p.r.errorReport = level == oplog.LevelError
		return out
	}
	if !p.e.held { // the file was entered mid-entry, or a line before the log's
		p.reset()
		p.e.start(s, oplog.LevelInfo, end)
		if isDigit(s[0]) { // log4j's own status line, "2022-08-17 14:52:17,268 main WARN …": its date is the log's
			if t, _, ok := parseISO(s, p.clk.location()); ok {
				p.e.rec.Time = t
				p.clk.saw(t)
			}
		}
		return nil
	}
	if p.report {
		p.r.line(s, p.clk.location())
		p.e.end = end
		return nil
	}
	if p.pmmp && p.pmmpLine(trimLeft(s), end) {
		return nil
	}
	if p.e.rec.Text == "" && p.e.lines == 0 { // "[main/INFO]: " and the message on the lines after it
		p.e.rec.Text = oplog.ClipText(trimLeft(s))
		p.e.blanks, p.e.end = 0, end
		return nil
	}
	if !p.e.addKeepingBlanks(s, end) {
		out := p.take(nil)
		p.reset()
		p.e.start(s, oplog.LevelInfo, end)
		return out
	}
	return nil
}

func (p *log4jParser) reset() {
	p.thread, p.logger, p.marker, p.stderr, p.exc, p.report = "", "", "", false, "", false
	p.pmmp, p.pmmpAt = false, ""
}

// lineTime returns the time line's header gives (lineStamper).
func (p *log4jParser) lineTime(line string) (time.Time, bool) {
	h, ok := parseLog4jHeader(line, p.clk.location())
	switch {
	case ok && h.date:
		return h.t, true
	case ok && h.clock:
		return p.clk.at(h.hour, h.min, h.sec, h.ns), true
	}
	return time.Time{}, false
}

// begin starts an entry from its header.
func (p *log4jParser) begin(h *log4jHeader, end int64) {
	p.reset()
	p.thread, p.logger, p.marker, p.level = h.thread, h.logger, h.marker, h.level
	p.e.start(h.msg, h.level, end)
	switch {
	case h.date:
		p.e.rec.Time = h.t
		p.clk.saw(h.t)
	case h.clock:
		p.e.rec.Time = p.clk.at(h.hour, h.min, h.sec, h.ns)
	}
	if h.logger != "" {
		p.e.setName(h.logger)
	} else {
		p.e.setName(h.thread)
	}
	if text, place, ok := pmmpException(h.msg); ok && h.pmmp {
		p.e.rec.Text = oplog.ClipText(text)
		p.pmmp, p.pmmpAt = true, place
	}
	if crashHandler(h.msg) {
		p.e.rec.Level = oplog.LevelFatal
	} else if h.level == oplog.LevelFatal && strings.HasPrefix(h.msg, "Error executing task") {
		p.e.rec.Level = oplog.LevelError // Minecraft's task that threw: logged FATAL, and the game goes on
	}
	if i := strings.Index(h.msg, "---- "); i >= 0 { // a crash report printed into the log
		if level, ok := reportBanner(h.msg[i:]); ok {
			p.report = true
			p.r.reset()
			p.r.errorReport = level == oplog.LevelError
			return
		}
	}
	if body, ok := stderrBody(h); ok {
		p.stderr = true
		if h.logger == "STDERR" && body != "" {
			p.e.rec.Text = oplog.ClipText(body) // the name says STDERR; the printing method's tag is noise
		}
		if isJavaException(body) {
			p.exc = body
			if strings.Contains(h.msg, "[java.lang.ThreadGroup:uncaughtException:") {
				// The JVM's handler of an exception no one caught: the
				// thread died of it; the game's main threads take the
				// game with them.
				p.e.rec.Level = max(p.e.rec.Level, oplog.LevelError)
				if h.thread == "main" || h.thread == "Server thread" || h.thread == "Render thread" {
					p.e.rec.Level = oplog.LevelFatal
				}
			}
		}
	}
}

// joinStack adds to the held entry a line of its stack that came with a
// header of its own, in the same thread: an exception printed one log
// call per line, through System.err ("[STDERR]: \tat ...") or by a logger
// that prefixes every line ("[Render thread/FATAL]: \tat ..."). The
// exception's own line joins a message of the same level that has no
// stack yet ("Unreported exception thrown!"), as it does when printed
// without a header. An exception printed that way is an error whatever
// log4j says. It returns false when the line is not one, or the entry is
// full.
func (p *log4jParser) joinStack(h *log4jHeader, end int64) bool {
	if p.pmmp && h.pmmp && h.level < p.level {
		return p.pmmpLine(h.msg, end) // version 3's frames, a header each (at DEBUG)
	}
	body, frame := h.msg, false
	if p.stderr {
		b, ok := stderrBody(h)
		if !ok || !isJavaContinuation(b) {
			return false
		}
		body, frame = b, true
	} else if h.level == p.level {
		switch {
		case javaStackLine(body) || javaFrameLine(body): // Bukkit's System.err, its tabs trimmed: "[WARN]: at …"
			if p.e.lines == 0 && p.exc == "" && isJavaException(p.e.rec.Text) {
				p.exc = p.e.rec.Text // the message is the exception: its frames follow
			}
			frame = p.exc != "" || p.e.lines > 0
		case p.e.lines == 0 && p.exc == "" && h.level >= oplog.LevelError && isJavaException(body) && !isJavaException(p.e.rec.Text):
			if !p.e.add(body, end) {
				return false
			}
			p.exc = body
			return true
		}
	}
	if !frame {
		return false
	}
	if p.e.lines == 0 && p.exc != "" && !p.e.add(p.exc, p.e.end) {
		return false
	}
	if !p.e.add(body, end) {
		return false
	}
	p.e.rec.Level = max(p.e.rec.Level, oplog.LevelError)
	return true
}

func (p *log4jParser) take(out []Entry) []Entry {
	if !p.e.held {
		return out
	}
	if p.report {
		p.r.finish(&p.e)
		return p.e.take(out)
	}
	if p.e.rec.Level == oplog.LevelWarn && thrownWithFrames(p.e.rec.Text, p.e.stack) {
		// A warning with an exception and its frames under it: an error,
		// as the same exception on the header's line is (joinStack).
		p.e.rec.Level = oplog.LevelError
	}
	if p.logger != "" || p.marker != "" {
		var o object
		if p.logger != "" {
			o.str("thread", p.thread)
		}
		o.str("marker", p.marker)
		p.e.rec.Data = o.bytes()
	}
	return p.e.take(out)
}

// log4jHeader is a parsed header line.
type log4jHeader struct {
	clock              bool // hour..ns are set: a time of day
	date               bool // t is set: a full date and time
	hour, min, sec, ns int
	t                  time.Time
	thread             string
	level              oplog.Level
	logger, marker     string
	msg                string
	word               string // the level as written
	pmmp               bool   // PocketMine-MP's: the date before it
}

// parseLog4jHeader reads the header forms listed on log4jParser.
// A date without a zone is in loc.
func parseLog4jHeader(s string, loc *time.Location) (h log4jHeader, ok bool) {
	if len(s) > 12 && s[10] == ' ' && s[11] == '[' && s[4] == '-' && s[7] == '-' && isDigit(s[0]) {
		return parsePMMPHeader(s, loc)
	}
	k := strings.IndexByte(s, ']')
	if k < 9 || !isDigit(s[1]) {
		return h, false
	}
	stamp, rest := s[1:k], s[k+1:]
	if hh, mm, ss, ns, n, ok := parseClock(stamp); ok {
		h.clock, h.hour, h.min, h.sec, h.ns = true, hh, mm, ss, ns
		if n < len(stamp) {
			// Paper's console: "[12:34:56 INFO]: msg".
			lvl, ok := levelWord(stamp[n+1:])
			if stamp[n] != ' ' || !ok || !strings.HasPrefix(rest, ": ") {
				return h, false
			}
			h.level, h.msg = lvl, rest[2:]
			return h, true
		}
	} else if t, n, ok := parseISO(stamp, loc); ok && n == len(stamp) {
		h.date, h.t = true, t
	} else if t, ok := parseForgeStamp(stamp, loc); ok {
		h.date, h.t = true, t
	} else {
		return h, false
	}
	if !strings.HasPrefix(rest, " [") {
		return h, false
	}
	rest = rest[2:]
	k = strings.IndexByte(rest, ']')
	if k < 0 {
		return h, false
	}
	tl := rest[:k]
	slash := strings.LastIndexByte(tl, '/')
	if slash < 0 {
		return h, false
	}
	h.word = tl[slash+1:]
	if h.level, ok = levelWord(h.word); !ok {
		return h, false
	}
	h.thread, rest = tl[:slash], rest[k+1:]
	switch {
	case strings.HasPrefix(rest, ": "):
		h.msg = rest[2:]
	case rest == "" || rest == ":":
	case strings.HasPrefix(rest, " ("): // Fabric: " (Logger) msg"
		k := strings.IndexByte(rest, ')')
		if k < 0 {
			return h, false
		}
		h.logger, h.msg = rest[2:k], strings.TrimPrefix(rest[k+1:], " ")
	case strings.HasPrefix(rest, " ["): // Forge: " [logger/MARKER]: msg"
		k := strings.Index(rest, "]:")
		if k < 0 {
			return h, false
		}
		lm := rest[2:k]
		if i := strings.LastIndexByte(lm, '/'); i >= 0 {
			h.logger, h.marker = lm[:i], lm[i+1:]
		} else {
			h.logger = lm
		}
		h.msg = strings.TrimPrefix(rest[k+2:], " ")
	default:
		h.msg = strings.TrimPrefix(rest, " ")
	}
	return h, true
}

var months = [...]string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// parseForgeStamp reads Forge's "08Aug2023 16:21:34.441" (and, in
// locales that abbreviate with a dot, "08Aug.2023 ...") in loc.
func parseForgeStamp(s string, loc *time.Location) (time.Time, bool) {
	i := 0
	for i < len(s) && i < 2 && isDigit(s[i]) {
		i++
	}
	day, ok := atoi(s[:i])
	if !ok || day < 1 || day > 31 || i+3 > len(s) {
		return time.Time{}, false
	}
	mon := 0
	for m, name := range months {
		if strings.EqualFold(s[i:i+3], name) {
			mon = m + 1
			break
		}
	}
	if mon == 0 {
		return time.Time{}, false
	}
	i += 3
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] == '.') { // "Sept", "Aug."
		i++
	}
	if i+5 > len(s) || s[i+4] != ' ' {
		return time.Time{}, false
	}
	y, ok := four(s[i:])
	if !ok || y < minYear || y > maxYear {
		return time.Time{}, false
	}
	h, m, sec, ns, n, ok := parseClock(s[i+5:])
	if !ok || i+5+n != len(s) {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(mon), day, h, m, sec, ns, loc), true
}

// stderrBody returns what a program printed to System.err, from a message
// "[STDERR]: text" (Forge's older "[STDERR]: [java.lang.Throwable:printStackTrace:643]: text"),
// or a message of Forge's logger STDERR ("[main/INFO] [STDERR/]: [java.lang.ThreadGroup:uncaughtException:1052]: text").
func stderrBody(h *log4jHeader) (string, bool) {
	body, ok := h.msg, h.logger == "STDERR" // Forge's logger column: "[main/INFO] [STDERR/]: "
	if !ok {
		body, ok = strings.CutPrefix(h.msg, "[STDERR]: ")
	}
	if !ok {
		body, ok = strings.CutPrefix(h.msg, "[STDERR] ")
	}
	if !ok {
		return "", false
	}
	if strings.HasPrefix(body, "[") {
		if i := strings.Index(body, "]: "); i > 0 && !strings.Contains(body[:i], " ") {
			body = body[i+3:]
		}
	}
	return body, true
}

// thrownWithFrames reports a record that is a Java exception's line (its
// text's, or its stack's first), then its frames.
func thrownWithFrames(text string, stack []byte) bool {
	first, rest, _ := bytes.Cut(stack, []byte("\n"))
	if isJavaException(text) && javaFrameLine(trimLeft(string(first))) {
		return true
	}
	second, _, _ := bytes.Cut(rest, []byte("\n"))
	return isJavaException(string(first)) && javaFrameLine(trimLeft(string(second)))
}

// isJavaContinuation reports a line of a Java stack trace after its first:
// "\tat ...", "Caused by: ...", "\t... 12 more", "\tSuppressed: ...".
func isJavaContinuation(s string) bool {
	t := trimLeft(s)
	return strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "Caused by: ") ||
		strings.HasPrefix(t, "Suppressed: ") || strings.HasPrefix(t, "... ") && strings.HasSuffix(t, " more")
}

// javaStackLine reports a line of a Java stack trace after its first as
// printed, indented: "\tat pkg.Class.method(File.java:12)", "\t... 12
// more", or one that starts "Caused by: " or "Suppressed: ". A message
// that starts "at least" is none.
func javaStackLine(s string) bool {
	t := trimLeft(s)
	switch {
	case strings.HasPrefix(t, "Caused by: "), strings.HasPrefix(t, "Suppressed: "):
		return true
	case len(t) == len(s): // not indented
		return false
	case strings.HasPrefix(t, "at "):
		return javaFrameLine(t)
	}
	return strings.HasPrefix(t, "... ") && strings.HasSuffix(t, " more")
}

// javaFrameLine reports a frame's line as a JVM prints it, past its
// indentation: "at pkg.Class.method(File.java:12)", then perhaps the jar
// ("~[server.jar:?]"), Forge's transformers ("{re:mixin}").
func javaFrameLine(t string) bool {
	if !strings.HasPrefix(t, "at ") {
		return false
	}
	open := strings.IndexByte(t, '(')
	if open <= 3 || strings.ContainsAny(t[3:open], " \t") {
		return false // "at least …": a method's name has no space
	}
	return strings.HasSuffix(t, ")") || strings.Contains(t, ") ~[") || strings.Contains(t, ") [") || strings.Contains(t, ") {")
}

// isJavaException reports a Java exception's first line:
// "java.lang.NullPointerException: ...", "net.minecraft.ReportedException".
func isJavaException(s string) bool {
	head := s
	if i := strings.IndexByte(s, ':'); i >= 0 {
		head = s[:i]
	}
	if strings.ContainsAny(head, " \t") || !strings.Contains(head, ".") {
		return false
	}
	return strings.HasSuffix(head, "Exception") || strings.HasSuffix(head, "Error") || strings.HasSuffix(head, "Throwable")
}

// crashHandler reports the line of Minecraft's crash handler that the
// crash's stack follows: the server's "Encountered an unexpected
// exception" (its "Stopping server" comes after it), the client's
// "Reported exception thrown!" and "Unreported exception thrown!" (its main
// loop's, which then shows the crash report and stops), its "Game
// crashed!" as it prints to stdout, Forge's (1.7 to 1.12) "Fatal errors
// were detected during the transition from … Loading cannot continue",
// the server's "Failed to load datapacks, can't proceed with server load"
// (logged WARN, and the server stops). The game stops there: fatal,
// whatever level log4j gave it.
func crashHandler(msg string) bool {
	return strings.HasPrefix(msg, "Encountered an unexpected exception") || strings.Contains(msg, "#@!@# Game crashed!") ||
		strings.HasPrefix(msg, "Fatal errors were detected during the transition from ") && strings.HasSuffix(msg, "Loading cannot continue") ||
		strings.HasPrefix(msg, "Failed to load datapacks, can't proceed with server load") ||
		msg == "Reported exception thrown!" || msg == "Unreported exception thrown!"
}
