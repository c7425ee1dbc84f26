package follow

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

// NewParser returns the parser called name: "unity", "log4j" (alias
// "minecraft"), "mccrash" (Minecraft's crash reports, alias
// "minecraft-crash"), "godot", "unreal", "luanti" (alias "minetest"),
// "rust" (tracing's fmt lines, alias "bevy"), "logcat" (Android's, alias
// "android"), "json" (JSON lines of
// structured loggers), "generic" (alias "lua" and "love": it reads Lua's
// uncaught errors and Rust's panics too), "plain" (every line one info
// record), or "" / "auto", which buffers the first lines (up to 20, or
// until a flush) until the format is clear, picks one of the others
// (generic when nothing matches) and replays them into it; its Name is
// "auto" until it has chosen, then the chosen parser's. Names are
// case-insensitive. An unknown name is an EINVALID error naming the
// choices.
//
// date gives the day of lines that carry only a time of day (Minecraft's
// [12:34:56]): the followed file's modification date; nil means today in
// UTC. Its location is also the zone of timestamps written without one. A
// line whose time would fall more than an hour in the future is taken to
// be from the day before (a file last written just after midnight).
func NewParser(name string, date func() time.Time) (Parser, error) {
	return newParser(name, date, time.Now)
}

// newParser is NewParser with a clock for tests.
func newParser(name string, date, now func() time.Time) (Parser, error) {
	c := &clock{date: date, now: now}
	if date == nil {
		c.date = func() time.Time { return time.Now().UTC() }
	}
	switch n := strings.ToLower(strings.TrimSpace(name)); n {
	case "", "auto":
		return &autoParser{clk: c}, nil
	case "plain":
		return plainParser(), nil
	default:
		if p := formatParser(n, c); p != nil {
			return withRuntimes(p), nil
		}
	}
	return nil, oplog.Errorf(oplog.EINVALID,
		"parser: unknown parser %q; expected %s or auto", name, ParserNames)
}

// ParserNames lists the parsers NewParser knows, for messages and help.
var ParserNames = parserNames()

// parsers is the one table of the formats: their names (the first is the
// parser's, the others aliases), the format auto detection picks them by,
// and how each is made. NewParser, ParserNames and detection read it.
var parsers = []struct {
	names  []string
	format int // fmtUnity, ...; -1: never detected
	make   func(c *clock) Parser
}{
	{[]string{"unity"}, fmtUnity, func(c *clock) Parser { return &unityParser{clk: c} }},
	{[]string{"log4j", "minecraft"}, fmtLog4j, func(c *clock) Parser { return &log4jParser{clk: c} }},
	{[]string{"mccrash", "minecraft-crash"}, fmtMcCrash, func(c *clock) Parser { return &mcCrashParser{clk: c} }},
	{[]string{"godot"}, fmtGodot, func(*clock) Parser { return &godotParser{} }},
	{[]string{"unreal"}, fmtUnreal, func(*clock) Parser { return &unrealParser{} }},
	{[]string{"luanti", "minetest"}, fmtLuanti, func(c *clock) Parser { return &luantiParser{clk: c} }},
	{[]string{"rust", "bevy"}, fmtRust, func(c *clock) Parser { return &rustParser{clk: c, g: newGeneric(c, "generic")} }},
	{[]string{"logcat", "android"}, fmtLogcat, func(c *clock) Parser { return newLogcat(c) }},
	{[]string{"json"}, fmtJSON, func(c *clock) Parser { return &jsonParser{clk: c, g: newGeneric(c, "generic")} }},
	{[]string{"generic"}, -1, func(c *clock) Parser { return newGeneric(c, "generic") }},
	{[]string{"lua", "love"}, fmtLua, func(c *clock) Parser { return newGeneric(c, "lua") }},
}

// parserNames lists the table's names: "unity, log4j (or minecraft), ...".
func parserNames() string {
	var b strings.Builder
	for _, p := range parsers {
		if p.names[0] == "lua" {
			continue // an alias of generic's, as far as a person choosing is concerned
		}
		b.WriteString(p.names[0])
		if p.names[0] == "generic" {
			b.WriteString(" (or lua, love)")
		} else if len(p.names) > 1 {
			b.WriteString(" (or " + strings.Join(p.names[1:], ", ") + ")")
		}
		b.WriteString(", ")
	}
	return b.String() + "plain"
}

