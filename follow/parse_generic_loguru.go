package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// loguruStack heads the frames emilk/loguru (C++) prints before its fatal
// line (a failed CHECK_F, ABORT_F): "Stack trace:", then "2
// 0x5637da005e76 main + 696", …, then the fatal line.
const loguruStack = "Stack trace:"

// loguruMaxFrames bounds the lines held before the fatal line, so that
// they fit its stack after its place: past them, a line that looks like a
// frame reads as any line.
const loguruMaxFrames = maxEntryLines - 1

// loguruLine reads s while a "Stack trace:" is held or loguru's frames are
// (pre): they become the stack of the error or fatal line after them, or
// a record of their own. A "Stack trace:" no loguru frame follows is read
// as any line.
func (p *genericParser) loguruLine(s string, end int64) []Entry {
	switch {
	case p.head:
		p.head = false
		if loguruFrame(s) {
			out := p.take(nil)
			p.pre, p.preEnd = append(p.pre[:0], loguruStack, s), end
			return out
		}
		out := p.line(loguruStack, p.headEnd)
		if s == loguruStack {
			p.head, p.headEnd = true, end
			return out
		}
		return append(out, p.line(s, end)...)
	case len(p.pre) > 0 && len(p.pre) < loguruMaxFrames && loguruFrame(s):
		p.pre, p.preEnd = append(p.pre, s), end
		return nil
	case len(p.pre) > 0:
		out := p.line(s, end) // nothing was held: it begins an entry
		if p.e.held && p.e.rec.Level >= oplog.LevelError {
			for _, f := range p.pre {
				p.e.add(f, end)
			}
			p.pre = p.pre[:0]
			return out
		}
		held := p.e
		p.e = entry{}
		out = p.takePre(out)
		p.e = held
		return out
	}
	p.head, p.headEnd = true, end // s is "Stack trace:"
	return nil
}

// takePre makes the stack trace held a record of its own, when no error or
// fatal line came after it.
func (p *genericParser) takePre(out []Entry) []Entry {
	if len(p.pre) == 0 {
		return out
	}
	p.e.start(p.pre[0], oplog.LevelError, p.preEnd)
	for _, f := range p.pre[1:] {
		p.e.add(f, p.preEnd)
	}
	p.pre = p.pre[:0]
	return p.e.take(out)
}

// loguruUnwrapped is s past a launcher's wrapper ("[WARNING] stderr: ")
// when what the program printed is loguru's: a line with its header, its
// "Stack trace:", or a frame after it. Its header then says what the line
// is, not the wrapper; any other line is s.
func (p *genericParser) loguruUnwrapped(s string) string {
	if i := strings.Index(s, "std"); i < 0 || i > 40 {
		return s // no "stderr:" or "stdout:" wrapper
	}
	n, f := cutPrefix(s)
	if !f.wrapped || n == 0 {
		return s
	}
	in := s[f.from:]
	if in == loguruStack || (p.head || len(p.pre) > 0) && loguruFrame(in) {
		return in
	}
	if _, _, _, _, ok := p.loguruHeader(in); ok {
		return in
	}
	return s
}
