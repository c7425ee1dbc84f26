package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// logcatParser reads Android's logcat, as `adb logcat` prints it in each of
// its formats and Android Studio copies it:
//
//	02-14 15:45:07.464 28825 28901 F libc    : Fatal signal 11 (SIGSEGV), …   (threadtime, adb's default; a year with -v year)
//	12-27 11:29:53.838 E/AndroidRuntime(30243): FATAL EXCEPTION: UnityMain  (time; Eclipse's "12-27 …838: E/…")
//	E/CRASH   (11440): signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), …         (brief)
//	A/libc: Fatal signal 11 (SIGSEGV), code 1, fault addr 0x0 in tid 15076 (tag)
//	2019-05-01 10:49:55.458 8741-8741/? A/DEBUG: backtrace:                  (Android Studio, before 2022)
//	2025-06-21 19:12:09.545 19606-19606 Tag  com.example.game  A  msg        (Android Studio's logcat)
//
// The letter is the level (V and D debug, I info, W warn, E error, F and A
// fatal), the tag the record's name. Logcat prints each line of a message
// with the message's header (Android Studio indents the lines after the
// first instead), so the lines of one thread and tag, one after another,
// are read as the engine printed them, by the generic parser and the
// runtimes' readers (a Python traceback of Kivy's "I/python", a Unity
// exception's frames), and every record they make is the tag's, at the
// letter's level or above. Two reports are Android's own, each one fatal
// record:
//   - a Java exception that ended the app: AndroidRuntime's "FATAL
//     EXCEPTION: GLThread 556", the process, the exception and its frames;
//     the exception its text;
//   - a native crash: libc's "Fatal signal 11 (SIGSEGV)…" (after the abort
//     message libc logs first: a failed assertion, an uncaught C++
//     exception), then the tombstone debuggerd logs (tag DEBUG, or
//     crash_dump64, from another process; Unity's own under CRASH): the
//     build, the thread, the signal, "Abort message: '…'" (then its text:
//     an engine's own words, "Script error exception: …"), registers and
//     the "#00 pc 0001e0b0  /system/lib64/libc.so (abort+120)" frames.
type logcatParser struct {
	clk    *clock
	inner  Parser       // the parser of the message being read: by its tag, an engine's, else generic
	gen    Parser       // the generic parser beneath the runtimes'
	unity  Parser       // Unity's, for its tag "Unity"
	godot  Parser       // Godot's, for its tag "godot"
	fed    []fedLine    // the lines fed to inner whose entries have not come out
	key    string       // the thread and tag of the message being read: its lines go on with it
	col    int          // where the message begins in the last line with a header
	h      logcatHeader // the last line's header
	java   bool         // the message is AndroidRuntime's FATAL EXCEPTION, read into e
	anr    bool         // the message is ActivityManager's ANR report, read into e
	anrApp string       // the package it names
	exc    bool         // its exception's line came
	info   object       // its thread and process, its data
	e      entry
	nat    nativeCrash
	end    int64 // where the last line ended
	runs   logcatLaunches
	seps   []heldLine // separators waiting for the next line's time
}

// heldLine is a line held, and where it ends.
type heldLine struct {
	text string
	end  int64
}

// nativeCrash is a native crash's report being read. debuggerd writes the
// tombstone from another process a moment after libc's line, and other
// processes' lines come between its own: they are read meanwhile, and
// their records given out after the crash's, so that no record given out
// is past a line the parser still holds (a follower resumes after the
// last record stored).
type nativeCrash struct {
	open           bool
	e              entry
	signal, banner bool    // its "Fatal signal" line, its tombstone's banner came
	app, pid       string  // the process that crashed, as its lines name it
	last           bool    // the last line was its own: an unheaded line goes on with it
	others         int     // lines of other tags since its last
	held           []Entry // their records
}

// maxTombstoneGap is how many lines of other tags may come between two of
// a native crash's before it is taken as complete.
const maxTombstoneGap = 64

// fedLine is a line fed to the inner parser, with its header.
type fedLine struct {
	end int64
	h   logcatHeader
}

// logcatHeader is what logcat prints before a line.
type logcatHeader struct {
	t     time.Time // zero in the brief and tag formats
	level oplog.Level
	tag   string
	proc  string // the process and thread, as printed
}

func newLogcat(c *clock) *logcatParser {
	g := withRuntimes(newGeneric(c, "generic"))
	return &logcatParser{clk: c, inner: g, gen: g,
		unity: withRuntimes(&unityParser{clk: c}), godot: withRuntimes(&godotParser{})}
}

