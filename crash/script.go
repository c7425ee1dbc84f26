package crash

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// pyState follows a Python traceback through Parse: the source line Python
// prints under a frame is no frame (though "renpy.exports.say(who, what)"
// looks like one), and the crash's head is the exception line that ends
// the frames, not the lines around the traceback (Ren'Py's "While running
// game code:" before it, the platform and version after it).
type pyState struct {
	indent int  // the indentation of the last `File "` frame, or -1
	after  bool // the line before was a frame or its source line
	exc    string
	first  bool // keep the first exception: an exception group's (pyUnboxed)
}

// source reports whether line is the source line under a Python frame:
// indented deeper than the `File "` line before it.
func (p *pyState) source(line, s string) bool {
	if p.indent < 0 || strings.HasPrefix(s, `File "`) {
		return false
	}
	return indentation(line) > p.indent || oplog.CaretLine(s)
}

// frame records that line, a frame, was read.
func (p *pyState) frame(line, s string) {
	p.after = true
	p.indent = -1
	if strings.HasPrefix(s, `File "`) {
		p.indent = indentation(line)
	}
}

// other records a line that is no frame: after frames, it is the
// exception they end with (the lines after it, its message's and notes,
// are not; nor is the count of a recursion's repeated frames).
func (p *pyState) other(s string) {
	if strings.HasPrefix(s, "[Previous line repeated ") {
		return
	}
	if p.after && (p.exc == "" || !p.first) {
		p.exc = s
	}
	p.after, p.indent = false, -1
}

// indentation counts the spaces and tabs line starts with.
func indentation(line string) int {
	return len(line) - len(strings.TrimLeft(line, " \t"))
}

// luaNumberedFrame reads the numbered frames of Garry's Mod and other Lua
// hosts: "1. unknown - lua/vgui/dlabel.lua:168", "2. include - [C]:-1".
func luaNumberedFrame(s string) (string, bool) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == 0 || !strings.HasPrefix(s[i:], ". ") {
		return "", false
	}
	fn, loc, ok := strings.Cut(s[i+2:], " - ")
	if !ok || fn == "" || strings.ContainsAny(fn, " \t") || !luaLocation(loc) && !strings.HasPrefix(loc, "[C]") {
		return "", false
	}
	loc = strings.TrimSuffix(loc, ":-1") // a C function's "line"
	return oplog.ClipBytes(dropLineNumbers(loc)+": in "+normalizeName(fn), maxFrameBytes), true
}