// formatParser returns the parser of a format's name, or nil.
func formatParser(name string, c *clock) Parser {
	for _, p := range parsers {
		if slices.Contains(p.names, name) {
			return p.make(c)
		}
	}
	return nil
}

// detectedParser returns the parser of a format auto detection picked, or
// the generic parser for -1.
func detectedParser(format int, c *clock) Parser {
	for _, p := range parsers {
		if p.format == format && format >= 0 {
			return p.make(c)
		}
	}
	return newGeneric(c, "generic")
}

// entry is the record a parser is building: the first line made its text,
// level, name and time; continuation lines make its stack.
type entry struct {
	held   bool
	closed bool // no more continuation lines: blank lines only
	rec    oplog.Record
	stack  []byte // reused between entries
	lines  int    // stack lines
	blanks int    // blank lines seen since the last stack line, for parsers that keep them
	end    int64
	slab   []Entry // room for the next entries taken alone (take)
}

// slabEntries is how many entries take allocates room for at once: most
// calls complete one entry, and one allocation per entry was a tenth of a
// parser's time.
const slabEntries = 16

// start begins a new entry; the held one must have been taken.
func (e *entry) start(text string, level oplog.Level, end int64) {
	e.held, e.closed = true, false
	e.rec = oplog.Record{Kind: oplog.KindLine, Level: level, Text: oplog.ClipText(text)}
	e.stack, e.lines, e.blanks = e.stack[:0], 0, 0
	e.end = end
}

// add appends a stack line. It returns false, adding nothing, when the
// entry is full.
func (e *entry) add(line string, end int64) bool {
	if len(e.stack)+len(line)+1+e.blanks > maxEntryStack || e.lines >= maxEntryLines {
		return false
	}
	if len(e.stack) > 0 {
		e.stack = append(e.stack, '\n')
	}
	e.stack = append(e.stack, line...)
	e.lines++
	e.end = end
	return true
}

// prepend puts line before the stack's lines: a report's first line that
// its headline, which came later, replaces as its text.
func (e *entry) prepend(line string) {
	e.lines++
	if len(e.stack) == 0 {
		e.stack = append(e.stack, line...)
		return
	}
	n := len(e.stack)
	e.stack = append(e.stack, make([]byte, len(line)+1)...)
	copy(e.stack[len(line)+1:], e.stack[:n])
	copy(e.stack, line)
	e.stack[len(line)] = '\n'
}

// addKeepingBlanks is add, with the blank lines seen since the last stack
// line put back first (a crash report's sections), never leading ones.
func (e *entry) addKeepingBlanks(line string, end int64) bool {
	if e.blanks > 0 && len(e.stack) > 0 {
		if len(e.stack)+len(line)+1+e.blanks > maxEntryStack {
			return false
		}
		for range e.blanks {
			e.stack = append(e.stack, '\n')
		}
	}
	e.blanks = 0
	return e.add(line, end)
}

// blank extends the held entry over a blank line, so that the entry's End
// covers the file up to the next entry.
func (e *entry) blank(end int64) {
	if e.held {
		e.end = end
		e.blanks++
	}
}

// take completes the held entry, if any, appending it to out.
func (e *entry) take(out []Entry) []Entry {
	if !e.held {
		return out
	}
	e.held = false
	e.rec.Stack = string(e.stack)
	if out != nil {
		return append(out, Entry{Record: e.rec, End: e.end})
	}
	if len(e.slab) == 0 {
		e.slab = make([]Entry, slabEntries)
	}
	// A slice of its own, full, so that appending to it copies: no
	// element is handed out twice.
	out, e.slab = e.slab[:1:1], e.slab[1:]
	out[0].Record, out[0].End = e.rec, e.end
	return out
}

