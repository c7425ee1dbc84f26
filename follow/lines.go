package follow

import "bytes"

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
