package crash

import (
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// StackTracePlus' frames, as Balatro's crash reports (Steamodded's) print
// them, innermost first, each named by its kind and function, then where:
//
//	(3) field C function 'max'
//	(4) Lua field 'update_hand_limit_text' at Steamodded file 'src/utils.lua:2634'
//	(8) Lua upvalue 'sr' at file 'challengerdeep.lua:333' (from mod with id ChDp)
//	(6) main chunk of file 'src/init.lua' at line 57 (from mod with id balatro_plus)
//
// A mod's frame (its id after the place) names the crash; Steamodded's,
// LÖVE's and a C function's are the engine's.

// stpModMark follows the place of a mod's frame.
const stpModMark = " (from mod with id "

// stpParts reads a StackTracePlus frame: its function, its file and line
// ("src/utils.lua:2634"), the mod it is in.
func stpParts(s string) (fn, place, mod string, ok bool) {
	if len(s) < 5 || s[0] != '(' || !isDigit(s[1]) {
		return "", "", "", false
	}
	n, rest, found := strings.Cut(s[1:], ") ")
	if !found || !allDigits(n) {
		return "", "", "", false
	}
	if i := strings.Index(rest, stpModMark); i >= 0 {
		mod = strings.TrimSuffix(rest[i+len(stpModMark):], ")")
		rest = rest[:i]
	}
	rest = strings.TrimSuffix(strings.TrimSpace(rest), " (best guess)")
	if i := strings.Index(rest, " '"); i >= 0 && !strings.HasSuffix(rest[:i], " file") { // not "LÖVE function at file 'boot.lua:377'"
		fn, _, _ = strings.Cut(rest[i+2:], "'")
	}
	if _, f, ok := strings.Cut(rest, "file '"); ok {
		place, _, _ = strings.Cut(f, "'")
		if _, line, ok := strings.Cut(rest, "' at line "); ok && allDigits(line) {
			place += ":" + line // a main chunk's: "of file 'src/init.lua' at line 57"
		}
	}
	if fn == "" && place == "" {
		return "", "", "", false
	}
	return fn, place, mod, true
}

// stpFrame is a StackTracePlus frame normalised: its function and file.
func stpFrame(s string) (string, bool) {
	fn, place, _, ok := stpParts(s)
	if !ok {
		return "", false
	}
	switch {
	case place == "":
		return normalizeName(fn), true
	case fn == "":
		return oplog.ClipBytes(dropLineNumbers(place), maxFrameBytes), true
	}
	return oplog.ClipBytes(dropLineNumbers(place)+": in "+normalizeName(fn), maxFrameBytes), true
}

// stpTitle is a StackTracePlus frame as a title names it: "sr
// (challengerdeep.lua:333, mod ChDp)".
func stpTitle(s string) (string, bool) {
	fn, place, mod, ok := stpParts(s)
	switch {
	case !ok:
		return "", false
	case place == "":
		return fn, true
	case fn == "":
		fn = "main chunk" // StackTracePlus names no function but a file's main chunk
	}
	switch {
	case mod != "":
		return fn + " (" + place + ", mod " + mod + ")", true
	}
	return fn + " (" + place + ")", true
}

// stpEngine reports a frame of Steamodded's, LÖVE's or a C function.
func stpEngine(s string) bool {
	_, rest, _ := strings.Cut(s, ") ")
	return strings.Contains(rest, " at Steamodded file '") || strings.HasPrefix(rest, "LÖVE ") || strings.Contains(rest, "C function '")
}

// stpPastHandler is a StackTracePlus trace's frames below LÖVE's call of
// the error handler that printed it ("(3) LÖVE method at file
// 'boot.lua:352'", the handler's and a mod's console's frames above it):
// the error's own. Any other frames as they are.
func stpPastHandler(lines []string) []string {
	for i, l := range lines {
		_, rest, _ := strings.Cut(l, ") ")
		if i+1 < len(lines) && l != "" && l[0] == '(' && strings.HasPrefix(rest, "LÖVE ") && strings.Contains(rest, "file 'boot.lua:") {
			return lines[i+1:]
		}
	}
	return lines
}
