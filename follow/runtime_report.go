package follow

import (
	"bytes"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// rtKind is the kind of report a runtime prints, which says how it goes on.
type rtKind uint8

const (
	rtNone         rtKind = iota
	rtPython              // "Traceback (most recent call last):", its frames, the exception's line last
	rtFaulthandler        // "Fatal Python error: ...", then every thread's frames
	rtPyWarning           // "game.py:12: UserWarning: ...", then the source line
	rtNative              // glibc's assertion or abort message, a signal's headline, C++'s terminate; frames after
	rtSanitizer           // AddressSanitizer, LeakSanitizer, UndefinedBehaviorSanitizer
	rtDotnet              // .NET's "Unhandled exception." or Mono's "Unhandled Exception:"
	rtJava                // the JVM's "Exception in thread "main" ..."
	rtThrown              // an exception's line and its "at" frames (Java, .NET, JavaScript), printed by a handler
	rtNode                // Node's uncaught error: location, source line, caret, the error, frames, "Node.js vN"
	rtGo                  // "panic: ..." or "fatal error: ...", then the goroutines
	rtRuler               // a line of '=' that may head a sanitizer's report
	rtScript              // Lua's error or Rust's panic beneath a prefix (runtime_script.go)
	rtWine                // Wine's "wine: Unhandled page fault ..." and winedbg's report (runtime_wine.go)
	rtRuby                // Ruby's uncaught exception: "main.rb:16:in `equip': ... (NoMethodError)", frames (runtime_ruby.go)
	rtSDL                 // SDL's "Assertion failure at f (game.c:10), triggered 1 time:" (runtime_sdl.go)
	rtGameMaker           // GameMaker's "FATAL ERROR in", its event, message and frames (runtime_gamemaker.go)
	rtLua                 // a Lua error's message and its "stack traceback:" beneath a prefix (runtime_script.go)
	rtAssert              // a game's own assertion macro's line: "ASSERT FAILED: count < 8 at game.cpp:8"
	rtZig                 // Zig's "thread N panic: …", its frames with their source lines (runtime_compiled.go)
	rtNim                 // Nim's frames, then "Error: unhandled exception: …" (runtime_compiled.go)
	rtOdin                // Odin's runtime check's line: "/game/main.odin(12:13) Index 5 is out of range 0..<3" (runtime_compiled.go)
	rtDart                // Dart's "Unhandled exception:", the message, "#0 …" frames (runtime_compiled.go)
	rtDefold              // Defold's "ERROR:CRASH: CALL STACK:" and its frames (runtime_defold.go)
	rtHaxe                // Haxe's uncaught exception: HashLink's, hxcpp's, Neko's "Called from" frames (runtime_haxe.go)
	rtPHP                 // PHP's "PHP Fatal error:  Uncaught …", its "Stack trace:"; its warnings (runtime_php_perl.go)
	rtPerl                // Perl's "… at game.pl line 12." and Carp's callers (runtime_php_perl.go)
	rtPascal              // Free Pascal's "An unhandled exception occurred at $…", its "$… ROUTINE, line N of F" frames (runtime_pascal_d.go)
	rtD                   // D's "object.Exception@game.d(2): msg", a ruler, its frames (runtime_pascal_d.go)
	rtJVM                 // the JVM's fatal error banner: "# A fatal error has been detected by …" (runtime_jvm.go)
	rtV8                  // V8's "FATAL ERROR: … JavaScript heap out of memory" and its native frames (runtime_v8.go)
	rtRustOverflow        // Rust's "thread 'main' has overflowed its stack", "fatal runtime error: …" (runtime_compiled.go)
	rtMonoNative          // Mono's "Native Crash Reporting", its sections between rulers (runtime_mono.go)
	rtValgrind            // a block of Valgrind's lines, "==PID== Invalid read of size 4" and its frames (runtime_valgrind.go)
	rtBackward            // backward-cpp's "Stack trace (most recent call last):", its frames, the signal (runtime_backward.go)
	rtCpptrace            // cpptrace's "Stack trace (most recent call first):" and its frames (runtime_cpptrace.go)
	rtCoredump            // systemd-coredump's "Process 48211 (game) of user 1000 dumped core." and its stack (runtime_coredump.go)
	rtGameCrash           // a game's own crash handler's report: Cataclysm's, Yamagi Quake II's, Widelands', OpenMW's (runtime_games.go)
	numKinds
)

// States within a report.
const (
	stFrames     int8 = iota // Python: frames; .NET: frames; Node: frames
	stExc                    // Python: after the exception's line
	stChain                  // Python: after "During handling of the above exception"
	stHead                   // Mono: after "Unhandled Exception:", the exception's line next; Dart: its message
	stDup                    // Mono: its second printout ("[ERROR] FATAL UNHANDLED EXCEPTION")
	stSummary                // sanitizer: after its SUMMARY line
	stShadow                 // ASan: its shadow bytes, left out
	stSource                 // Node: after the location, its source line
	stCaret                  // Node: after the source line, the caret
	stError                  // Node: after the caret, blank lines and the error
	stNodeEnd                // Node: after its frames, "Node.js vN"
	stWineWait               // Wine: after ntdll's line, winedbg's headline next
	stWineReport             // Wine: in winedbg's report
	stRubyFrames             // Ruby: in the frames
	stGMHeader               // GameMaker: the event's lines, the message next
	stGMMessage              // GameMaker: after the message
	stGMFrames               // GameMaker: after its rulers, the frames
	stVgBlank                // Valgrind: after a race's blank line, the access it conflicts with next
	stLogCall                // Python: after logging's "Call stack:", the logging call's frames, its message and arguments
)

// report is the crash report being read.
type report struct {
	kind       rtKind
	e          entry
	state      int8
	base       int  // indentation of the report's first line
	prefixed   bool // its first line had a logger's prefix: so do the others
	wrapped    bool // that prefix is a launcher's wrapper alone ("[WARNING] stderr: "): every line of the program has it
	done       bool // its last line came
	confirmed  bool // false while a Node location has not shown its error
	attached   bool // it joins the line before it, attach
	attach     oplog.Record
	ubsan      bool
	group      bool     // Python: an exception group's traceback, in its box
	ignored    bool     // Python: an exception it ignored follows the report's own
	renpy      int8     // Python: the parts of Ren'Py's report read (renpyFull)
	message    int8     // Python, C++, Java: lines of its exception's message still to come, at most
	braces     bool     // in the properties Node prints after an error's frames: "{", "[cause]: ...", "}"
	head       string   // an exception's line (rtThrown): the stack's first when the report joins the line before; PHP's place
	php        string   // PHP's last fatal error, message and place: the other copy of it is no other crash
	phpDisplay bool     // it was the copy PHP shows, not the one it logs
	keep       bool     // Mono's native crash: the section read is kept
	managed    bool     // Mono's native crash: its managed frames came, its last section
	dump       bool     // Mono's native crash: in gdb's dump of the threads
	dropped    int      // Mono's native crash: the lines left out between its sections (gdb's)
	vgPid      string   // a native crash: Valgrind's pid, its report of the abort the crash's line explained being read
	explained  bool     // backward-cpp's or cpptrace's trace: the stack of a native crash's line, whose text it keeps
	raw        []string // Node's lines until its error shows
	rawEnds    []int64
}

// begin starts a report of kind with its first line: line as it came,
// body past its prefix.
func (r *report) begin(kind rtKind, line, body string, prefixed bool, level oplog.Level, end int64) {
	t := trimLeft(body)
	*r = report{kind: kind, e: r.e, base: indentation(body), prefixed: prefixed, confirmed: true,
		raw: r.raw[:0], rawEnds: r.rawEnds[:0], php: r.php, phpDisplay: r.phpDisplay}
	r.e.start(t, level, end)
	switch kind {
	case rtPython:
		r.add(t, end)
		if t == pyRemote {
			r.state = stChain // the worker's traceback, in quotes, then the parent's
		}
		if strings.HasPrefix(t, `File "`) { // a script that does not compile: no header
			r.base = max(r.base-1, 0)
		}
		r.group = t == pyGroupTraceback
		if t == renpyFull {
			r.renpy = 1
		}
	case rtNative:
		r.beginNative(t, end)
	case rtThrown:
		r.head = t
	case rtSanitizer:
		r.ubsan = strings.Contains(t, ": runtime error: ")
		r.setText(strings.TrimPrefix(t, "WARNING: "))
	case rtDotnet:
		r.beginDotnet(t)
	case rtJava:
		_, exc, _ := strings.Cut(t[len(`Exception in thread "`):], `" `)
		r.e.rec.Text = oplog.ClipText(exc)
		r.message = maxMessageLines // a message of several lines: the rest before the frames
	case rtNode:
		r.confirmed, r.state = false, stSource
		r.raw, r.rawEnds = append(r.raw, line), append(r.rawEnds, end)
	case rtWine:
		r.state = stWineReport
		if wineStart(t) {
			r.state = stWineWait
			r.add(t, end) // its stack keeps it when winedbg's headline titles the record
		}
		if _, after, ok := strings.Cut(t, "virtual_setup_exception "); ok && wineStackOverflow(t) {
			r.setText(after)
		}
	case rtSDL:
		r.beginSDL(t, end)
	case rtAssert:
		// One line, the place it names its stack: a failing exit right
		// after it is its crash.
		if place, _ := assertionPlace(t); place != "" {
			r.add("at "+place, end)
		}
		r.done = true
	case rtGameMaker:
		r.state = stGMHeader
		r.add(t, end)
	case rtGo:
		r.message = maxMessageLines // a panic value's further lines, indented by a tab
		if strings.HasPrefix(t, goRuntimeSays) {
			r.confirmed = false // until its fatal error comes (goPanic)
			r.raw, r.rawEnds = append(r.raw, line), append(r.rawEnds, end)
			r.add(t, end)
		}
	case rtRuby:
		place, msg, _ := rubyHead(t)
		r.setText(msg)
		r.add(place, end)
		r.head = t
	default:
		r.beginLanguage(kind, line, t, end)
	}
}

// beginLanguage starts the reports of the languages startLanguage knows.
func (r *report) beginLanguage(kind rtKind, line, t string, end int64) {
	switch kind {
	case rtHaxe:
		r.beginHaxe(line, t, end)
	case rtZig:
		r.beginZig(t, end)
	case rtNim:
		r.beginNim(line, t, end)
	case rtOdin:
		r.beginOdin(t, end)
	case rtDart:
		r.beginDart(t)
	case rtDefold:
		r.setText("CALL STACK:")
		r.e.setName("CRASH")
	case rtPHP:
		r.beginPHP(t, end)
	case rtPerl:
		r.beginPerl(t, end)
	case rtPascal:
		if strings.HasPrefix(t, pascalUnhandled) {
			r.state = stHead // the exception's line next
		}
	case rtD:
		r.beginD(t, strings.IndexByte(t, ' '))
	case rtJVM:
		r.beginJVM(t)
	case rtMonoNative:
		r.beginMono()
	case rtValgrind:
		r.beginValgrind(line, t, end)
	case rtBackward:
		r.beginBackward(t, end)
	case rtCpptrace:
		r.beginCpptrace(t, end)
	case rtCoredump:
		r.beginCoredump(t, end)
	case rtGameCrash:
		r.beginGameCrash(t, end)
	}
}

// more adds a line to the report when it goes on with it: line as it
// came, s past the prefix. Until a report shows it is one (Node's, Haxe's
// frames first), the lines it took are kept as they came.
func (r *report) more(line, s string, end int64) bool {
	if r.confirmed {
		return r.takes(s, end)
	}
	r.raw, r.rawEnds = append(r.raw, line), append(r.rawEnds, end)
	if r.takes(s, end) {
		return true
	}
	r.raw, r.rawEnds = r.raw[:len(r.raw)-1], r.rawEnds[:len(r.rawEnds)-1] // the next record's
	return false
}

// takes adds a line to the report when it goes on with it (more).
func (r *report) takes(s string, end int64) bool {
	t := trimLeft(s)
	if t == "" {
		if r.kind == rtPyWarning || r.kind == rtThrown || r.kind == rtJava || r.kind == rtHaxe || r.kind == rtNim || r.kind == rtPascal || r.kind == rtD || r.kind == rtJVM ||
			r.kind == rtDotnet && !bytes.HasSuffix(r.e.stack, []byte(" <---")) { // Mono's inner exceptions' block, then its second printout
			return false
		}
		r.e.blank(end)
		return true
	}
	switch r.kind {
	case rtPython:
		return r.python(s, t, end)
	case rtFaulthandler:
		return r.faulthandler(s, t, end)
	case rtPyWarning:
		r.done = true
		return indentation(s) > r.base && r.e.add(t, end)
	case rtNative:
		return r.native(s, t, end)
	case rtSanitizer:
		return r.sanitizer(t, end)
	case rtDotnet:
		return r.dotnet(t, end)
	case rtJava, rtThrown:
		return r.frames(s, t, end)
	case rtNode:
		return r.node(s, t, end)
	case rtGo:
		return r.goPanic(s, t, end)
	case rtWine:
		return r.wine(s, t, end)
	case rtRuby:
		return r.ruby(s, t, end)
	case rtSDL:
		return r.sdl(s, t, end)
	case rtGameMaker:
		return r.gm(s, t, end)
	case rtLua:
		return r.luaTrace(s, t, end)
	case rtHaxe:
		return r.haxe(t, end)
	case rtDefold:
		return r.defold(s, end)
	case rtZig:
		return r.zig(s, t, end)
	case rtNim:
		return r.nim(t, end)
	case rtDart:
		return r.dart(s, t, end)
	case rtPHP:
		return r.phpTrace(t, end)
	case rtPerl:
		return r.perlCallers(s, t, end)
	case rtPascal:
		return r.pascal(t, end)
	case rtD:
		return r.d(t, end)
	case rtJVM:
		return r.jvm(t, end)
	case rtV8:
		return r.v8(t, end)
	case rtRustOverflow:
		return r.rustAbort(t, end)
	case rtMonoNative:
		return r.mono(s, t, end)
	case rtValgrind:
		return r.valgrind(trimRight(t), end)
	case rtBackward:
		return r.backward(s, t, end)
	case rtCpptrace:
		return r.cpptrace(s, t, end)
	case rtCoredump:
		return r.coredump(s, t, end)
	case rtGameCrash:
		return r.gameCrash(s, t, end)
	}
	return false
}

// frames reads an exception's frames, and the properties Node prints
// after them ("    at f (x.js:1:2) {", "  [cause]: 'ENOENT'", "}").
func (r *report) frames(s, t string, end int64) bool {
	switch {
	case r.braces:
		r.braces = t != "}"
	case isFrameStart(t):
		r.braces, r.message = strings.HasSuffix(t, " {"), 0
	case r.message > 0 && r.e.blanks == 0 && !r.prefixed:
		// The rest of an uncaught exception's message, before its frames.
		if n, _ := cutPrefix(t); n > 0 {
			return false
		}
		r.message--
	default:
		return false
	}
	return r.add(s, end)
}

// add adds a line to the report's stack; blank lines before it are left out.
func (r *report) add(s string, end int64) bool {
	r.e.blanks = 0
	return r.e.add(s, end)
}

// indented reports a line indented deeper than the report's first.
func (r *report) indented(s string) bool { return indentation(s) > r.base }

// setText makes s the report's text.
func (r *report) setText(s string) { r.e.rec.Text = oplog.ClipText(s) }

// isFrameStart reports a line of an exception's frames in Java, .NET and
// JavaScript: a frame, a cause, an inner exception, "... 3 more".
func isFrameStart(t string) bool {
	switch {
	case strings.HasPrefix(t, "at ") && isAtFrame(t[3:]),
		strings.HasPrefix(t, "Caused by: "), strings.HasPrefix(t, "Suppressed: "),
		strings.HasPrefix(t, "---> "), strings.HasPrefix(t, "--- End of"),
		strings.HasPrefix(t, "... ") && strings.HasSuffix(t, " more"):
		return true
	}
	return false
}

// indentation counts the spaces and tabs s starts with.
func indentation(s string) int { return len(s) - len(trimLeft(s)) }
