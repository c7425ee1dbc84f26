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
}

// source reports whether line is the source line under a Python frame:
// indented deeper than the `File "` line before it.
func (p *pyState) source(line, s string) bool {
	if p.indent < 0 || strings.HasPrefix(s, `File "`) {
		return false
	}
	return indentation(line) > p.indent
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
// exception they end with.
func (p *pyState) other(s string) {
	if p.after {
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
