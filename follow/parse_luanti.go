package follow

import (
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// luantiParser reads Luanti's (Minetest's) debug.txt and the server's
// console, which carry the same lines:
//
//	2026-12-02 16:30:36: ACTION[Main]: World at [/home/me/.minetest/worlds/w1]
//	2026-12-02 16:30:36: ERROR[Main]: ServerError: AsyncErr: Lua: Runtime error from mod 'x' in callback environment_Step(): init.lua:54: attempt to index local 't' (a nil value)
//	2026-12-02 16:30:36: ERROR[Main]: stack traceback:
//	2026-12-02 16:30:36: ERROR[Main]: 	init.lua:54: in function 'func'
//
// The label is the level (ERROR, WARNING, ACTION and none are error, warn,
// info and info; INFO, VERBOSE and TRACE, below ACTION in Luanti, debug),
// the thread ("Main", "Server", "Emerge-0") the name, the local time the
// record's. Luanti prefixes every line of a multi-line engine message with
// the same header: a traceback's lines ("stack traceback:" and its
// tab-indented frames), and the line after one ending in ':' (ModError's
// "Failed to load and run script from X:" then the error), join the entry
// they continue, whatever the timing; what a mod logs with embedded line
// breaks comes without prefixes, and such lines join the entry before
// them too, up to a blank line. ServerError and ModError's failed load,
// which stop the server, are fatal. The block Luanti writes to debug.txt
// when it opens it ("-------------", "  Separator", "-------------")
// starts a run; the ASCII-art banner the server prints on its console is
// one info record.
type luantiParser struct {
	clk    *clock
	e      entry
	head   string // the held entry's header: timestamp, label and thread as written
	tb     bool   // its traceback has begun
	art    bool   // it is the console's ASCII-art banner
	sep    int    // separator lines seen in a row (luantiSep)
	sepEnd int64
	run    bool // a separator was read: the next entry starts a run
}

// luantiSep is the line above and below "  Separator" in debug.txt.
const luantiSep = "-------------"

func (p *luantiParser) Name() string { return "luanti" }

func (p *luantiParser) Flush() []Entry {
	out := p.take(nil)
	if p.sep > 0 { // an unfinished separator: its lines were text
		out = p.sepLines(out)
	}
	return out
}

func (p *luantiParser) Line(line string, end int64) []Entry {
	s := trimRight(line)
	if out, ok := p.separator(s, end); ok {
		return out
	}
	if s == "" {
		p.e.blank(end)
		p.e.closed = true
		return nil
	}
	h, ok := parseLuantiHeader(s, p.clk.location())
	if !ok {
		return p.unprefixed(s, end)
	}
	if p.e.held && !p.art && h.head == p.head && p.continues(h.text) {
		if p.add(h.text, end) {
			return nil
		}
	}
	out := p.take(nil)
	p.begin(&h, end)
	return out
}

// continues reports whether text, under the held entry's header, goes on
// with it: a traceback, or the second line of a warning or error ending in
// ':' ("ModError: Failed to load and run script from …/init.lua:"); an
// action's "rex leaves game. List of players:" is a line of its own.
func (p *luantiParser) continues(text string) bool {
	switch {
	case text == "stack traceback:":
		p.tb = true
		return true
	case p.tb:
		// Tab-indented, or space-indented as a terminal's or a web page's
		// copy of it has it.
		return strings.HasPrefix(text, "\t") || strings.HasPrefix(text, "  ") || text == "(...tail calls...)"
	}
	return p.e.lines == 0 && p.e.rec.Level >= oplog.LevelWarn && !strings.Contains(p.e.rec.Text, "\n") && strings.HasSuffix(p.e.rec.Text, ":")
}

// add puts text into the held entry: the stack once a traceback began,
// else the message's next line. It returns false when the entry is full.
func (p *luantiParser) add(text string, end int64) bool {
	if p.tb {
		return p.e.add(text, end)
	}
	if len(p.e.rec.Text)+1+len(text) > oplog.MaxTextBytes {
		return false
	}
	p.e.rec.Text += "\n" + text
	p.e.end = end
	return true
}

// unprefixed reads a line without a header: the ASCII-art banner, a
// mod's multi-line message going on, or a line of its own (print()
// output on the console).
func (p *luantiParser) unprefixed(s string, end int64) []Entry {
	art := isASCIIArt(s)
	switch {
	case art && p.e.held && p.art:
		p.add(s, end)
		return nil
	case !art && p.e.held && !p.e.closed && p.head != "":
		if p.add(s, end) {
			return nil
		}
	}
	out := p.take(nil)
	p.head, p.tb, p.art = "", false, art
	p.e.start(s, oplog.LevelInfo, end)
	return out
}

// separator reads the block debug.txt gets each time Luanti opens it, and
// reports whether s was one of its lines.
func (p *luantiParser) separator(s string, end int64) ([]Entry, bool) {
	switch {
	case p.sep == 0 && s == luantiSep,
		p.sep == 1 && strings.TrimSpace(s) == "Separator":
		p.sep++
		p.sepEnd = end
		return nil, true
	case p.sep == 2 && s == luantiSep:
		p.sep = 0
		out := p.take(nil)
		p.run = true
		return out, true
	case p.sep > 0:
		return p.sepLines(nil), false // not the separator after all
	}
	return nil, false
}

// sepLines makes records of the separator lines held when they turn out
// to be something else.
func (p *luantiParser) sepLines(out []Entry) []Entry {
	lines := []string{luantiSep, "  Separator"}[:p.sep]
	p.sep = 0
	out = p.take(out)
	for _, l := range lines {
		out = append(out, Entry{Record: oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Text: l}, End: p.sepEnd})
	}
	return out
}