// setName sets the record's name when it is a valid label.
func (e *entry) setName(name string) {
	if len(name) > oplog.MaxLabelBytes {
		return
	}
	for i := 0; i < len(name); i++ { // a loop: ContainsAny builds its set at every line
		if c := name[i]; c == 0 || c == '\r' || c == '\n' {
			return
		}
	}
	e.rec.Name = name
}

// clock turns times of day into times, on the file's date.
type clock struct {
	date func() time.Time
	now  func() time.Time
	loc  *time.Location

	day  time.Time // the date y, mo and d were read from
	y, d int
	mo   time.Month
	seen time.Time // a time now returned

	dated time.Time // the last time a line gave with its date, or one of day after it
}

// saw notes a time a line gave with its date: times of day after it are
// on its day (a launcher's or a logging library's dated lines before a
// game's log of times of day), or on the days after when they go back.
func (c *clock) saw(t time.Time) {
	if !t.IsZero() {
		c.dated = t
	}
}

// location is the zone of timestamps written without one: date's.
func (c *clock) location() *time.Location {
	if c.loc == nil {
		c.loc = c.date().Location()
	}
	return c.loc
}

// at returns the time of day h:m:s.ns on the day of the last dated line
// (saw), or of the file's date, or the day before when that would be more
// than an hour in the future.
func (c *clock) at(h, m, s, ns int) time.Time {
	if !c.dated.IsZero() {
		loc := c.location()
		y, mo, d := c.dated.In(loc).Date()
		t := time.Date(y, mo, d, h, m, s, ns, loc)
		if t.Before(c.dated.Add(-time.Hour)) {
			t = t.AddDate(0, 0, 1) // past midnight
		}
		if t.After(c.dated) {
			c.dated = t
		}
		return t
	}
	d := c.date()
	if !d.Equal(c.day) || d.Location() != c.day.Location() { // every line asks; the date seldom changes
		c.day = d
		c.y, c.mo, c.d = d.Date()
	}
	t := time.Date(c.y, c.mo, c.d, h, m, s, ns, d.Location())
	// Time only goes forward: a time no more than an hour after a now
	// seen before is no more than an hour after now either.
	if t.Sub(c.seen) > time.Hour {
		c.seen = c.now()
		if t.Sub(c.seen) > time.Hour {
			t = t.AddDate(0, 0, -1)
		}
	}
	return t
}

// parseClock reads "HH:MM:SS" with an optional fraction (".123",
// ",123456", or milliseconds after a colon, ":645") at the start of s and
// returns its parts and the bytes read.
func parseClock(s string) (h, m, sec, ns, n int, ok bool) {
	if len(s) < 8 || s[2] != ':' || s[5] != ':' {
		return
	}
	h, ok1 := two(s, 0)
	m, ok2 := two(s, 3)
	sec, ok3 := two(s, 6)
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return 0, 0, 0, 0, 0, false
	}
	n = 8
	if sec == 60 {
		sec = 59 // a leap second
	}
	if n+3 < len(s) && s[n] == ':' && isDigit(s[n+1]) && isDigit(s[n+2]) && isDigit(s[n+3]) && (n+4 == len(s) || !isDigit(s[n+4])) {
		// Milliseconds after a colon, as Bedrock's server writes them: "15:14:07:645".
		ns = (int(s[n+1]-'0')*100 + int(s[n+2]-'0')*10 + int(s[n+3]-'0')) * 1_000_000
		return h, m, sec, ns, n + 4, true
	}
	if n+1 < len(s) && (s[n] == '.' || s[n] == ',') && isDigit(s[n+1]) {
		n++
		scale := 100_000_000
		for n < len(s) && isDigit(s[n]) {
			ns += int(s[n]-'0') * scale
			scale /= 10
			n++
		}
	}
	return h, m, sec, ns, n, true
}

