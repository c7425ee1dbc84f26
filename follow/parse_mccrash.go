package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// reportBanner reports the first line of a report of Minecraft's kind:
// a crash report ("---- Minecraft Crash Report ----", a server fork's
// "---- Mohist Crash Report ----"), fatal; the client's "---- Minecraft Network Protocol
// Error Report ----", written when a packet fails and the client only
// disconnects, an error.
func reportBanner(s string) (oplog.Level, bool) {
	if !strings.HasPrefix(s, "---- ") || len(s) > 80 {
		return 0, false
	}
	switch {
	case strings.HasSuffix(s, " Crash Report ----"):
		return oplog.LevelFatal, true
	case strings.HasSuffix(s, " Error Report ----"):
		return oplog.LevelError, true
	}
	return 0, false
}

// fmtMcCrash is auto detection's name for a crash report, which its first
// line proves; no line scores for it.
const fmtMcCrash = 100

// mcCrashParser reads Minecraft crash reports (crash-reports/crash-*.txt):
//
//	---- Minecraft Crash Report ----
//	// witty comment
//
//	Time: 2023-12-28 13:21:22
//	Description: Rendering overlay
//
//	java.lang.RuntimeException: ...
//		at ...
//	Caused by: ...
//
//	A detailed walkthrough of the error, its code path and all known details is as follows:
//	-- Head --
//	Thread: Render thread
//	...
//	-- System Details --
//	Details:
//		Minecraft Version: 1.20.1
//
// A report is one fatal record: its time the report's Time, its text the
// Description and the exception, its stack the exception's (the first
// stack, with its "Caused by:" chains), its name the thread, and its
// data the Minecraft and Java versions, the loader and the number of mods.
// The report ends at the next banner or when the file is quiet.
type mcCrashParser struct {
	clk  *clock
	e    entry
	r    mcReport
	open bool // a report is held
}

func (p *mcCrashParser) Name() string { return "mccrash" }

func (p *mcCrashParser) Line(line string, end int64) []Entry {
	s := trimRight(line)
	var out []Entry
	level, banner := reportBanner(s)
	if banner || !p.open {
		out = p.take(nil)
		p.open = true
		p.r.reset()
		if !banner {
			level = oplog.LevelFatal // a report entered past its banner
		}
		p.e.start("", level, end)
		p.r.errorReport = level == oplog.LevelError
		if banner {
			return out
		}
	}
	p.r.line(s, p.clk.location())
	p.e.end = end
	return out
}

func (p *mcCrashParser) Flush() []Entry { return p.take(nil) }

func (p *mcCrashParser) take(out []Entry) []Entry {
	if !p.open {
		return out
	}
	p.open = false
	p.r.finish(&p.e)
	if !p.r.t.IsZero() {
		p.e.rec.Time = p.r.t
	}
	p.e.setName(p.r.thread)
	return p.e.take(out)
}

// mcReport reads a crash report's lines, in a file of its own or printed
// into latest.log.
type mcReport struct {
	t                time.Time
	desc, exc        string
	excSure          bool // exc is an exception's first line, not just the last unindented line
	phase            int  // mcBefore, mcStack, mcAfter or mcSystem
	stack            []byte
	lines            int
	thread           string
	mc, java, loader string
	mods, modsIndent int // mods counted; the indent of the list's lines, -1 before the list
	inMods           bool
	listKeyIndent    int
	stackFull        bool
	errorReport      bool // an error report's (reportBanner), not a crash's: level error
}

const (
	mcBefore = iota // before the exception's frames
	mcStack         // in the first stack
	mcAfter         // in the sections after it
	mcSystem        // in -- System Details --
)

func (r *mcReport) reset() {
	*r = mcReport{stack: r.stack[:0], mods: -1, modsIndent: -1}
}

// line takes one line of the report (trailing spaces trimmed), loc the
// zone of its Time.
func (r *mcReport) line(s string, loc *time.Location) {
	t := strings.TrimSpace(s)
	switch r.phase {
	case mcBefore:
		r.before(s, t, loc)
	case mcStack:
		if t == "" || strings.HasPrefix(t, "A detailed walkthrough") || strings.HasPrefix(t, "-- ") || !isJavaContinuation(t) && indented(s) {
			r.phase = mcAfter
			return
		}
		r.add(s)
	case mcAfter:
		if v, ok := strings.CutPrefix(t, "Thread: "); ok && r.thread == "" {
			r.thread = v
		} else if t == "-- System Details --" {
			r.phase = mcSystem
		}
	case mcSystem:
		r.system(s, t)
	}
}

// before reads the lines before the first stack: Time, Description, and
// the exception, whose stack starts at the first frame.
func (r *mcReport) before(s, t string, loc *time.Location) {
	switch {
	case t == "" || strings.HasPrefix(t, "//"):
	case strings.HasPrefix(s, "Time: ") && r.t.IsZero():
		r.t, _ = parseCrashTime(s[len("Time: "):], loc)
	case strings.HasPrefix(s, "Description: ") && r.desc == "":
		r.desc = s[len("Description: "):]
	case strings.HasPrefix(t, "at ") && r.exc != "":
		r.phase = mcStack
		r.add(r.exc)
		r.add(s)
	case strings.HasPrefix(t, "A detailed walkthrough"):
		r.phase = mcAfter
	case r.desc != "" && !r.excSure && !indented(s):
		r.exc, r.excSure = t, isJavaException(t)
	}
}

