package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// bombela/backward-cpp's signal handler (C++ games and servers install it
// to print a stack trace as they crash) prints the frames outermost first,
// each an object and a function or a source file, line and function, the
// lines inlined into it, and with libdw the source around each line; then
// the signal as psiginfo(3) says it, and the signal is raised again:
//
//	Stack trace (most recent call last):
//	#7    Object "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", at 0xffffffffffffffff, in
//	#3    Source "/game/main.cpp", line 98, in main [0x560027791dd2]
//	         97:     for (int frame = 1; frame <= 5; frame++) {
//	      >  98:         tick(world, frame);
//	#0    Source "/game/world.cpp", line 58, in spawnEnemy [0x560027795c5d]
//	Segmentation fault (Address not mapped to object [(nil)])
//
// One fatal record: its text the signal's line, its stack the rest. A
// trace a program prints without a signal after it (backward::Printer)
// is an error, titled by its heading. After a line that says why the
// program aborts and has no frames (C++'s terminate and what()), the trace
// is that line's stack.

// backwardStart reports the heading of backward-cpp's trace, "Stack trace
// (most recent call last):" or "… in thread 12345:".
func backwardStart(t string) bool {
	rest, ok := strings.CutPrefix(t, "Stack trace (most recent call last)")
	return ok && (rest == ":" || strings.HasPrefix(rest, " in thread ") && strings.HasSuffix(rest, ":"))
}

// backwardLine reports a line of backward-cpp's trace after its heading:
// a frame, a line inlined into one, a line of source around one.
func backwardLine(t string) bool {
	if n := strings.IndexByte(t, ' '); n > 1 && t[0] == '#' && isDigits(t[1:n]) {
		t = trimLeft(t[n:])
	}
	t = strings.TrimPrefix(t, "| ")
	if strings.HasPrefix(t, `Source "`) || strings.HasPrefix(t, `Object "`) {
		return true
	}
	t = trimLeft(strings.TrimPrefix(trimLeft(t), ">"))
	n, rest, ok := strings.Cut(t, ":") // "  98:     tick(world, frame);", not a time of day
	return ok && isDigits(n) && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
}

// psiginfoLine reports the line psiginfo(3) prints of a signal: its name
// as strsignal(3) says it, the cause in parentheses: "Segmentation fault
// (Address not mapped to object [(nil)])", "Aborted (Signal sent by
// tkill() 6868 0)".
func psiginfoLine(t string) bool {
	for _, name := range strsignals {
		if rest, ok := strings.CutPrefix(t, name); ok && (rest == "" || strings.HasPrefix(rest, " (") && strings.HasSuffix(rest, ")")) {
			return true
		}
	}
	return false
}

// beginBackward starts backward-cpp's trace, its heading the stack's
// first line: an error until its signal.
func (r *report) beginBackward(t string, end int64) {
	r.e.rec.Level = oplog.LevelError
	r.add(t, end)
}

// explainedBy makes the trace of kind (backward-cpp's, cpptrace's) that
// heading t begins the stack of the native crash's line being read, which
// has no frames.
func (r *report) explainedBy(kind rtKind, t string, end int64) bool {
	r.kind, r.explained = kind, true
	return r.add(t, end)
}

// backward adds a line to backward-cpp's trace: its frames and source,
// then the signal's line, its last. The trace a line without frames
// explained keeps that line's text.
func (r *report) backward(s, t string, end int64) bool {
	switch {
	case psiginfoLine(t) && r.e.lines > 1:
		r.done = true
		if r.explained {
			return r.add(t, end)
		}
		r.e.rec.Level = oplog.LevelFatal
		r.setText(t)
		r.e.end = end
		return true
	case backwardLine(t):
		return r.add(s, end)
	}
	return false
}