// parseKitchen reads a time of day as Go's time.Kitchen writes it, the
// time zerolog's console writer puts first: "3:04PM", "10:00AM", then a
// space. It returns the hour (0-23), the minute and the bytes read.
func parseKitchen(s string) (h, m, n int, ok bool) {
	c := strings.IndexByte(s[:min(len(s), 3)], ':')
	if c < 1 || len(s) < c+6 || s[c+5] != ' ' || s[c+4] != 'M' || s[c+3] != 'A' && s[c+3] != 'P' {
		return 0, 0, 0, false
	}
	h, err1 := strconv.Atoi(s[:c])
	m, ok2 := two(s, c+1)
	if err1 != nil || !ok2 || h < 1 || h > 12 || m > 59 {
		return 0, 0, 0, false
	}
	h %= 12
	if s[c+3] == 'P' {
		h += 12
	}
	return h, m, c + 5, true
}

// joinedLevel reads a level word in capitals and what follows it after
// sep with no space, as Python's logging default ("ERROR:root:message")
// and NLog's ("ERROR|Game.Physics|message") write them: the logger's
// name, when a second sep ends one, and the message.
func joinedLevel(word, rest string, sep byte, name string) (oplog.Level, string, string, bool) {
	lv, ok := levelWord(word)
	if !ok || !isUpper(word) {
		return 0, "", "", false
	}
	if n := strings.IndexByte(rest, sep); n > 0 && !strings.ContainsAny(rest[:n], " \t") {
		return lv, rest[:n], strings.TrimLeft(rest[n+1:], " "), true
	}
	return lv, name, strings.TrimLeft(rest, " "), true
}

// parseISO reads an ISO-8601 date and time at the start of s:
// "2024-05-01T12:34:56", a space for the T, '/' for the dashes, an
// optional fraction and an optional zone ("Z", "+02:00", "+0200", "+02",
// " UTC"). Without a zone the time is in loc. It returns the bytes read;
// the time is zero when its year is outside what the Log stores.
func parseISO(s string, loc *time.Location) (time.Time, int, bool) {
	if len(s) < 19 || !isDigit(s[0]) || (s[4] != '-' && s[4] != '/') || s[7] != s[4] || (s[10] != 'T' && s[10] != ' ') {
		return time.Time{}, 0, false
	}
	y, ok1 := four(s)
	mo, ok2 := two(s, 5)
	d, ok3 := two(s, 8)
	if !ok1 || !ok2 || !ok3 || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return time.Time{}, 0, false
	}
	h, mi, sec, ns, n, ok := parseClock(s[11:])
	if !ok {
		return time.Time{}, 0, false
	}
	n += 11
	switch {
	case n < len(s) && s[n] == 'Z':
		loc = time.UTC
		n++
	case n+2 < len(s) && (s[n] == '+' || s[n] == '-') && isDigit(s[n+1]) && isDigit(s[n+2]):
		zh, _ := two(s, n+1)
		zm, k := 0, n+3
		if k+2 < len(s) && s[k] == ':' && isDigit(s[k+1]) && isDigit(s[k+2]) {
			zm, _ = two(s, k+1)
			k += 3
		} else if k+1 < len(s) && isDigit(s[k]) && isDigit(s[k+1]) {
			zm, _ = two(s, k)
			k += 2
		}
		off := zh*3600 + zm*60
		if s[n] == '-' {
			off = -off
		}
		loc = time.FixedZone("", off)
		n = k
	case strings.HasPrefix(s[n:], " UTC"):
		loc = time.UTC
		n += 4
	}
	if y < minYear || y > maxYear {
		return time.Time{}, n, true // a timestamp, but none the Log would store
	}
	return time.Date(y, time.Month(mo), d, h, mi, sec, ns, loc), n, true
}

// parseDayMonthYear reads PHP's error_log time at the start of s, "06-Dec-2026
// 14:28:53 UTC" (its zone an identifier, "Europe/Berlin", in loc when it is
// not one this machine knows). It returns the bytes read.
func parseDayMonthYear(s string, loc *time.Location) (time.Time, int, bool) {
	if len(s) < 20 || s[2] != '-' || s[6] != '-' || s[11] != ' ' {
		return time.Time{}, 0, false
	}
	d, ok1 := two(s, 0)
	y, ok2 := four(s[7:])
	mo := slices.Index(months[:], strings.ToLower(s[3:6])) + 1
	h, mi, sec, ns, n, ok := parseClock(s[12:])
	if !ok1 || !ok2 || mo == 0 || !ok || d < 1 || d > 31 {
		return time.Time{}, 0, false
	}
	n += 12
	if n < len(s) && s[n] == ' ' {
		zone := s[n+1:]
		if i := strings.IndexAny(zone, "] "); i >= 0 {
			zone = zone[:i]
		}
		if z, err := loadZone(zone); err == nil {
			loc, n = z, n+1+len(zone)
		}
	}
	if y < minYear || y > maxYear {
		return time.Time{}, n, true
	}
	return time.Date(y, time.Month(mo), d, h, mi, sec, ns, loc), n, true
}