// parserFor returns the parser of a tag's messages: Unity's and Godot's
// print as they do in their own logs (a Debug.Log's frames and its
// "(Filename: …)", an error's "at:" line).
func (p *logcatParser) parserFor(tag string) Parser {
	switch tag {
	case "Unity":
		return p.unity
	case "godot":
		return p.godot
	}
	return p.gen
}

func (p *logcatParser) Name() string { return "logcat" }

// ownReports: every report is read beneath the logcat's header, by the
// parsers within it.
func (*logcatParser) ownReports() []rtKind {
	kinds := make([]rtKind, 0, numKinds)
	for k := rtPython; k < numKinds; k++ {
		kinds = append(kinds, k)
	}
	return kinds
}

func (p *logcatParser) Flush() []Entry {
	return p.closeNative(p.close(p.takeSeparators(time.Time{})), p.end)
}

func (p *logcatParser) Line(line string, end int64) []Entry {
	if len(p.seps) > 0 {
		if h, _, ok := parseLogcat(trimRight(line), p.clk); ok {
			return append(p.takeSeparators(h.t), p.read(line, end)...)
		}
	}
	return p.read(line, end)
}

// takeSeparators gives out the separators held, at t.
func (p *logcatParser) takeSeparators(t time.Time) []Entry {
	var out []Entry
	for _, s := range p.seps {
		out = append(out, Entry{Record: oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Time: t, Text: s.text}, End: s.end})
	}
	p.seps = p.seps[:0]
	return out
}

// read reads a line.
func (p *logcatParser) read(line string, end int64) []Entry {
	prev := p.end
	p.end = end
	s := trimRight(line)
	h, body, ok := parseLogcat(s, p.clk)
	if !ok && s != "" && (s[0] == ' ' || s[0] == '\t') && (p.key != "" || p.nat.last) {
		// Android Studio's lines after a message's first: indented, past
		// the header's column or by four spaces.
		switch {
		case len(s) > p.col && strings.TrimLeft(s[:p.col], " ") == "":
			body = s[p.col:]
		case strings.HasPrefix(s, "    "):
			body = s[4:]
		default:
			body = s
		}
		if p.nat.last {
			p.nat.add(body, end)
			return nil
		}
		return p.more(nil, body, end)
	}
	if ok {
		p.col = len(s) - len(body)
		if p.nat.open && tombstoneTag(h.tag) && !p.nat.another(body) {
			p.nat.add(body, end)
			p.nat.last, p.nat.others = true, 0
			return nil
		}
		if nativeCrashStart(h, body) {
			out := p.closeNative(p.close(nil), prev) // all but this line, which begins the next
			p.nat.begin(h, body, end)
			return out
		}
	}
	p.nat.last = false
	var out []Entry
	m, marked := p.runs.launch(h, body)
	if !marked {
		m, marked = p.runs.died(h, body)
	}
	if ok && marked {
		// A launch of the game, or its process's death: what came before
		// is the run's that it starts or ends after; the marker ends where
		// it does, before this line.
		out = append(p.close(nil), Entry{Record: m, End: prev})
	}
	out = append(out, p.line(h, ok, s, body, end)...)
	if !p.nat.open {
		return out
	}
	p.nat.held = append(p.nat.held, out...)
	if p.nat.others++; p.nat.others > maxTombstoneGap {
		return p.closeNative(p.close(nil), p.end) // every line read, this one too, given out
	}
	return nil
}

// line reads a line that is no native crash's: with a header (ok) or
// without one (s).
func (p *logcatParser) line(h logcatHeader, ok bool, s, body string, end int64) []Entry {
	switch {
	case !ok && s == "" && p.key != "":
		return p.more(nil, "", end) // a blank line within a message, or a double-spaced copy
	case !ok && strings.HasPrefix(s, "--------- ") && !p.nat.open:
		// logcat's "--------- beginning of main", with no time: held until
		// the next line, whose time it takes (adb prints it as it starts,
		// before the device's log from its start).
		out := p.close(nil)
		p.inner = p.gen
		p.seps = append(p.seps, heldLine{s, end})
		return out
	case !ok:
		// A line of no logcat's: the separators held before it go first,
		// without the time only a logcat line would give them.
		out := p.close(p.takeSeparators(time.Time{}))
		p.inner = p.gen
		return p.feed(out, logcatHeader{level: oplog.LevelInfo}, s, end)
	}
	var out []Entry
	if key := h.proc + "\x00" + h.tag + "\x00" + string(rune('0'+h.level)); key != p.key {
		out = p.close(out)
		p.key, p.inner = key, p.parserFor(h.tag)
		if thread, ok := strings.CutPrefix(body, "FATAL EXCEPTION: "); ok && h.tag == "AndroidRuntime" {
			p.java, p.exc = true, false
			p.info = object{}
			p.info.str("thread", strings.TrimSpace(thread))
			p.e.start(body, oplog.LevelFatal, end)
			p.e.rec.Time = h.t
			p.e.setName(h.tag)
			return out
		}
	}
	p.h = h
	if h.tag == "ActivityManager" && strings.HasPrefix(body, "ANR in ") {
		return p.startANR(p.close(out), h, body, end)
	}
	return p.more(out, body, end)
}

