package follow

import (
	"bytes"
	"time"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

// lineCutter splits what is read (a followed file, an imported log, a
// program's output) into lines. A line longer than its limit (maxLine
// unless set) is not handed over in pieces, each a record that the parser
// would clip without a word: its head is kept, the rest counted and
// dropped up to its newline, and the head handed over once, ending in the
// mark of a cut line (cutMark) that says how long the line was and how
// many bytes were dropped. So a file or an output without newlines cannot
// eat the memory. A line within the limit is handed over whole (a JSON
// logger's line may carry a long stack); the parser marks the text it
// cannot hold (oplog.ClipText).
type lineCutter struct {
	limit   int    // the longest line handed over whole; 0: maxLine
	partial []byte // the line so far; a cut line's head
	total   int64  // a cut line's bytes so far; 0 while the line is not cut
	lastCut int64  // the length of the line taken last when it was cut, else 0
}

// split hands fn each line of chunk that ends in it, with the offset just
// past its newline (chunk ends at offset end); fn must copy the line.
func (l *lineCutter) split(chunk []byte, end int64, fn func(line []byte, end int64)) {
	start := end - int64(len(chunk)) // offset of chunk[0]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			l.add(chunk)
			return
		}
		l.add(chunk[:i])
		lineEnd := start + int64(i) + 1
		fn(l.take(), lineEnd)
		chunk, start = chunk[i+1:], lineEnd
	}
}

// add adds b to the line held, cutting the line once it is over the limit.
func (l *lineCutter) add(b []byte) {
	if l.total > 0 {
		l.total += int64(len(b))
		return
	}
	l.partial = append(l.partial, b...)
	limit := l.limit
	if limit == 0 {
		limit = maxLine
	}
	if len(l.partial) > limit {
		l.total = int64(len(l.partial))
		l.partial = l.partial[:oplog.CutHead+utf8.UTFMax] // cutMark cuts it at a character
	}
}

// cut reports whether the line held is cut (longer than the limit).
func (l *lineCutter) cut() bool { return l.total > 0 }

// held reports whether a line without its newline yet is held.
func (l *lineCutter) held() bool { return len(l.partial) > 0 || l.total > 0 }

// take returns the line held, with its mark when it was cut, and starts
// the next line; the slice is reused by the next add.
func (l *lineCutter) take() []byte {
	line := l.partial
	l.lastCut = l.total
	if l.total > 0 {
		line = cutMark(line, l.total)
	}
	l.partial, l.total = l.partial[:0], 0
	return line
}

// reset drops the line held.
func (l *lineCutter) reset() { l.partial, l.total = nil, 0 }

// cutMark returns head, the beginning of a line of total bytes, cut at a
// character to oplog.CutHead and followed by oplog.CutMark. The bytes are
// those the program printed (escape sequences and the carriage return
// before the newline included); the result fits a record's text.
func cutMark(head []byte, total int64) []byte {
	kept := len(oplog.ClipBytes(string(head), oplog.CutHead))
	return append(head[:kept], oplog.CutMark(total, kept)...)
}

// cleanLine turns a line as read into what a parser reads: a trailing \r
// (Windows, a pseudo-terminal) and terminal escape sequences (the colours
// Godot, Luanti, tracing and others print on a terminal, and some print
// into files) are dropped. A line reads as a terminal shows it: what a
// full-screen game (curses) drew on the alternate screen is gone when it
// leaves it, and a carriage return within the line goes back to its start,
// the text after it over the text before (a loading bar drawn again and
// again, escapes or not: "Loading  10%\rLoading 100%" is "Loading 100%").
func cleanLine(b []byte) string {
	b = bytes.TrimRight(b, "\r") // Wine's console ends a line with two
	if bytes.IndexByte(b, 0x1b) < 0 {
		if redrawn(b) {
			return string(carriageReturns(b))
		}
		return string(b)
	}
	if i := bytes.LastIndex(b, []byte(altScreenOff)); i >= 0 {
		b = b[i+len(altScreenOff):]
	}
	out := stripEscapes(b)
	if bytes.IndexByte(out, '\r') >= 0 {
		out = carriageReturns(out)
	}
	return string(out)
}