// zones caches what loadZone read, by name: the zone, or nil for a name
// this machine does not know (asked of every line that gives it).
var zones sync.Map

// errNoZone is loadZone's answer for a name that names no zone here.
var errNoZone = errors.New("no such time zone")

// loadZone returns the time zone name names, read once.
func loadZone(name string) (*time.Location, error) {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return nil, errNoZone
	}
	if z, ok := zones.Load(name); ok {
		if z == (*time.Location)(nil) {
			return nil, errNoZone
		}
		return z.(*time.Location), nil
	}
	z, err := time.LoadLocation(name)
	if err != nil {
		z = nil
	}
	zones.Store(name, z)
	if z == nil {
		return nil, errNoZone
	}
	return z, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func two(s string, i int) (int, bool) {
	if i+1 >= len(s) || !isDigit(s[i]) || !isDigit(s[i+1]) {
		return 0, false
	}
	return int(s[i]-'0')*10 + int(s[i+1]-'0'), true
}

func four(s string) (int, bool) {
	a, ok1 := two(s, 0)
	b, ok2 := two(s, 2)
	return a*100 + b, ok1 && ok2
}

// atoi reads a non-negative decimal number of up to 9 digits.
func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// levelWord reads the level words of loggers case-insensitively: TRACE,
// DEBUG, INFO, WARN, WARNING, ERROR, FATAL, CRITICAL and a few more
// spellings (SEVERE, ERR, CRIT, PANIC, NOTICE, VERBOSE).
func levelWord(s string) (oplog.Level, bool) {
	if len(s) < 3 || len(s) > 11 {
		return 0, false
	}
	var b [11]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	switch string(b[:len(s)]) {
	case "trace", "trc", "debug", "dbg", "verbose", "vrb", "fine", "finer", "finest":
		return oplog.LevelDebug, true
	case "info", "inf", "notice":
		return oplog.LevelInfo, true
	case "warn", "wrn", "warning":
		return oplog.LevelWarn, true
	case "error", "err", "severe":
		return oplog.LevelError, true
	case "fatal", "ftl", "critical", "crit", "panic", "pnc", "emergency", "alert":
		return oplog.LevelFatal, true
	}
	return 0, false
}

// object builds a small JSON object for Record.Data.
type object struct{ b []byte }

func (o *object) key(k string) {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = appendJSONString(o.b, k)
	o.b = append(o.b, ':')
}

// str adds k: v unless v is empty.
func (o *object) str(k, v string) {
	if v != "" {
		o.key(k)
		o.b = appendJSONString(o.b, v)
	}
}

// num adds k: v unless v is negative.
func (o *object) num(k string, v int) {
	if v >= 0 {
		o.key(k)
		o.b = strconv.AppendInt(o.b, int64(v), 10)
	}
}

// bytes returns the object, or nil when it has no keys.
func (o *object) bytes() []byte {
	if len(o.b) == 0 {
		return nil
	}
	return append(o.b, '}')
}

// appendJSONString appends s as a JSON string, invalid UTF-8 replaced.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		// A run of bytes that need no escape is appended at once.
		j := i
		for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f && s[j] != '"' && s[j] != '\\' {
			j++
		}
		if j > i {
			b = append(b, s[i:j]...)
			if i = j; i == len(s) {
				break
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// trimRight removes trailing spaces and tabs.
func trimRight(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return s[:i]
}

// trimLeft removes leading spaces and tabs.
func trimLeft(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[i:]
}

func indented(s string) bool { return s != "" && (s[0] == ' ' || s[0] == '\t') }