// more adds a line of the message being read.
func (p *logcatParser) more(out []Entry, body string, end int64) []Entry {
	if p.java {
		p.javaLine(body, end)
		return out
	}
	if p.anr {
		return p.anrLine(out, body, end)
	}
	p.fed = append(p.fed, fedLine{end, p.h})
	return p.mapped(out, p.inner.Line(body, end))
}

// feed hands a line without a header to the generic parser.
func (p *logcatParser) feed(out []Entry, h logcatHeader, s string, end int64) []Entry {
	p.fed = append(p.fed, fedLine{end, h})
	return p.mapped(out, p.inner.Line(s, end))
}

// mapped gives the inner parser's entries their first line's header: its
// time, its tag as their name, its level when higher.
func (p *logcatParser) mapped(out, es []Entry) []Entry {
	for _, e := range es {
		var h logcatHeader
		found := false
		for len(p.fed) > 0 && p.fed[0].end <= e.End {
			if !found {
				h, found = p.fed[0].h, true
			}
			p.fed = p.fed[1:]
		}
		r := &e.Record
		if found {
			if !h.t.IsZero() {
				r.Time = h.t
			}
			if r.Name == "" && h.tag != "" && len(h.tag) <= oplog.MaxLabelBytes {
				r.Name = h.tag
			}
			if r.Level <= oplog.LevelInfo {
				r.Level = h.level // the letter, unless the line said worse (a trace, "WARNING: …")
			} else {
				r.Level = max(r.Level, h.level)
			}
		}
		out = append(out, e)
	}
	return out
}

// close completes the message being read.
func (p *logcatParser) close(out []Entry) []Entry {
	p.key = ""
	if p.java || p.anr {
		p.java, p.anr = false, false
		p.e.rec.Data = p.info.bytes()
		return p.e.take(out)
	}
	return p.mapped(out, p.inner.Flush())
}

// closeNative gives out the native crash being read, then the records
// held while it was and out (every line before upto completed), all ending
// at upto: a follower stores them in one transaction, so that none is
// stored past a line that no record given out holds yet.
func (p *logcatParser) closeNative(out []Entry, upto int64) []Entry {
	n := &p.nat
	if !n.open {
		return out
	}
	n.e.end = max(n.e.end, upto)
	if !p.runs.isGame(n.app, n.pid) {
		n.e.rec.Level = oplog.LevelError // another app's crash, not the game's
	}
	all := n.e.take(nil)
	all = append(append(all, n.held...), out...)
	for i := range all {
		all[i].End = n.e.end // stored together: none given out past a line not yet stored
	}
	n.open, n.held, n.last = false, nil, false
	return all
}

// javaLine reads a line of a Java crash: the process, the exception (the
// record's text), its message's other lines and its frames.
func (p *logcatParser) javaLine(body string, end int64) {
	t := strings.TrimSpace(body)
	switch {
	case !p.exc && strings.HasPrefix(t, "Process: "):
		p.info.str("process", t[len("Process: "):])
		if app, pid, _ := strings.Cut(t[len("Process: "):], ", PID: "); !p.runs.isGame(app, pid) {
			p.e.rec.Level = oplog.LevelError // another app's crash, not the game's
		}
		p.e.end = end
	case !p.exc && t == "":
		p.e.end = end
	case !p.exc:
		p.exc = true
		p.e.rec.Text = oplog.ClipText(t)
		if !strings.Contains(t, "*** *** ***") { // Unity's native crash, thrown as a java.lang.Error: its signal names it
			p.e.add(t, end)
		}
	case t == "":
		p.e.end = end
	default:
		if strings.Contains(p.e.rec.Text, "*** *** ***") && strings.HasPrefix(t, "signal ") {
			p.e.rec.Text = oplog.ClipText(t) // Unity's native crash, thrown as a java.lang.Error
		}
		p.e.add(body, end)
	}
}

