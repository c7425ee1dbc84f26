package crash

import (
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// Parse reads a stack trace in any of the shapes game engines write: Unity
// and Mono (Debug.Log's "Class:Method (args) (at file:line)" and
// "at Class.Method () [0x00012] in <hash>:0"), .NET ("at N.C.M() in
// file:line 42"), Lua tracebacks, Java (with "Caused by:" chains), Go
// panics, gdb and lldb backtraces, glibc's backtrace_symbols, the
// sanitizers' reports, Python (tracebacks and faulthandler's dumps) and
// JavaScript (Node's too). A signal handler's own frames, above the
// signal's trampoline, are left out (signalTrampoline).
func Parse(stack string) Trace {
	var t Trace
	seen := 0     // frame lines read, with a symbol or not
	past := false // no signal's trampoline can come (aboveTheCrash)
	group := pyGroup(stack)
	stack = preamble(stack)
	rust := strings.Contains(stack, ".rs:") // Rust's frames: the crate's files (rust.go)
	stripped := strippedStack(stack)
	python := false
	innerLast := messageLast(stack) // hxcpp's, Neko's and Nim's frames, innermost last as Python's
	py := pyState{indent: -1, first: group}
	last := ""               // the last line that is not a frame
	headIsException := false // Head is an exception's line, not an event bus's "Index: 3" (wrapped.go)
	for line := range strings.Lines(stack) {
		s := unnumbered(strings.TrimSpace(line))
		if s == "Traceback (most recent call last):" || s == "Full traceback:" || s == pyStackInfo { // Ren'Py's traceback.txt; logging's stack_info
			python = true
		}
		if s == "stack traceback:" && t.frameCount == 0 && last != "" {
			t.Head = normalizeHead(last) // Lua's error is the line before its traceback
		}
		if t.frameCount == 0 && last != "" && goLocation(s) && goFunc(last) && t.Head == normalizeHead(last) {
			// zap's and Go's runtime/debug stacks: "main.runZap" then its
			// location; the function is a frame, not the head.
			t.Head = ""
			t.frameCount++
			t.Frames = append(t.Frames, normalizeName(last))
		}
		if s == "" || skipLine(s) || python && py.source(line, s) {
			continue
		}
		f, ok := stackFrame(s, stripped, rust && t.frameCount == 0)
		if ok && rust && t.frameCount > 0 {
			f = "" // the crate's first frame only (stackFrame)
		}
		if !ok {
			if t.frameCount == 0 && (t.Head == "" || !headIsException && isExceptionLine(s)) {
				t.Head = normalizeHead(cutUnrealFile(s))
				headIsException = isExceptionLine(s)
			}
			// Lines after the frames ("Caused by", "exit status 2") are
			// not the crash's head, except in Python, which ends with it.
			last = s
			py.other(s)
			continue
		}
		py.frame(line, s)
		if seen++; !python && aboveTheCrash(s, f, seen, len(t.Frames), &past) {
			t.Frames, t.frameCount = t.Frames[:0], 0
			if goRuntimeFrame(s) {
				continue
			}
		}
		if f == "" {
			continue
		}
		t.frameCount++
		switch {
		case len(t.Frames) < TopFrames:
			t.Frames = append(t.Frames, f)
		case python || innerLast: // the innermost frame comes last: keep the last ones
			copy(t.Frames, t.Frames[1:])
			t.Frames[TopFrames-1] = f
		}
	}
	if innerLast {
		slices.Reverse(t.Frames)
	}
	if python {
		slices.Reverse(t.Frames)
		switch {
		case py.exc != "":
			t.Head = normalizeHead(py.exc)
		case t.Head == "" && last != "":
			t.Head = normalizeHead(last)
		}
	}
	return t
}

// stackFrame is parseFrame's frame of s, and in a stripped program's stack
// (strippedStack) its place in the program, in a Rust panic's (rust) the
// crate's: where it panicked, which is all a panic without RUST_BACKTRACE
// says (rust.go).
func stackFrame(s string, stripped, rust bool) (string, bool) {
	f, ok := parseFrame(s)
	switch {
	case ok && rust:
		f = rustFrame(s)
	case ok && f == "" && stripped:
		f = offsetFrame(s)
	}
	return f, ok
}

// skipLine reports lines that belong to no frame and are not a head either.
func skipLine(s string) bool {
	switch {
	case s == "stack traceback:", s == "Traceback (most recent call last):", s == "(...tail calls...)", s == "[C]: in ?",
		s == "Stack trace (most recent call first):",                                                   // cpptrace's heading
		strings.HasPrefix(s, "-- END OF ") && strings.HasSuffix(s, "BACKTRACE --"),                     // Godot's crash handler's ends of its C++ and GDScript backtraces
		strings.HasSuffix(s, " backtrace (most recent call first):"),                                   // Godot's GDScript and C# backtraces' headings
		strings.HasPrefix(s, "Image memory base: "),                                                    // Godot's on Windows, before its frames
		strings.HasPrefix(s, "at Not Enough Crashes deobfuscated stack trace."),                        // a Minecraft mod's note among the frames
		strings.HasPrefix(s, "Thread ") && strings.HasSuffix(s, "):") && strings.Contains(s, " (LWP "): // gdb's "thread apply all bt"
		return true
	case strings.Trim(s, "-") == "", strings.HasPrefix(s, "An unhandled exception occurred at $"):
		return true // a ruler (D's before its frames); Free Pascal's headline, before the exception's line
	case strings.HasPrefix(s, "goroutine ") && strings.HasSuffix(s, "]:"),
		strings.HasPrefix(s, "created by "),
		// Go's runtime's remarks before its fatal error, and its own stack's heading.
		strings.HasPrefix(s, "runtime: "), s == "runtime stack:",
		s == "Native stacktrace:", s == "Managed Stacktrace:", // Mono's native crash's sections
		strings.HasPrefix(s, "--- End of"),
		// Java's "... 3 more", Go's "...additional frames elided...", not
		// Lua's frame of a long path it cut: ".../mods/default/init.lua:43: in …".
		strings.HasPrefix(s, "...") && !strings.Contains(s, ": in "):
		return true
	case nativeNoise(s), sanitizerNoise(s), valgrindNoise(s), faulthandlerNoise(s), tombstoneNoise(s), glogNoise(s):
		return true
	}
	// A Go frame's location line: "/home/x/main.go:12 +0x1d".
	first, _, _ := strings.Cut(s, " ")
	return strings.Contains(first, ".go:") && !strings.Contains(s, "(")
}

// toolFrame reads the frames of tools whose first words other shapes
// share: Valgrind's "at 0x1091E2: spawn_enemy (game.c:9)" an "at " frame's,
// backward-cpp's "#0    Source "game.cpp", line 58, in spawnEnemy" gdb's;
// boost::stacktrace's "0# main at /game/main.cpp:4".
func toolFrame(s string) (string, bool) {
	if f, ok := valgrindFrame(s); ok {
		return f, true
	}
	if f, ok := boostFrame(s); ok {
		return f, true
	}
	return backwardFrame(s)
}

// parseFrame recognises one frame line and returns its normalised name;
// ok is false when s is not a frame.
func parseFrame(s string) (frame string, ok bool) {
	if f, ok := toolFrame(s); ok {
		return f, true
	}
	switch {
	case goPanicFrame(s):
		return "", true // the frames after it are the panic's (Parse, TopLines)
	case strings.HasPrefix(s, "At: ") || strings.HasPrefix(s, "at: "):
		// Godot's place of an error, as a parser that is not Godot's keeps
		// it: "At: core/translation.cpp:945." (3), "at: get_language_code
		// (core/string/translation.cpp:945)" (4).
		if loc := strings.TrimSuffix(s[4:], "."); strings.HasSuffix(loc, ")") {
			return atFrame(loc), true
		} else if i := strings.LastIndexByte(loc, ':'); i > 0 && isDigit(loc[len(loc)-1]) {
			return oplog.ClipBytes(dropLineNumbers(loc), maxFrameBytes), true
		}
	case strings.HasPrefix(s, "at ") && moduleOffset(s[3:]):
		return "", true // no symbol: an address that differs between builds says nothing
	case strings.HasPrefix(s, "at "):
		return atFrame(s[3:]), true
	case strings.HasPrefix(s, `[love "`) && strings.Contains(s, ": in "):
		return "", true // LÖVE's own scripts (its error handler heads every traceback)
	case len(s) > 1 && s[0] == '#' && isDigit(s[1]), strings.HasPrefix(s, "native: #"):
		if module, sym, ok := androidParts(s); ok {
			if sym == "" || androidSystem(module) && (strings.HasPrefix(sym, "art") || strings.Contains(sym, "+0x")) {
				return "", true // no place, Android's runtime calling into the game, a system library without symbols
			}
			if strings.Contains(sym, "+0x") {
				return sym, true // the module and the offset in it, which normalising would blank
			}
			return normalizeName(sym), true
		}
		return gdbFrame(s), true
	case lldbLine(s):
		return lldbFrame(s), true
	case strings.HasPrefix(s, "@ "):
		return glogFrame(s), true
	case strings.HasPrefix(s, `File "`):
		return pythonFrame(s), true
	case strings.HasPrefix(s, "[Callstack] ") || strings.HasPrefix(s, "0x"):
		if f, ok := unrealFrame(s); ok { // 0x… Module!Function() [file:line]
			return f, true
		}
		if f, ok := nativeFrame(s); ok { // Unity's 0x… (module) function
			return f, true
		}
	}
	for _, read := range [...]func(string) (string, bool){execinfoFrame, loguruFrame, monoNativeFrame, luaNumberedFrame, rubyFrame, haxeFrame, defoldFrame, zigFrame, nimFrame,
		pascalFrame, dFrame, stpFrame, macFrame} {
		if f, ok := read(s); ok {
			return f, true
		}
	}
	if loc, what, found := strings.Cut(s, ": in "); found && luaLocation(loc) {
		what = strings.TrimSuffix(what, `"`) // Factorio quotes a mod's error whole
		return oplog.ClipBytes(dropLineNumbers(loc)+": in "+dropLineNumbers(what), maxFrameBytes), true
	}
	// Mono's frames as Unity's player logs and some bridges write them,
	// without "at ": "WaveSpawner.SpawnNext () [0x00012] in /Users/dev/W.cs:42".
	if i := strings.Index(s, " ("); i > 0 && !strings.ContainsAny(s[:i], " \t") && s[0] != '(' &&
		(strings.Contains(s[i:], ") [0x") || strings.Contains(s[i:], ") in <")) {
		return atFrame(s), true
	}
	if !strings.HasSuffix(s, ")") {
		return "", false
	}
	// Unity's Debug.Log frames: "Player.Update () (at Assets/Player.cs:42)",
	// "UnityEngine.Debug:LogException (System.Exception)".
	if i := strings.Index(s, " ("); i > 0 && !strings.ContainsAny(s[:i], " \t") && s[0] != '(' {
		return normalizeName(s[:i]), true
	}
	// Go: "main.foo(0xc000012345, 0x2)", "main.(*T).Run(...)"; C++
	// without gdb's numbering: "Engine::World::Tick(float)".
	i := strings.IndexByte(s, '(')
	if i <= 0 || strings.ContainsAny(s[:i], " \t") || !strings.Contains(s[:i], ".") && !strings.Contains(s[:i], "::") {
		return "", false
	}
	return normalizeName(s[:strings.LastIndexByte(s, '(')]), true
}

// TopLines returns stack's top n frames as the stack writes them, file and
// line kept: what a reader opens in an editor, where Trace's frames are
// normalised for grouping. Mono's IL offsets (" [0x00012]") are left out,
// each line is trimmed and cut to maxLineBytes, Python's frames, which
// come innermost last, are returned innermost first, and a signal
// handler's own frames are left out as Parse leaves them. Nil when stack
// has no frame.
func TopLines(stack string, n int) []string {
	var out []string
	seen, past := 0, false
	stack = reportedCause(preamble(stack)) // a title's frames: a wrapper's cause's
	python, stripped := false, strippedStack(stack)
	innerLast := messageLast(stack)
	py := pyState{indent: -1}
	goFrame := -1 // the index in out of the frame on the line before, when it may be Go's
	for line := range strings.Lines(stack) {
		s := unnumbered(strings.TrimSpace(line))
		if s == "Traceback (most recent call last):" || s == "Full traceback:" || s == pyStackInfo {
			python = true
		}
		if goFrame >= 0 && goLocation(s) {
			// Go writes a frame's file and line under it: one line here.
			loc, _, _ := strings.Cut(s, " +0x")
			out[goFrame] = oplog.ClipBytes(out[goFrame]+" at "+loc, maxLineBytes)
		}
		goFrame = -1
		if s == "" || skipLine(s) || python && py.source(line, s) {
			continue
		}
		f, ok := parseFrame(s)
		if ok {
			seen++
		}
		if ok && f == "" && stripped {
			f = offsetFrame(s)
		}
		if ok && !python && aboveTheCrash(s, f, seen, len(out), &past) {
			out = out[:0]
		}
		if !ok || f == "" {
			py.other(s)
			continue
		}
		py.frame(line, s)
		if strings.HasPrefix(s, "@ ") {
			s = glogSymbol(s) // past its address
		}
		s = boostSymbol(backwardSymbol(valgrindSymbol(loguruSymbol(s))))
		s = oplog.ClipBytes(dropILOffset(s), maxLineBytes)
		switch {
		case len(out) < n:
			if !python && strings.HasSuffix(s, ")") {
				goFrame = len(out)
			}
			out = append(out, s)
		case python || innerLast:
			copy(out, out[1:])
			out[n-1] = s
		default:
			return out
		}
	}
	if python || innerLast {
		slices.Reverse(out)
	}
	return out
}

// dropILOffset removes Mono's " [0x00012]" from a frame line.
func dropILOffset(s string) string {
	i := strings.Index(s, " [0x")
	if i < 0 {
		return s
	}
	j := strings.IndexByte(s[i:], ']')
	if j < 0 {
		return s
	}
	return s[:i] + s[i+j+1:]
}

// aboveTheCrash reports that the frames so far, kept before frame s (the
// seen-th, after kept ones; f its name), are none of the crash's: a signal
// handler's, printing the stack, above the signal's trampoline (only near
// the top, once, and not past main: glibc's start, after main, looks the
// same; past says so); in Go, the deferred functions that ran while
// panicking (a recover that printed the stack, or panicked again) above
// panic(...), or the runtime reporting the fatal error the game's frame
// below made (which of its functions saw it varies: s is not kept either).
func aboveTheCrash(s, f string, seen, kept int, past *bool) bool {
	if !*past && seen <= maxHandlerFrames+1 && signalTrampoline(s) {
		*past = true
		return true
	}
	*past = *past || f == "main"
	return goPanicFrame(s) || kept == 0 && goRuntimeFrame(s)
}

// goPanicFrame reports Go's frame of the built-in panic,
// "panic({0x4bd840?, 0xc000012345?})": the frames above it are deferred
// functions run while panicking (a recover printing the stack, a
// cleanup that panicked again), the frame below it is where the panic
// began.
func goPanicFrame(s string) bool {
	return strings.HasPrefix(s, "panic(") && strings.HasSuffix(s, ")")
}

// goRuntimeFrame reports a frame of Go's runtime, the ones a traceback
// shows ("internal/runtime/maps.fatal({0x510d3d?, 0x0?})",
// "internal/runtime/maps.(*Map).putSlotSmallFast64(...)": a concurrent
// map write reports from one or the other, as it is seen first), and those
// of its "runtime stack:" ("runtime.throw({0x4cef00?, 0x41a905?})").
func goRuntimeFrame(s string) bool {
	return strings.HasPrefix(s, "internal/runtime/") || strings.HasPrefix(s, "runtime.") && strings.HasSuffix(s, ")") && strings.Contains(s, "(")
}

// goLocation reports a Go frame's location line: "/home/x/main.go:12 +0x1d".
func goLocation(s string) bool {
	first, _, _ := strings.Cut(s, " ")
	return strings.Contains(first, ".go:")
}

// goFunc reports a Go function line without arguments, "main.runZap",
// "github.com/x/y.(*T).Run".
func goFunc(s string) bool {
	return strings.Contains(s, ".") && !strings.ContainsAny(s, " \t:") && !strings.HasSuffix(s, ".")
}
