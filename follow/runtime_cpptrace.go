package follow

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// jeremy-rifkin/cpptrace prints a trace innermost first under its heading,
// each frame its number, its address (or "(inlined)"), the function and
// the place, and with snippets the source around it:
//
//	Stack trace (most recent call first):
//	#0 0x00005613c6d8d5a7 in World::spawnEnemy(std::string const&) at /game/world.cpp:22:30
//	#1 (inlined)          in World::spawn(int) at /game/world.cpp:30:10
//	#2 0x00005613c6d8d61a in main at /game/main.cpp:45:5
//
// Its terminate handler says first what was thrown, on one line:
// "Terminate called after throwing an instance of std::runtime_error: no
// spawn point"; that line is the record, the trace its stack. A trace a
// program prints itself (cpptrace::generate_trace().print()) joins the
// error or warning line it printed just before, else is an error of its
// own, titled by its heading.

const cpptraceHeading = "Stack trace (most recent call first):"

// cpptraceFrame reports a line of cpptrace's trace after its heading: a
// frame, a frame a filter left out, the source around a frame.
func cpptraceFrame(t string) bool {
	n := strings.IndexByte(t, ' ')
	if n > 1 && t[0] == '#' && isDigits(t[1:n]) {
		rest := trimLeft(t[n:])
		return strings.HasPrefix(rest, "0x") || strings.HasPrefix(rest, "(inlined)") || rest == "(filtered)" ||
			strings.HasPrefix(rest, "in ") || strings.HasPrefix(rest, "at ")
	}
	return backwardLine(t) && !strings.HasPrefix(t, "#") // the source around a frame: "   22:     boss->hp += 10;"
}

// beginCpptrace starts cpptrace's trace, its heading the stack's first
// line: an error.
func (r *report) beginCpptrace(t string, end int64) {
	r.e.rec.Level = oplog.LevelError
	r.add(t, end)
}

// cpptrace adds a frame to cpptrace's trace.
func (r *report) cpptrace(s, t string, end int64) bool {
	if !cpptraceFrame(t) && t != "<empty trace>" {
		return false
	}
	return r.add(s, end)
}