// begin starts a native crash's report with its first line.
func (n *nativeCrash) begin(h logcatHeader, body string, end int64) {
	t := strings.TrimSpace(body)
	*n = nativeCrash{open: true, e: n.e, last: true}
	text := t
	if _, msg, ok := strings.Cut(t, `abort_message: assertion "`); ok {
		text = strings.TrimSuffix(msg, `" failed`) // "terminating with uncaught exception of type std::bad_alloc: …"
	}
	n.e.start(text, oplog.LevelFatal, end)
	n.e.rec.Time = h.t
	n.e.setName(h.tag)
	n.mark(t)
}

// add reads a line of a native crash's report: its abort message becomes
// the text, as does its signal's line after a banner. Its lines after the
// first are its stack: libc's line alone is bare, and the tombstone that
// follows it replaces it as the crash.
func (n *nativeCrash) add(body string, end int64) {
	t := strings.TrimSpace(body)
	if t == "" {
		n.e.end = end
		return
	}
	switch {
	case strings.HasPrefix(t, "Abort message: '"):
		n.e.rec.Text = oplog.ClipText(strings.TrimSuffix(t[len("Abort message: '"):], "'"))
	case strings.HasPrefix(t, "signal ") && strings.HasPrefix(n.e.rec.Text, "*** *** ***"):
		n.e.rec.Text = oplog.ClipText(t)
	}
	n.mark(t)
	n.e.add(body, end)
}

// mark notes the lines that begin a report.
func (n *nativeCrash) mark(t string) {
	n.signal = n.signal || strings.HasPrefix(t, "Fatal signal ")
	n.banner = n.banner || strings.HasPrefix(t, "*** *** ***")
	n.app, n.pid = crashedProcess(t, n.app, n.pid)
}

// another reports a line of a tombstone's tags that begins another crash.
func (n *nativeCrash) another(body string) bool {
	t := strings.TrimSpace(body)
	return n.signal && strings.HasPrefix(t, "Fatal signal ") || n.banner && strings.HasPrefix(t, "*** *** ***")
}

// nativeCrashStart reports the first line of a native crash: libc's fatal
// signal or the abort message it logs before it, a tombstone's banner or
// signal line when the copy begins there, Unity's own crash handler's.
func nativeCrashStart(h logcatHeader, body string) bool {
	t := strings.TrimSpace(body)
	switch h.tag {
	case "libc":
		return h.level >= oplog.LevelFatal || strings.HasPrefix(t, "Fatal signal ")
	case "DEBUG", "CRASH", "crash_dump32", "crash_dump64":
		return strings.HasPrefix(t, "*** *** ***") || strings.HasPrefix(t, "signal ") || strings.HasPrefix(t, "Build fingerprint: ")
	}
	return false
}

// tombstoneTag reports the tags a native crash's report is logged under:
// libc's, debuggerd's (DEBUG; crash_dump since Android 8), Unity's.
func tombstoneTag(tag string) bool {
	switch tag {
	case "libc", "DEBUG", "CRASH", "crash_dump32", "crash_dump64":
		return true
	}
	return false
}

// parseLogcat reads a logcat header at the start of s: the header and the
// message after it.
func parseLogcat(s string, c *clock) (h logcatHeader, body string, ok bool) {
	rest := s
	if s != "" && isDigit(s[0]) {
		t, n, ok := logcatTime(s, c)
		if !ok {
			return h, "", false
		}
		h.t, rest = t, strings.TrimPrefix(s[n:], ":")
		rest = strings.TrimLeft(rest, " ")
		if proc, after, ok := cutProcess(rest); ok {
			h.proc = proc
			if after, ok := strings.CutPrefix(after, "/"); ok { // Android Studio's "8741-8741/com.game"
				_, after, _ = strings.Cut(after, " ")
				return letterTag(h, after)
			}
			return studioColumns(h, after)
		}
		if pid, after, ok := cutDigits(rest); ok { // threadtime: "28825 28901 F libc    : msg"
			tid, after, ok := cutDigits(strings.TrimLeft(after, " "))
			if !ok || len(after) < 4 || after[0] != ' ' || after[2] != ' ' {
				return h, "", false
			}
			lv, ok := logcatLevel(after[1])
			tag, msg, found := strings.Cut(after[3:], ": ")
			if !found {
				tag, found = strings.CutSuffix(after[3:], ":")
			}
			if !ok || !found {
				return h, "", false
			}
			h.level, h.tag, h.proc = lv, strings.TrimSpace(tag), pid+" "+tid
			return h, msg, true
		}
	}
	return letterTag(h, rest)
}

