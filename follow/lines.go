package follow

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

// splitLines hands fn each complete line of chunk, which ends at offset
// end, with the offset just past its newline; the bytes after the last
// newline are kept in *partial and begin the next chunk's first line. A
// partial line that reaches maxLine is handed over as it is, so that
// output without newlines cannot eat the memory.
func splitLines(partial *[]byte, chunk []byte, end int64, fn func(line []byte, end int64)) {
	start := end - int64(len(chunk)) // offset of chunk[0]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			*partial = append(*partial, chunk...)
			if len(*partial) >= maxLine {
				fn(*partial, end)
				*partial = (*partial)[:0]
			}
			return
		}
		lineEnd := start + int64(i) + 1
		if len(*partial) > 0 {
			*partial = append(*partial, chunk[:i]...)
			fn(*partial, lineEnd)
			*partial = (*partial)[:0]
		} else {
			fn(chunk[:i], lineEnd)
		}
		chunk = chunk[i+1:]
		start = lineEnd
	}
}

// lineCutter splits a program's output into lines as splitLines does,
// except for a line longer than maxLine: rather than handing it over in
// pieces of maxLine bytes (each a record, of which the parser keeps only
// the first oplog.MaxTextBytes), it keeps the line's head, counts and
// drops the rest up to its newline, and hands the head over once, ending
// in a mark (cutMark) that says how long the line was and how many bytes
// were dropped. A line at most maxLine long is handed over whole, as
// splitLines does (a JSON logger's line may carry a long stack).
type lineCutter struct {
	partial []byte // the line so far; a cut line's head
	total   int64  // a cut line's bytes so far; 0 while the line is not cut
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

// add adds b to the line held, cutting the line once it is over maxLine.
func (l *lineCutter) add(b []byte) {
	if l.total > 0 {
		l.total += int64(len(b))
		return
	}
	l.partial = append(l.partial, b...)
	if len(l.partial) > maxLine {
		l.total = int64(len(l.partial))
		l.partial = l.partial[:cutHead+utf8.UTFMax] // cutMark cuts it at a character
	}
}

// cut reports whether the line held is cut (longer than maxLine).
func (l *lineCutter) cut() bool { return l.total > 0 }

// held reports whether a line without its newline yet is held.
func (l *lineCutter) held() bool { return len(l.partial) > 0 || l.total > 0 }

// take returns the line held, with its mark when it was cut, and starts
// the next line; the slice is reused by the next add.
func (l *lineCutter) take() []byte {
	line := l.partial
	if l.total > 0 {
		line = cutMark(line, l.total)
	}
	l.partial, l.total = l.partial[:0], 0
	return line
}

// cutHead is how much of a cut line is held: what a record's text can
// hold with the mark.
const cutHead = oplog.MaxTextBytes - cutMarkRoom

// cutMarkRoom is room enough for the mark cutMark adds.
const cutMarkRoom = 80

// cutMark returns head, the beginning of a line of total bytes, cut at a
// character and followed by the mark of a cut line:
//
//	… [line cut: 52428800 bytes, 52166736 dropped]
//
// The bytes are those the program printed (escape sequences and the
// carriage return before the newline included); the result fits a
// record's text (oplog.MaxTextBytes).
func cutMark(head []byte, total int64) []byte {
	kept := len(oplog.ClipBytes(string(head), cutHead))
	head = append(head[:kept], " … [line cut: "...)
	head = strconv.AppendInt(head, total, 10)
	head = append(head, " bytes, "...)
	head = strconv.AppendInt(head, total-int64(kept), 10)
	return append(head, " dropped]"...)
}

// cleanLine turns a line as read into what a parser reads: a trailing \r
// (Windows, a pseudo-terminal) and terminal escape sequences (the colours
// Godot, Luanti, tracing and others print on a terminal, and some print
// into files) are dropped.
func cleanLine(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if bytes.IndexByte(b, 0x1b) < 0 {
		return string(b)
	}
	return string(stripEscapes(b))
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
			i++ // ESC and one byte
		}
	}
	return out
}
