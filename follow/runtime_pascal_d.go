package follow

import "strings"

// The uncaught exceptions of Free Pascal (Castle Game Engine's games,
// Lazarus's) and D programs, each one fatal record: its text the
// exception and its message, its stack the frames as printed.
//
// Free Pascal's run-time library, built with line info (-gl), names each
// frame's routine, line and file; without, only its address:
//
//	An unhandled exception occurred at $00000000004010B3:
//	EAccessViolation: Access violation
//	  $00000000004010B3  SPAWNENEMY,  line 9 of game.pas
//	  $0000000000401129  TICK,  line 14 of game.pas
//
// Without SysUtils, a run-time error alone: "Runtime error 216 at
// $00000000004010B3", then the frames.
//
// D's runtime prints the exception's class, where it was thrown and its
// message, then (a build with symbols) the frames, innermost first:
//
//	core.exception.ArrayIndexError@game.d(3): index [5] is out of bounds for array of length 3
//	----------------
//	??:? onArrayIndexError [0x7f745ed418c4]
//	/home/dev/game/game.d:3 void game.spawnEnemy(int[], int) [0x55d187b4933c]
//	/home/dev/game/game.d:4 _Dmain [0x55d187b49479]

const pascalUnhandled = "An unhandled exception occurred at $"

// pascalStart reports Free Pascal's first line.
func pascalStart(t string) bool {
	if strings.HasPrefix(t, pascalUnhandled) {
		return true
	}
	n, ok := strings.CutPrefix(t, "Runtime error ")
	if !ok {
		return false
	}
	code, at, _ := strings.Cut(n, " ")
	return isDigits(code) && strings.HasPrefix(at, "at $")
}

// pascalFrame reports a frame: "$00000000004010B3  SPAWNENEMY,  line 9 of
// game.pas", or its address alone.
func pascalFrame(t string) bool {
	return len(t) > 8 && t[0] == '$' && isHexDigit(t[1])
}

// pascal adds a line to Free Pascal's report: after the headline of an
// unhandled exception, the exception's line (the text); then the frames.
func (r *report) pascal(t string, end int64) bool {
	switch {
	case pascalFrame(t):
		r.state = stFrames
		return r.add(t, end)
	case r.state == stHead:
		r.state = stFrames
		r.e.prepend(r.e.rec.Text)
		r.setText(t)
		r.e.end = end
		return true
	}
	return false
}

// dHead splits D's first line into the exception's class, where it was
// thrown and the message: "object.Exception@game.d(2): level missing". sp
// is where t's first space is: after the place's "):" (every line is
// asked: only that word is read). ok is false for any other line.
func dHead(t string, sp int) (class, place, msg string, ok bool) {
	if sp < 4 || t[sp-1] != ':' || t[sp-2] != ')' {
		return "", "", "", false
	}
	at := strings.IndexByte(t[:sp], '@')
	open := strings.LastIndexByte(t[:sp], '(')
	if at <= 0 || open < at || !isDigits(t[open+1:sp-2]) || !strings.Contains(t[:at], ".") {
		return "", "", "", false
	}
	for i := 0; i < at; i++ {
		if c := t[i]; !isLetter(c) && !isDigit(c) && c != '.' && c != '_' {
			return "", "", "", false
		}
	}
	return t[:at], t[at+1 : sp-1], t[sp+1:], true
}

// beginD starts D's report: the class and message its text; where it was
// thrown is its stack when no frames follow (a build without symbols).
func (r *report) beginD(t string, sp int) {
	class, place, msg, _ := dHead(t, sp)
	r.setText(class + ": " + msg)
	r.head = place
	r.state = stHead
}

// dFrame reports a frame of D's trace: "/game/game.d:3 void
// game.spawnEnemy(int[], int) [0x55d187b4933c]", "??:? _d_throw [0x…]".
func dFrame(t string) bool {
	return strings.HasSuffix(t, "]") && strings.Contains(t, " [0x") && strings.IndexByte(t, ' ') > 0
}

// d adds a line to D's report: the ruler, then the frames.
func (r *report) d(t string, end int64) bool {
	switch {
	case r.state == stHead && strings.Trim(t, "-") == "" && len(t) > 8:
		r.state = stFrames
		return r.add(t, end)
	case r.state == stFrames && dFrame(t):
		return r.add(t, end)
	}
	return false
}