// letterTag reads "E/Tag(1234): msg" and "E/Tag: msg" (the colon may be
// Android Studio's small one, "﹕").
func letterTag(h logcatHeader, s string) (logcatHeader, string, bool) {
	if len(s) < 4 || s[1] != '/' {
		return h, "", false
	}
	lv, ok := logcatLevel(s[0])
	if !ok {
		return h, "", false
	}
	rest := s[2:]
	i := strings.Index(rest, ": ")
	j := strings.Index(rest, "﹕")
	n := 2
	if j >= 0 && (i < 0 || j < i) {
		i, n = j, len("﹕")
	}
	if i < 0 {
		if !strings.HasSuffix(rest, ":") {
			return h, "", false
		}
		i, n = len(rest)-1, 1
	}
	tag, msg := rest[:i], rest[i+n:]
	if n != 2 {
		msg = strings.TrimPrefix(msg, " ") // after "﹕" or a ':' ending the line
	}
	if k := strings.LastIndexByte(tag, '('); k >= 0 && strings.HasSuffix(tag, ")") {
		pid := strings.TrimSpace(tag[k+1 : len(tag)-1])
		if _, after, ok := cutDigits(pid); !ok || after != "" {
			return h, "", false
		}
		h.proc, tag = pid, tag[:k]
	} else if h.t.IsZero() && strings.IndexByte(tag, ' ') >= 0 {
		return h, "", false // "I/O error: …" is no tag
	}
	h.level, h.tag = lv, strings.TrimSpace(tag)
	return h, msg, true
}

// studioColumns reads the columns of Android Studio's logcat after the
// process and thread: the tag, the package, the level letter, the message.
func studioColumns(h logcatHeader, s string) (logcatHeader, string, bool) {
	fields := 0
	for i := 0; i+3 < len(s); i++ {
		if s[i] != ' ' || s[i+1] == ' ' {
			continue
		}
		if lv, ok := logcatLevel(s[i+1]); ok && s[i+2] == ' ' && s[i+3] == ' ' && fields > 0 {
			tag, _, _ := strings.Cut(strings.TrimSpace(s[:i]), " ")
			h.level, h.tag = lv, tag
			return h, strings.TrimLeft(s[i+3:], " "), true
		}
		fields++
	}
	return h, "", false
}

// cutProcess reads Android Studio's "19606-19606": the process and thread.
func cutProcess(s string) (string, string, bool) {
	_, after, ok := cutDigits(s)
	if !ok || !strings.HasPrefix(after, "-") {
		return "", "", false
	}
	_, after2, ok := cutDigits(after[1:])
	if !ok || after2 == "" || (after2[0] != ' ' && after2[0] != '/') {
		return "", "", false
	}
	return s[:len(s)-len(after2)], strings.TrimLeft(after2, " "), true
}

// cutDigits reads the digits s starts with.
func cutDigits(s string) (string, string, bool) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], s[i:], i > 0
}

// logcatTime reads "MM-DD HH:MM:SS.mmm", or with the year before it: the
// time and the bytes read. Without a year, the file's.
func logcatTime(s string, c *clock) (time.Time, int, bool) {
	if t, n, ok := parseISO(s, c.location()); ok {
		return t, n, true
	}
	if len(s) < 18 || s[2] != '-' || s[5] != ' ' {
		return time.Time{}, 0, false
	}
	mo, ok1 := two(s, 0)
	d, ok2 := two(s, 3)
	hh, mi, sec, ns, n, ok := parseClock(s[6:])
	if !ok1 || !ok2 || !ok || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return time.Time{}, 0, false
	}
	return time.Date(c.date().Year(), time.Month(mo), d, hh, mi, sec, ns, c.location()), 6 + n, true
}

// logcatLevel is the level a logcat priority letter says.
func logcatLevel(b byte) (oplog.Level, bool) {
	switch b {
	case 'V', 'D':
		return oplog.LevelDebug, true
	case 'I':
		return oplog.LevelInfo, true
	case 'W':
		return oplog.LevelWarn, true
	case 'E':
		return oplog.LevelError, true
	case 'F', 'A':
		return oplog.LevelFatal, true
	}
	return 0, false
}
