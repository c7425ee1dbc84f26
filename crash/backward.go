package crash

import (
	"slices"
	"strings"
)

// bombela/backward-cpp's trace, as the follower keeps it: its heading,
// "Stack trace (most recent call last):", then frames outermost first,
// each an object or a source file and line, with the lines inlined into it
// ("| Source …") and the source around it ("  >  58: code"):
//
//	#3    Source "/game/main.cpp", line 98, in main [0x560027791dd2]
//	#1    Object "./game", at 0x55e5098b6398, in World::spawn(int)
//	#0    Source "./nptl/pthread_kill.c", line 44, in __pthread_kill_implementation [0x7f7ecc4a8eec]

const backwardHeading = "Stack trace (most recent call last)"

// backwardParts splits a frame of backward-cpp's (past its number and an
// inlined line's bar) into its function and its place: a file and line,
// or "in" the object; ok is false for any other line.
func backwardParts(s string) (fn, place string, ok bool) {
	if n := strings.IndexByte(s, ' '); n > 1 && s[0] == '#' && allDigits(s[1:n]) {
		s = strings.TrimLeft(s[n:], " ")
	}
	s = strings.TrimPrefix(s, "| ")
	if rest, found := strings.CutPrefix(s, `Source "`); found {
		file, rest, ok1 := strings.Cut(rest, `", line `)
		line, fn, ok2 := strings.Cut(rest, ", in ")
		if !ok1 || !ok2 || !allDigits(line) {
			return "", "", false
		}
		if i := strings.LastIndex(fn, " [0x"); i >= 0 && strings.HasSuffix(fn, "]") {
			fn = fn[:i]
		}
		return fn, file + ":" + line, true
	}
	if rest, found := strings.CutPrefix(s, `Object "`); found {
		object, rest, ok1 := strings.Cut(rest, `", at 0x`)
		_, fn, ok2 := strings.Cut(rest, ", in")
		if !ok1 || !ok2 {
			return "", "", false
		}
		return strings.TrimSpace(fn), "in " + object, true
	}
	return "", "", false
}

// backwardFrame is a frame of backward-cpp's as a signature keeps it: its
// function, "" for one without a name and the runtimes'.
func backwardFrame(s string) (string, bool) {
	fn, _, ok := backwardParts(s)
	if !ok {
		return "", false
	}
	if fn == "" || nativeStartup(fn) || runtimeFrame(backwardSymbol(s)) {
		return "", true
	}
	return normalizeName(demangled(fn)), true
}

// backwardSymbol is a frame of backward-cpp's without its number and
// address: "spawnEnemy (/game/world.cpp:58)", "World::spawn(int) (in
// ./game)"; any other line is s.
func backwardSymbol(s string) string {
	fn, place, ok := backwardParts(s)
	switch {
	case !ok:
		return s
	case fn == "":
		return "(" + place + ")"
	}
	return fn + " (" + place + ")"
}

// backwardInnerFirst returns backward-cpp's trace as its frames alone,
// innermost first as every other stack is read: not its heading, the
// source around each frame, nor the signal's line after them. Any other
// stack is returned as it is.
func backwardInnerFirst(stack string) string {
	if !strings.HasPrefix(stack, backwardHeading) {
		return stack
	}
	var frames []string
	for line := range strings.Lines(stack) {
		if s := strings.TrimSpace(line); strings.HasPrefix(s, "#") || strings.HasPrefix(s, "| ") || strings.HasPrefix(s, `Source "`) {
			if _, _, ok := backwardParts(s); ok {
				frames = append(frames, s)
			}
		}
	}
	slices.Reverse(frames)
	return strings.Join(frames, "\n")
}
