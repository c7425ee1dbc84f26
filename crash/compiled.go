package crash

import "strings"

// The frames of Zig's panics, Nim's tracebacks and Dart's stacks (the follow
// layer's runtime_compiled.go reads their reports).
//
// Zig: "/game/src/main.zig:609:39: 0x233fb7 in showDoomFire (DOOM-fire)",
// innermost first; "???:?:?: 0x0 in ??? (???)" names nothing.
// Nim: "/game/game.nim(5)    spawnEnemy", outermost first, the message's
// line last ("Error: unhandled exception: …", "SIGSEGV: …": messageLast).
// Dart: "#1      World.spawnEnemy (file:///game/bin/game.dart:12:20)",
// innermost first, read as a numbered frame.

// zigParts splits a frame of Zig's stack into its function and place.
func zigParts(s string) (fn, loc string, ok bool) {
	loc, rest, ok := strings.Cut(s, ": 0x")
	_, fn, found := strings.Cut(rest, " in ")
	if !ok || !found || strings.Count(loc, ":") < 2 || !strings.HasSuffix(fn, ")") {
		return "", "", false
	}
	if i := strings.LastIndex(fn, " ("); i > 0 {
		fn = fn[:i] // the module
	}
	return fn, loc, true
}

// zigFrame reads a frame of Zig's stack: its function; "" for one Zig could not name.
func zigFrame(s string) (string, bool) {
	fn, _, ok := zigParts(s)
	if !ok || fn == "???" {
		return "", ok
	}
	return normalizeName(fn), true
}

// nimParts splits a frame of Nim's traceback into its proc and place.
func nimParts(s string) (proc, loc string, ok bool) {
	i := strings.Index(s, ".nim(")
	if i <= 0 {
		return "", "", false
	}
	j := strings.IndexByte(s[i:], ')')
	if j <= len(".nim(") || strings.Trim(s[i+len(".nim("):i+j], "0123456789") != "" {
		return "", "", false
	}
	proc = strings.TrimSpace(s[i+j+1:])
	return proc, s[:i+j+1], proc != "" && !strings.ContainsAny(proc, " \t")
}

// nimFrame reads a frame of Nim's traceback: its proc.
func nimFrame(s string) (string, bool) {
	proc, _, ok := nimParts(s)
	return normalizeName(proc), ok
}

// compiledTitle is a Zig or Nim frame as a title names it: the function
// and its place, "showDoomFire (/game/src/main.zig:609:39)".
func compiledTitle(s string) (string, bool) {
	if fn, loc, ok := zigParts(s); ok {
		return fn + " (" + loc + ")", true
	}
	if proc, loc, ok := nimParts(s); ok {
		return proc + " (" + loc + ")", true
	}
	return "", false
}