// redrawn reports a line without escapes that a carriage return drew
// again: one that begins with it ("\rLoading  10%\rLoading 100%", tqdm's),
// or whose last two drawings begin with the same word ("Loading 10%\rLoading
// 20%"). A carriage return in a logged message ("[mod] CR\rinside") is its
// text.
func redrawn(b []byte) bool {
	i := bytes.LastIndexByte(b, '\r')
	if i < 0 {
		return false
	}
	if b[0] == '\r' {
		return true
	}
	prev := bytes.TrimLeft(b[bytes.LastIndexByte(b[:i], '\r')+1:i], " ")
	word, _, _ := bytes.Cut(bytes.TrimLeft(b[i+1:], " "), []byte{' '})
	return len(word) > 0 && len(prev) > len(word) && bytes.HasPrefix(prev, word) && prev[len(word)] == ' '
}

// altScreenOff is the sequence that leaves a terminal's alternate screen,
// where curses draws.
const altScreenOff = "\x1b[?1049l"

// carriageReturns is s as a terminal shows it, a carriage return moving back to
// the start of the line: "Loading 10%\rLoading 20%" shows "Loading 20%".
func carriageReturns(s []byte) []byte {
	var line []rune
	col := 0
	for _, c := range string(s) {
		switch {
		case c == '\r':
			col = 0
			continue
		case col < len(line):
			line[col] = c
		default:
			line = append(line, c)
		}
		col++
	}
	return []byte(string(line))
}

// stripEscapes removes ANSI escape sequences: CSI ("\x1b[1;31m", cursor
// moves), OSC ("\x1b]0;title\x07") and two-byte escapes.
func stripEscapes(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != 0x1b {
			out = append(out, b[i])
			continue
		}
		if i+1 >= len(b) {
			break
		}
		switch b[i+1] {
		case '[': // CSI: parameters and intermediates, then a final byte 0x40-0x7e
			j := i + 2
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			if j < len(b) && b[j] == 'C' {
				// The cursor moved right over blank cells: a console
				// that draws a space so (Wine's: "\x1b[K\x1b[1C").
				out = append(out, bytes.Repeat([]byte{' '}, cursorForward(b[i+2:j]))...)
			}
			i = j
		case ']': // OSC: up to BEL or ESC \
			j := i + 2
			for j < len(b) && b[j] != 0x07 && !(b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\') {
				j++
			}
			if j < len(b) && b[j] == 0x1b {
				j++
			}
			i = j
		default:
			// ESC, intermediate bytes, a final byte: "\x1b(B" (a
			// character set), "\x1b=", "\x1b>" (the keypad's mode).
			j := i + 1
			for j < len(b) && b[j] >= 0x20 && b[j] <= 0x2f {
				j++
			}
			i = j
		}
	}
	return out
}

// cursorForward is how many columns a cursor-forward sequence's parameter
// moves (1 when it has none), at most maxCursorForward.
func cursorForward(param []byte) int {
	n := 0
	for _, c := range param {
		if c < '0' || c > '9' {
			return 1
		}
		n = min(n*10+int(c-'0'), maxCursorForward)
	}
	return max(n, 1)
}

// maxCursorForward caps the spaces one cursor-forward sequence becomes.
const maxCursorForward = 256

// readTimes remembers when each line a parser may still hold was read, so
// that a record it gives out later (held until the next line came, or
// until the output was quiet for a second) has the time its first line was
// read rather than the time it was stored: the last line a game printed
// before it hung and died is not stamped a second late, beside its crash.
// A record whose line carried its own time keeps that (but its fraction of
// a second, when it says none and was read within that second).
type readTimes struct{ q []lineRead }

type lineRead struct {
	end int64 // offset just past the line
	at  time.Time
}

// read notes a line ending at end, read at at.
func (t *readTimes) read(end int64, at time.Time) {
	t.q = append(t.q, lineRead{end, at})
}

// stamp gives e's record the time its first line was read when it has
// none, or when its own says only the second that read time falls in (a
// log's "[12:34:56]": read as it is written, its lines keep their order
// with the records around them), and forgets the lines up to e's end. It
// returns that read time (now when no line is noted).
func (t *readTimes) stamp(e *Entry) time.Time {
	if len(t.q) == 0 {
		return time.Now()
	}
	at, own := t.q[0].at, e.Record.Time
	if own.IsZero() || own.Nanosecond() == 0 && !at.Before(own) && at.Sub(own) < time.Second {
		e.Record.Time = at.UTC()
	}
	i := 0
	for i < len(t.q) && t.q[i].end <= e.End {
		i++
	}
	t.q = append(t.q[:0], t.q[i:]...)
	return at
}

// reset forgets every line: a new file, a new parser.
func (t *readTimes) reset() { t.q = t.q[:0] }