// pythonPath keeps the last two parts of a Python frame's file, the ones
// that say which file it is wherever the game or its engine was installed:
// "C:\Users\me\renpy-8.3.3-sdk\renpy\ast.py" is "renpy/ast.py".
func pythonPath(path string) string {
	path = strings.ReplaceAll(path, `\`, "/")
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return path
	}
	if j := strings.LastIndexByte(path[:i], '/'); j >= 0 {
		return path[j+1:]
	}
	return path
}

// preamble returns stack without what some runtimes print before the
// crash's own frames: faulthandler's other threads (currentThread) and
// Node's source excerpt (nodeExcerpt); a Python exception group's
// traceback out of its box (pyUnboxed); of a multiprocessing worker's
// crash, the worker's traceback (pyRemote); of logging's own error, the
// logging call's frames as the traceback's outer ones (pyLoggingError).
// loguru's frames are turned innermost first (loguruInnerFirst); of the
// JVM's fatal error, its problematic frame alone (jvmBanner).
func preamble(stack string) string {
	return javaLeadIn(gdbStops(backwardInnerFirst(jvmBanner(loguruInnerFirst(wineFrames(pyUnboxed(nodeExcerpt(currentThread(pyOwn(pyRemote(pyLoggingError(stack))))))))))))
}

// pyLoggingError is logging's report of its own error as it formatted a
// record ("--- Logging error ---", the traceback of the error in logging's
// own frames and the handler's, "Call stack:" and the frames of the
// logging call, its "Message: " and "Arguments: ") as one traceback whose
// innermost frames are the logging call's: the message and arguments it
// passed are what did not fit (a handler's formatter of the game's own,
// in the traceback, only ran them). Any other stack is returned as it is.
func pyLoggingError(stack string) string {
	i := strings.Index(stack, "Call stack:\n")
	if i <= 0 || stack[i-1] != '\n' && stack[i-1] != ' ' || !strings.Contains(stack[:i], "Traceback (most recent call last):") {
		return stack
	}
	calls := stack[i+len("Call stack:\n"):]
	if j := strings.Index(calls, "Message: "); j >= 0 {
		calls = calls[:strings.LastIndexByte(calls[:j], '\n')+1] // its prefix too
	}
	start := strings.LastIndexByte(stack[:i], '\n') + 1             // "Call stack:"'s line, its prefix too
	exc := strings.LastIndexByte(stack[:max(start-1, 0)], '\n') + 1 // the exception's line
	if exc == 0 {
		return stack
	}
	if !strings.HasSuffix(calls, "\n") {
		calls += "\n"
	}
	return stack[:exc] + calls + stack[exc:start]
}

// pyRemote is, of the traceback a multiprocessing pool's parent prints for
// its worker's exception ("multiprocessing.pool.RemoteTraceback:", the
// worker's traceback in triple quotes, then the parent's, which only
// re-raised it), the worker's: where the exception was raised. Any other
// stack is returned as it is.
func pyRemote(stack string) string {
	rest, ok := strings.CutPrefix(stack, "multiprocessing.pool.RemoteTraceback:")
	if !ok {
		return stack
	}
	_, rest, ok = strings.Cut(rest, "\"\"\"\n")
	worker, _, closed := strings.Cut(rest, "\n\"\"\"")
	if !ok || !closed {
		return stack
	}
	return worker
}

// pyOwn is a Python traceback without what Python ignored as it exited,
// right after the exception that ended the program ("Exception ignored
// in: <function Sound.__del__ at 0x7f...>", a destructor's traceback):
// that is another's report; nor the logging call's own stack a logger adds
// under the traceback ("Stack (most recent call last):", stack_info=True):
// where it was logged, not raised. Any other stack is returned as it is.
func pyOwn(stack string) string {
	for _, after := range [...]string{"\nException ignored ", "\n" + pyStackInfo} {
		if i := strings.Index(stack, after); i > 0 && strings.Contains(stack[:i], "Traceback (most recent call last):") {
			stack = stack[:i]
		}
	}
	return stack
}

// pyStackInfo heads the stack of the call to Python's logging that
// stack_info=True adds, innermost last as a traceback's.
const pyStackInfo = "Stack (most recent call last):"

// pyGroupHeader heads a Python exception group's traceback (3.11 and
// later), each of whose lines is in a box: "  |   File ...", the group's
// own exception "  | ExceptionGroup: asset batch failed (2
// sub-exceptions)", then each sub-exception's traceback in a box within,
// "    | Traceback (most recent call last):", between rules of '+' and '-'
// ("  +-+---------------- 1 ----------------").
const pyGroupHeader = "+ Exception Group Traceback (most recent call last):"

// pyGroup reports whether stack is a Python exception group's traceback.
func pyGroup(stack string) bool { return strings.Contains(stack, pyGroupHeader) }

// pyUnboxed is an exception group's traceback as tracebacks one after
// the other: the group's, then each sub-exception's, every line out of
// its box (the indentation within it kept), the box's rules left out.
// Its head is the group's exception (pyState.first), its innermost frames
// the last sub-exception's: where the game failed. Any other stack is
// returned as it is.
func pyUnboxed(stack string) string {
	if !pyGroup(stack) {
		return stack
	}
	var b strings.Builder
	for line := range strings.Lines(stack) {
		t := strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(t, pyGroupHeader):
			b.WriteString("Traceback (most recent call last):\n")
		case strings.HasPrefix(t, "|"):
			b.WriteString(t[1:])
		case strings.HasPrefix(t, "+") && strings.Trim(t, "+-0123456789 \t\r\n") == "":
		default:
			b.WriteString(line)
		}
	}
	return b.String()
}

// currentThread returns a faulthandler dump from its current thread on:
// with all_threads, the other threads' stacks may come first, and the
// crash is the current thread's. Any other stack is returned whole.
func currentThread(stack string) string {
	if i := strings.Index(stack, "\nCurrent thread 0x"); i >= 0 {
		return stack[i+1:]
	}
	return stack
}

// faulthandlerNoise reports the lines of Python's faulthandler dump that
// are neither frames nor the crash's head (which is the record's message,
// "Fatal Python error: Segmentation fault"): the threads' headers, the
// interpreter's state and its extension modules. Its frames,
// `File "game.py", line 7 in crash_now`, come innermost first.
func faulthandlerNoise(s string) bool {
	switch {
	case strings.HasSuffix(s, "(most recent call first):") &&
		(strings.HasPrefix(s, "Current thread ") || strings.HasPrefix(s, "Thread ") || strings.HasPrefix(s, "Stack ")),
		strings.HasPrefix(s, "Extension modules: "), strings.HasPrefix(s, "Python runtime state: "),
		strings.HasPrefix(s, "Fatal Python error: "):
		return true
	}
	return false
}

// nodeExcerpt returns a Node.js crash's stack without the excerpt Node
// prints above it, "/tmp/g/game.js:12", the source line and a caret
// under the column, then a blank line: the excerpt is neither a frame nor
// the error, which follows it. Any other stack is returned whole.
func nodeExcerpt(stack string) string {
	trimmed := strings.TrimLeft(stack, "\n")
	first, rest, ok := strings.Cut(trimmed, "\n")
	first = strings.TrimSpace(first)
	i := strings.LastIndexByte(first, ':')
	if !ok || i <= 0 || !allDigits(first[i+1:]) || strings.ContainsAny(first, " \t") || !scriptFile(first[:i]) {
		return stack
	}
	if j := strings.Index(rest, "\n\n"); j >= 0 && strings.Count(rest[:j], "\n") <= 2 {
		return rest[j+2:]
	}
	return stack
}

// scriptFile reports a JavaScript or TypeScript file's path.
func scriptFile(path string) bool {
	for _, ext := range []string{".js", ".mjs", ".cjs", ".ts", ".mts"} {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return false
}