// add appends a stack line, up to the entry's limits.
func (r *mcReport) add(s string) {
	if r.stackFull || len(r.stack)+len(s)+1 > maxEntryStack || r.lines >= maxEntryLines {
		r.stackFull = true
		return
	}
	if len(r.stack) > 0 {
		r.stack = append(r.stack, '\n')
	}
	r.stack = append(r.stack, s...)
	r.lines++
}

// system reads -- System Details --: versions, the loader, the mod list's length.
func (r *mcReport) system(s, t string) {
	ind := len(s) - len(trimLeft(s))
	if r.inMods {
		switch {
		case t == "" || ind <= r.listKeyIndent:
			r.inMods = false
		case r.modsIndent < 0 || ind == r.modsIndent:
			r.modsIndent = ind
			r.mods++
			return
		default:
			return // a nested line: a jar-in-jar, a mod's provided mods
		}
	}
	key, val, ok := strings.Cut(t, ": ")
	if !ok {
		key, ok = strings.CutSuffix(t, ":")
	}
	if !ok {
		return
	}
	switch key {
	case "Minecraft Version":
		r.mc = val
	case "Java Version":
		r.java = val
	case "Launched Version", "Forge", "NeoForge", "Fabric Loader":
		if r.loader == "" {
			r.loader = val
		}
	case "Mod List", "Fabric Mods", "Loaded Mods":
		if val == "" && r.mods < 0 {
			r.inMods, r.listKeyIndent, r.mods, r.modsIndent = true, ind, 0, -1
		}
	}
}

// finish puts the report into e: level, text, stack and data.
func (r *mcReport) finish(e *entry) {
	text := r.desc
	switch {
	case text == "":
		text = r.exc
	case r.exc != "":
		text += ": " + r.exc
	}
	e.rec.Text = oplog.ClipText(text)
	e.rec.Level = oplog.LevelFatal
	if r.errorReport {
		e.rec.Level = oplog.LevelError
	}
	if r.desc == forgeSplashReport {
		e.rec.Level = oplog.LevelInfo
	}
	e.stack, e.lines = append(e.stack[:0], r.stack...), r.lines
	var o object
	o.str("minecraft", r.mc)
	o.str("java", r.java)
	o.str("loader", r.loader)
	o.num("mods", r.mods)
	e.rec.Data = o.bytes()
}

// forgeSplashReport is the Description of the report Forge's loading
// screen (Minecraft 1.7 to 1.12) prints into the log at every start: "This
// is just a prompt for computer specs to be printed. THIS IS NOT A ERROR".
const forgeSplashReport = "Loading screen debug info"

// parseCrashTime reads a crash report's Time, written in the player's
// locale: "2023-12-28 13:21:22" (with a zone name after it, ignored),
// "12/26/20 1:05 PM", "8/15/21, 1:59 PM" (month first with AM/PM),
// "08/07/20 19:28" (day first without), "22.12.2021, 19:22", "26.06.20 11:23".
func parseCrashTime(s string, loc *time.Location) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, _, ok := parseISO(s, loc); ok {
		return t, !t.IsZero()
	}
	var n [3]int
	var sep byte
	i := 0
	for k := range 3 {
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		v, ok := atoi(s[i:j])
		if !ok || j-i > 4 {
			return time.Time{}, false
		}
		n[k], i = v, j
		if k < 2 {
			if i >= len(s) || s[i] != '/' && s[i] != '.' && s[i] != '-' || sep != 0 && s[i] != sep {
				return time.Time{}, false
			}
			sep = s[i]
			i++
		}
	}
	rest := strings.TrimLeft(s[i:], ", ")
	h, m, sec, ok := crashClock(rest)
	if !ok {
		return time.Time{}, false
	}
	y, mo, d := n[2], n[1], n[0] // day first
	switch {
	case n[0] > 31: // 2021/05/03
		y, mo, d = n[0], n[1], n[2]
	case sep == '/' && (strings.HasSuffix(rest, "M") || n[1] > 12): // US: month first
		mo, d = n[0], n[1]
	}
	if y < 100 {
		y += 2000
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || y < minYear || y > maxYear {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(mo), d, h, m, sec, 0, loc), true
}

// crashClock reads "19:28", "1:05 PM", "13:21:22".
func crashClock(s string) (h, m, sec int, ok bool) {
	clock, ampm, _ := strings.Cut(s, " ")
	parts := strings.Split(clock, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, 0, false
	}
	var v [3]int
	for k, p := range parts {
		if v[k], ok = atoi(p); !ok || len(p) > 2 {
			return 0, 0, 0, false
		}
	}
	h, m, sec = v[0], v[1], v[2]
	switch strings.ToUpper(strings.TrimSpace(ampm)) {
	case "PM":
		if h < 12 {
			h += 12
		}
	case "AM":
		if h == 12 {
			h = 0
		}
	}
	if h > 23 || m > 59 || sec > 59 {
		return 0, 0, 0, false
	}
	return h, m, sec, true
}
