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
// Free Pascal: "$00000000004010B3  SPAWNENEMY,  line 9 of game.pas"
// (the address alone without line info), innermost first.
// D: "/game/game.d:3 void game.spawnEnemy(int[], int) [0x55d187b4933c]",
// innermost first; "??:? onArrayIndexError [0x7f…]" is the runtime's.

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

// pascalParts splits a frame of Free Pascal's into its routine and place
// ("game.pas:9"); both are "" for an address alone.
func pascalParts(s string) (routine, loc string, ok bool) {
	if len(s) < 9 || s[0] != '$' || !isHex(s[1]) {
		return "", "", false
	}
	_, rest, _ := strings.Cut(s, " ")
	routine, at, found := strings.Cut(strings.TrimSpace(rest), ",")
	line, file, of := strings.Cut(strings.TrimSpace(at), " of ")
	if !found || !of || !strings.HasPrefix(line, "line ") {
		return "", "", true
	}
	return routine, file + ":" + strings.TrimPrefix(line, "line "), true
}

// pascalFrame reads a frame of Free Pascal's: its routine.
func pascalFrame(s string) (string, bool) {
	routine, _, ok := pascalParts(s)
	return normalizeName(routine), ok
}

// dParts splits a frame of D's trace into its function and place.
// Its address may be cut already (TopLines).
func dParts(s string) (fn, loc string, ok bool) {
	if i := strings.LastIndex(s, " [0x"); i > 0 && strings.HasSuffix(s, "]") {
		s = s[:i]
	}
	loc, fn, found := strings.Cut(s, " ")
	i := strings.LastIndex(loc, ".d:")
	if !found || loc != "??:?" && (i < 0 || !allDigits(loc[i+len(".d:"):])) {
		return "", "", false
	}
	if j := strings.IndexByte(fn, '('); j > 0 {
		if k := strings.LastIndexByte(fn[:j], ' '); k >= 0 {
			fn = fn[k+1:] // its return type
		}
	}
	return fn, loc, true
}

// dFrame reads a frame of D's trace: its function.
func dFrame(s string) (string, bool) {
	fn, _, ok := dParts(s)
	return normalizeName(fn), ok
}

// compiledTitle is a Zig, Nim, Free Pascal or D frame as a title names it:
// the function and its place, "showDoomFire (/game/src/main.zig:609:39)".
func compiledTitle(s string) (string, bool) {
	if fn, loc, ok := zigParts(s); ok {
		return fn + " (" + loc + ")", true
	}
	if proc, loc, ok := nimParts(s); ok {
		return proc + " (" + loc + ")", true
	}
	if routine, loc, ok := pascalParts(s); ok && routine != "" {
		return routine + " (" + loc + ")", true
	}
	if fn, loc, ok := dParts(s); ok {
		return fn + " (" + loc + ")", true
	}
	return "", false
}
