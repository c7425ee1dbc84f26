package follow

import (
	"strings"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

// richLines reads the console of Python's rich library as the lines it
// stands for, in front of every other reader (runtimeLayer.Line).
//
// Its logging handler (RichHandler) prints a time column, a level column
// eight wide, the message, and the logging call's file and line at the
// right edge of the terminal, the message wrapped in its column:
//
//	[12/07/26 00:59:04] INFO     tick 0                            game.py:21
//	                    WARNING  missing texture enemy.png, using  game.py:23
//	                             the placeholder
//
// A row whose time is the row before's leaves the time column blank: that
// row gets the time back (the default "[%x %X]", month first, written
// year first). A row becomes one line: its message's lines joined, its
// place after them ("missing texture enemy.png, using the placeholder
// game.py:23").
//
// Its tracebacks (rich.traceback.install(), RichHandler(rich_tracebacks=
// True)) are drawn in a box, each frame a "PATH:LINE in FUNC" row (a long
// path folded over two) above the source around it, the line that ran
// marked "❱", the locals in boxes of their own, the exception's line under
// the box, wrapped at the box's width. They become CPython's own lines
// ("Traceback (most recent call last):", `  File "PATH", line LINE, in
// FUNC`, the line that ran, the exception's line whole), which the Python
// reader makes one record of; the source around and the locals are left
// out.
type richLines struct {
	stamp  string // the time of the last row that printed one: "[2026-12-07 00:59:04]"
	width  int    // its column's width, the space after it counted; 0 before a row
	box    int    // the traceback boxes open (its locals' inside it); 0 outside one
	indent int    // the traceback box's indentation (RichHandler draws it under the message)
	wide   int    // the box's width
	frame  string // a frame's row, or the rows it was folded over, until the row after
	full   bool   // the frame's last row filled the box: folded, not wrapped at a space
	head   bool   // at the box's top or after a blank row, where a frame's row begins
	under  bool   // right after a box: its exception's line next
	held   string // the exception's line or a row's message, until the next line shows whether it goes on
	place  string // the row's place ("game.py:23"); "" for an exception's line
	row    bool   // held is a row's message
	heldAt int64
	out    [3]richLine
}

// richLine is a line richLines gives, and where it ended in the input.
type richLine struct {
	s   string
	end int64
}

// richLevelWidth is the width of RichHandler's level column, the space
// after it counted; richMaxWidth the widest rich draws a traceback.
const (
	richLevelWidth = 9
	richMaxWidth   = 100
	richMaxFrame   = 4 << 10 // a frame's rows joined, at most
)

// line returns the lines s (ending at end) stands for: none while a line is
// held or for a line of a box that stands for nothing (its borders, the
// source around a frame, locals), the line held before s once s shows it
// did not go on.
func (r *richLines) line(s string, end int64) []richLine {
	out := r.out[:0]
	if r.held != "" {
		if t := trimRight(s); r.goesOn(t) {
			r.held += " " + trimLeft(t)
			r.heldAt = end
			return out
		}
		out = append(out, r.release())
	}
	if r.box > 0 {
		var in bool
		if out, in = r.boxLine(out, s, end); in {
			return out
		}
		r.box = 0 // a box cut short: the line is what it is
		out = r.frameLine(out, end)
	}
	if r.under {
		r.under = false
		if t := trimRight(s); spaces(t) == r.indent && pyExceptionLine(t[r.indent:]) {
			r.held, r.row, r.heldAt = t[r.indent:], false, end
			return out
		}
	}
	t := trimLeft(s)
	if strings.HasPrefix(t, "╭") && strings.Contains(t, " Traceback ") {
		r.box, r.indent, r.wide, r.head = 1, len(s)-len(t), utf8.RuneCountInString(trimRight(t)), true
		return append(out, richLine{"Traceback (most recent call last):", end})
	}
	if w := richStamp(s); w > 0 && richLevel(s[w:]) {
		r.stamp, r.width = richISO(s[:w-1]), w
		r.hold(r.stamp+" "+s[w:], end)
		return out
	}
	if r.width > 0 && spaces(s) == r.width && richLevel(s[r.width:]) {
		r.hold(r.stamp+" "+s[r.width:], end)
		return out
	}
	return append(out, richLine{s, end})
}

// flush returns the line held, if any.
func (r *richLines) flush() []richLine {
	if r.held == "" {
		return nil
	}
	return append(r.out[:0], r.release())
}

// hold holds a RichHandler row, its place cut from its right edge.
func (r *richLines) hold(row string, end int64) {
	r.held, r.place, r.row, r.heldAt = trimRight(row), "", true, end
	if i := strings.LastIndex(r.held, "   "); i > 0 {
		place := r.held[i+3:]
		if colon := strings.LastIndexByte(place, ':'); colon > 0 && isDigits(place[colon+1:]) && !strings.ContainsAny(place, " \t") {
			r.held, r.place = trimRight(r.held[:i]), place
		}
	}
}

func (r *richLines) release() richLine {
	l := richLine{r.held, r.heldAt}
	if r.place != "" {
		l.s += "  " + r.place
	}
	r.held, r.place = "", ""
	return l
}

// goesOn reports whether t goes on with the line held. A row's message goes
// on in the lines under it in its column. An exception's line drawn under
// a RichHandler's message goes on in every line as far in as the box; else
// in a line rich wrapped at the box's width, narrower than the widest it
// draws (the terminal's, or a file's 80), the first word of which did not
// fit.
func (r *richLines) goesOn(t string) bool {
	if strings.TrimSpace(t) == "" || len(r.held)+len(r.place)+len(t)+3 > oplog.MaxTextBytes {
		return false // a message that never ends is a record's worth at a time
	}
	in := r.indent
	if r.row {
		in = r.width + richLevelWidth
	}
	if in > 0 {
		return spaces(t) == in && !boxed(t[in:])
	}
	if r.wide >= richMaxWidth || t[0] == ' ' {
		return false
	}
	word, _, _ := strings.Cut(t, " ")
	return utf8.RuneCountInString(r.held)+1+utf8.RuneCountInString(word) > r.wide
}

// boxLine reads a line of a traceback box, appending what it stands for to
// out: in is false when s is not one (the box was cut short).
func (r *richLines) boxLine(out []richLine, s string, end int64) (_ []richLine, in bool) {
	if spaces(s) != r.indent {
		return out, false
	}
	t := trimRight(s[r.indent:])
	if strings.HasPrefix(t, "╰") {
		r.box, r.under = 0, true
		return r.frameLine(out, end), true
	}
	row, found := strings.CutPrefix(t, "│")
	if !found {
		return out, false
	}
	row = strings.TrimSuffix(row, "│")
	full := utf8.RuneCountInString(row) >= r.wide-2 && strings.HasSuffix(row, " ") && !strings.HasSuffix(row, "  ")
	row = strings.TrimSpace(row)
	switch {
	case strings.HasPrefix(row, "╭"): // the locals
		r.box++
		return r.frameLine(out, end), true
	case strings.HasPrefix(row, "╰"):
		r.box--
		return out, true
	case r.box > 1:
		return out, true
	case row != "" && r.frame != "" && len(r.frame) < richMaxFrame && (r.full || !strings.Contains(r.frame, " in ")):
		// the frame's row folded or wrapped: "…/0", "01/game.py:145 in", "spawn_enemy"
	case row == "":
		r.head = true // a frame's row may come next
		return r.frameLine(out, end), true
	case strings.HasPrefix(row, "❱ "): // the line that ran
		r.head = false
		code := strings.TrimLeft(strings.TrimLeft(row[len("❱ "):], " "), "0123456789") // "❱ 8", "❱  8", "❱ 128"
		return append(r.frameLine(out, end), richLine{"    " + strings.TrimLeft(code, " │"), end}), true
	case !r.head || sourceRow(row) || strings.HasPrefix(row, "..."):
		r.head = false
		return r.frameLine(out, end), true // the source around the frame (a long line's rest), frames left out
	}
	r.head = false
	switch {
	case r.frame == "":
		r.frame = row
	case r.full:
		r.frame += row
	default:
		r.frame += " " + row
	}
	r.full = full
	return out, true
}

// frameLine appends the frame whose rows were read, as CPython prints it,
// to out.
func (r *richLines) frameLine(out []richLine, end int64) []richLine {
	f := r.frame
	r.frame = ""
	i := strings.LastIndex(f, " in ")
	if i < 0 {
		return out
	}
	place, fn := f[:i], f[i+len(" in "):]
	colon := strings.LastIndexByte(place, ':')
	if colon <= 0 || !isDigits(place[colon+1:]) {
		return out
	}
	return append(out, richLine{`  File "` + place[:colon] + `", line ` + place[colon+1:] + ", in " + fn, end})
}

// sourceRow reports a row of the source around a frame: its line's number,
// then its line.
func sourceRow(row string) bool {
	i := 0
	for i < len(row) && isDigit(row[i]) {
		i++
	}
	return i > 0 && (i == len(row) || row[i] == ' ')
}

// richStamp returns the width of the time column s begins with ("[12/07/26
// 00:59:04] ", "[00:59:04] "), the space after it counted, or 0.
func richStamp(s string) int {
	if !strings.HasPrefix(s, "[") {
		return 0
	}
	end := strings.IndexByte(s, ']')
	if end < 6 || end > 40 || len(s) <= end+1 || s[end+1] != ' ' || !strings.Contains(s[:end], ":") {
		return 0
	}
	for _, c := range s[1:end] {
		if !(c >= '0' && c <= '9' || strings.ContainsRune(":/-., APM", c)) {
			return 0
		}
	}
	return end + 2
}

// richISO writes RichHandler's default time, "[%x %X]" in the C locale
// Python keeps unless told ("[12/07/26 00:59:04]", month first), as
// "[2026-12-07 00:59:04]"; any other time as it is.
func richISO(stamp string) string {
	d := stamp
	if len(d) != len("[12/07/26 00:59:04]") || d[3] != '/' || d[6] != '/' || d[9] != ' ' ||
		!isDigits(d[1:3]) || !isDigits(d[4:6]) || !isDigits(d[7:9]) {
		return stamp
	}
	return "[20" + d[7:9] + "-" + d[1:3] + "-" + d[4:6] + d[9:]
}

// richLevel reports whether s begins with RichHandler's level column: a
// level's name in capitals, padded to eight, a space, then the message.
func richLevel(s string) bool {
	i := 0
	for i < len(s) && s[i] >= 'A' && s[i] <= 'Z' {
		i++
	}
	if i < 4 || i > richLevelWidth-1 || len(s) <= richLevelWidth || s[richLevelWidth] == ' ' {
		return false
	}
	return strings.TrimLeft(s[i:richLevelWidth], " ") == ""
}

// boxed reports whether s begins with a box's border.
func boxed(s string) bool {
	return strings.HasPrefix(s, "╭") || strings.HasPrefix(s, "│") || strings.HasPrefix(s, "╰")
}

// spaces returns the number of spaces s begins with.
func spaces(s string) int {
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}