// lineTime returns the time line's header gives (lineStamper).
func (p *luantiParser) lineTime(line string) (time.Time, bool) {
	h, ok := parseLuantiHeader(line, p.clk.location())
	return h.t, ok && !h.t.IsZero()
}

// begin starts an entry from a header line.
func (p *luantiParser) begin(h *luantiHeader, end int64) {
	p.head, p.tb, p.art = h.head, false, false
	p.e.start(h.text, h.level, end)
	p.e.rec.Time = h.t
	p.e.setName(h.thread)
	if h.level == oplog.LevelError && (strings.HasPrefix(h.text, "ServerError: ") ||
		strings.HasPrefix(h.text, "ModError: Failed to load and run script")) {
		p.e.rec.Level = oplog.LevelFatal // the server stops
	}
}

// take completes the held entry, with the run marker a separator called
// for before it.
func (p *luantiParser) take(out []Entry) []Entry {
	if !p.e.held {
		return out
	}
	if p.run {
		p.run = false
		out = append(out, Entry{Record: oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun,
			Level: oplog.LevelInfo, Time: p.e.rec.Time, Text: "run started: Luanti",
			Data: []byte(`{"engine":"luanti","reason":"banner"}`)}, End: p.e.end})
	}
	return p.e.take(out)
}

// luantiHeader is what a line's header says.
type luantiHeader struct {
	head   string // the header as written, up to the text
	t      time.Time
	level  oplog.Level
	thread string
	text   string
}

// parseLuantiHeader reads "2026-12-02 16:30:36: ERROR[Main]: text" (the
// date optional: --log-timestamp none).
func parseLuantiHeader(s string, loc *time.Location) (luantiHeader, bool) {
	var h luantiHeader
	rest := s
	if len(s) > 21 && isDigit(s[0]) && s[19] == ':' && s[20] == ' ' {
		t, n, ok := parseISO(s[:19], loc)
		if !ok || n != 19 {
			return h, false
		}
		h.t, rest = t, s[21:]
	}
	i := strings.IndexByte(rest, '[')
	if i < 0 || i > len("VERBOSE") {
		return h, false
	}
	j := strings.Index(rest[i:], "]: ")
	if j < 2 {
		// "[Main]:" with nothing after it is a header too.
		if !strings.HasSuffix(rest, "]:") || strings.IndexByte(rest[i:], ']') != len(rest)-i-2 {
			return h, false
		}
		j = len(rest) - i - 2
	}
	level, ok := luantiLevel(rest[:i])
	if !ok {
		return h, false
	}
	h.thread = rest[i+1 : i+j]
	if strings.ContainsAny(h.thread, " []") {
		return h, false
	}
	h.level = level
	h.head = s[:len(s)-len(rest)+i+j+1]
	if i+j+3 <= len(rest) {
		h.text = rest[i+j+3:]
	}
	return h, true
}

// luantiLevel maps Luanti's log labels to levels.
func luantiLevel(label string) (oplog.Level, bool) {
	switch label {
	case "":
		return oplog.LevelInfo, true // "none": what a mod logs with one argument
	case "ERROR":
		return oplog.LevelError, true
	case "WARNING":
		return oplog.LevelWarn, true
	case "ACTION":
		return oplog.LevelInfo, true
	case "INFO", "VERBOSE", "TRACE":
		return oplog.LevelDebug, true
	}
	return 0, false
}

// isASCIIArt reports a line of the server's console banner: figlet
// strokes only (underscores, bars, slashes, dots, brackets and the Y and
// V of "Y Y" and "\/"), no words.
func isASCIIArt(s string) bool {
	strokes := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '_', '|', '/', '\\':
			strokes++
		case ' ', '.', '<', '>', '(', ')', '\'', '`', ',', '-', 'Y', 'V':
		default:
			return false
		}
	}
	return strokes >= 3
}
