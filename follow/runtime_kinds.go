package follow

import (
	"bytes"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// How each runtime's report goes on, line after line, once it began.

const pyTraceback = "Traceback (most recent call last):"

// maxMessageLines bounds the lines of an exception's message after its
// first, when that ends with ':', read as the message's.
const maxMessageLines = 8

// pyRemote heads a worker's traceback multiprocessing hands to the parent,
// in triple quotes, before the parent's own ("The above exception was the
// direct cause of the following exception:").
const pyRemote = "multiprocessing.pool.RemoteTraceback:"

// pyGroupTraceback heads an uncaught exception group's traceback (Python
// 3.11 and later, asyncio's TaskGroup among its raisers), each of its lines
// in a box of '|' and '+', the sub-exceptions' tracebacks in boxes within.
const pyGroupTraceback = "+ Exception Group Traceback (most recent call last):"

// renpyFull heads Ren'Py's report of an uncaught exception on its standard
// output and in its log.txt: the traceback through the engine's frames and
// the game's scripts, its exception; after a blank line, what Ren'Py was
// doing ("While running game code:") and the traceback through the
// scripts alone. When the exception ended the game before its error screen
// could show, the report comes twice.
const renpyFull = "Full traceback:"

// renpyDoing reports the line of Ren'Py's report before its traceback
// through the game's scripts: what the engine was doing.
func renpyDoing(t string) bool {
	for _, p := range []string{"While ", "After ", "Before ", "Compiling ATL code at ", "Executing ATL code at "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// renpyParseError reports Ren'Py's error in a script it parsed, its place
// and message on one line: `File "game/script.rpy", line 5: expected ':'
// not found.`, the script's line under it.
func renpyParseError(t string) bool {
	_, rest, ok := strings.Cut(t, `", line `)
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	return ok && i > 0 && strings.HasPrefix(rest[i:], ": ")
}

// python reads a traceback: indented frames and source lines, the
// exception's line (the report's text) unindented after them, and the
// chained tracebacks Python prints before it.
func (r *report) python(s, t string, end int64) bool {
	if r.group {
		return r.pythonGroup(s, t, end)
	}
	switch r.state {
	case stFrames:
		if r.indented(s) || t == pyTraceback || strings.HasPrefix(t, `> File "`) || // loguru marks the frame that caught it so
			oplog.CaretLine(t) {
			return r.add(s, end)
		}
		if !pyExceptionLine(t) {
			return false // the traceback ended without its exception: another line came
		}
		r.state = stExc
		if !r.ignored {
			r.setText(t)
		}
		if strings.Contains(t, ": ") && (strings.HasSuffix(t, ":") || strings.HasSuffix(t, "(")) {
			// "LevelFormatError: level caves is invalid:", its lines next;
			// PyOpenGL's "OpenGL.error.GLError: GLError(", its fields and ")".
			r.message = maxMessageLines
		}
		if t == "KeyboardInterrupt" && r.e.rec.Level == oplog.LevelError {
			r.e.rec.Level = oplog.LevelWarn // Ctrl-C: the player or developer stopped it
		}
		return r.add(s, end)
	case stExc:
		return r.pyAfterException(s, t, end)
	case stLogCall:
		if r.e.blanks == 0 && (r.indented(s) || strings.HasPrefix(t, "Message: ")) {
			return r.add(s, end)
		}
		if r.e.blanks == 0 && strings.HasPrefix(t, "Arguments: ") {
			r.done = true
			return r.add(s, end)
		}
	case stChain:
		if t == pyTraceback {
			r.state = stFrames
			return r.add(s, end)
		}
		if t == `"""` && r.e.lines == 1 && strings.HasPrefix(string(r.e.stack), pyRemote) { // a worker's traceback begins
			return r.add(s, end)
		}
	}
	return false
}

// pyAfterException reads what follows a traceback's exception line: a
// note, the rest of a message of several lines, the chained traceback's
// header, what Python ignored as it exited, logging's "Call stack:" or
// the logging call's "Stack (most recent call last):", PyInstaller's last
// line.
func (r *report) pyAfterException(s, t string, end int64) bool {
	switch {
	case r.e.blanks == 0 && r.indented(s): // an exception group's lines, a note
		return r.add(s, end)
	case r.e.blanks == 1 && r.indented(s) && strings.HasPrefix(t, `File "`):
		// More of its message: the frames of its cause, after a blank
		// line (Kivy's BuilderException shows them so).
		return r.add(s, end)
	case r.message > 0 && r.e.blanks == 0 && (!r.prefixed || r.wrapped) && !strings.HasPrefix(t, "During handling") &&
		!strings.HasPrefix(t, "The above exception") && !strings.HasPrefix(t, "Exception ignored "):
		// The rest of a message its first line said would follow.
		if n, _ := cutPrefix(t); n == 0 {
			r.message--
			return r.add(s, end)
		}
	case r.renpy > 0 && r.renpy < 4 && r.e.blanks == 1 && (t == renpyFull || renpyDoing(t)):
		// Ren'Py's report goes on: the traceback through the game's
		// scripts, or the whole report again.
		r.renpy++
		r.state = stFrames
		return r.add(s, end)
	case t == `"""` && strings.HasPrefix(string(r.e.stack), pyRemote): // a worker's traceback ends
		return r.add(s, end)
	case strings.HasPrefix(t, "During handling of the above exception"),
		strings.HasPrefix(t, "The above exception was the direct cause"):
		r.state = stChain
		return r.add(s, end)
	case r.e.blanks == 0 && t == "Call stack:":
		// logging's own error as it formatted a record (a message's
		// arguments that do not fit it): the traceback, then where
		// the logging call was, its message and its arguments.
		r.state = stLogCall
		return r.add(s, end)
	case r.e.blanks == 0 && t == "Stack (most recent call last):":
		// The logging call's own stack under the traceback it logged
		// (stack_info=True), its frames indented as a note's.
		return r.add(s, end)
	case pyInstallerEnd(t):
		// PyInstaller's bootloader, after the traceback of the
		// exception its program died of ("[PYI-4321:ERROR] Failed to
		// execute script 'main' due to unhandled exception!"): the
		// report's last line.
		r.done = true
		return r.add(s, end)
	case r.e.blanks == 0 && strings.HasPrefix(t, "Exception ignored "):
		// What Python ignored as it exited, right after the exception
		// that ended it (a destructor's): the report goes on, its
		// exception still the first.
		r.ignored = true
		r.state = stChain
		return r.add(s, end)
	}
	return false
}

// pyInstallerEnd reports PyInstaller's bootloader's line after the
// traceback of the exception its program died of, its process and level
// in brackets before it or not: "[PYI-4321:ERROR] Failed to execute script
// 'main' due to unhandled exception!", "[4321] Failed to execute script main".
func pyInstallerEnd(t string) bool {
	if _, after, ok := strings.Cut(t[:min(len(t), 24)], "] "); ok && t[0] == '[' {
		t = t[len(t[:min(len(t), 24)])-len(after):]
	}
	return strings.HasPrefix(t, "Failed to execute script ")
}

// pythonGroup reads an exception group's traceback: every line in its box
// ('|' or '+' first); the group's own exception line, the first one, is
// the record's text.
func (r *report) pythonGroup(s, t string, end int64) bool {
	if t == "" || t[0] != '|' && t[0] != '+' {
		return false
	}
	// "| ExceptionGroup: ...", one space in: frames and their source lines
	// are further in.
	if in, ok := strings.CutPrefix(t, "| "); ok && r.state == stFrames && in != "" && in[0] != ' ' && pyExceptionLine(in) {
		r.state = stExc
		r.setText(in)
	}
	return r.add(s, end)
}

// pyExceptionLine reports an exception's line: "ValueError: msg",
// "game.errors.SpawnError: msg", "KeyboardInterrupt".
func pyExceptionLine(t string) bool {
	name, _, _ := strings.Cut(t, ":")
	if name == "" || !isLetter(name[0]) && name[0] != '_' { // a C module's: "_pickle.UnpicklingError"
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isLetter(c) && !isDigit(c) && c != '.' && c != '_' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// faulthandler reads faulthandler's dump: each thread's header and frames
// (innermost first), the extension modules.
func (r *report) faulthandler(s, t string, end int64) bool {
	switch {
	case r.indented(s), strings.HasPrefix(t, "Current thread "), strings.HasPrefix(t, "Thread 0x"),
		strings.HasPrefix(t, "Stack (most recent call first)"), strings.HasPrefix(t, "Extension modules:"),
		strings.HasPrefix(t, "Python runtime state:"), strings.HasPrefix(t, "<no Python frame>"), shellSignal(t):
		return r.add(s, end)
	}
	return false
}

// beginNative starts a native report: glibc's failed assertion names the
// function and line it failed in, a frame of its own.
func (r *report) beginNative(t string, end int64) {
	if f := assertFrame(t); f != "" {
		r.add(f, end)
	}
}

// native reads what follows a native crash's headline: frames of
// backtrace_symbols, gdb or lldb, C++'s "what():", a signal handler's
// headline after an assertion, a count of frames, the terminate after a
// pure virtual call, the shell's line that the program died of the signal.
func (r *report) native(s, t string, end int64) bool {
	if r.e.lines == 0 || r.vgPid != "" {
		if taken, ok := r.valgrindAbort(t, end); ok {
			return taken
		}
	}
	if r.e.lines == 0 && backwardStart(t) {
		return r.explainedBy(rtBackward, t, end)
	}
	if r.e.lines == 0 && t == cpptraceHeading {
		return r.explainedBy(rtCpptrace, t, end)
	}
	switch {
	case strings.HasPrefix(t, "what():"):
		r.setText(r.e.rec.Text + "\n" + s)
		r.e.end = end
		if strings.HasSuffix(t, ":") {
			r.message = maxMessageLines // "what():  failed to link program (sprite.vert, sprite.frag):", its lines next
		}
		return true
	case r.message > 0 && r.e.blanks == 0 && !r.prefixed && !nativeFrameLine(t) && !signalHeadline(t):
		// The rest of a what() its first line said would follow.
		if n, _ := cutPrefix(t); n == 0 {
			r.message--
			return r.add(s, end)
		}
	case glogAborted(r.e.rec.Text) && signalHeadline(t):
		// glog's failure handler names the signal on its third line: the
		// headline, the time and the stopped place before it.
		r.e.prepend(r.e.rec.Text)
		r.setText(t)
		r.e.end = end
		return true
	case strings.HasPrefix(t, "PC: @ ") && r.e.lines == 0:
		return r.add(s, end)
	case strings.HasPrefix(t, "-- END OF ") && strings.HasSuffix(t, "BACKTRACE --"): // Godot's crash handler's last line
		r.done = true
		return r.add(s, end)
	case strings.Contains(t, "FATL| Signal: ") && strings.HasPrefix(r.e.rec.Text, "Loguru caught a signal: "):
		r.done = true // emilk/loguru's fatal line after its frames says the signal again
		return r.add(s, end)
	case (gdbBacktraceCommand(t) || r.e.lines <= 1 && strings.HasPrefix(t, "[Switching to Thread ")) &&
		(strings.Contains(r.e.rec.Text, "received signal ") || bytes.Contains(r.e.stack, []byte("Program received signal "))):
		// (After the assertion that raised it, gdb's stop is in the stack.)
		// gdb's prompt and the backtrace asked for at it, in an
		// interactive session pasted whole: the frames follow; the thread
		// gdb switched to, after the headline.
		return r.add(s, end)
	case strings.HasPrefix(t, "======= ") && strings.HasSuffix(t, "========") && r.e.rec.Text != "" && strings.HasPrefix(r.e.rec.Text, "*** "):
		// glibc's before 2.26, after "*** Error in `./game': double free
		// or corruption …": "======= Backtrace: =========" and its
		// frames, "======= Memory map: ========" and the mappings.
		return r.add(s, end)
	case glibcMapping(t) && bytes.Contains(r.e.stack, []byte("======= Memory map: ")),
		strings.HasSuffix(t, "]") && strings.Contains(t, "[0x") && bytes.Contains(r.e.stack, []byte("======= Backtrace: ")):
		return r.add(s, end) // its mappings; a frame without a symbol, "circle[0x4b071d]"
	case gdbThread(t) || t == "No locals." || t == "No symbol table info available.":
		// gdb's "thread apply all bt", a thread's heading after a blank
		// line; "bt full", each frame's locals (indented) or their absence.
		return r.e.addKeepingBlanks(s, end)
	case nativeFrameLine(t), r.indented(s) && r.e.blanks == 0, signalHeadline(t), prefixedHeadline(s),
		strings.HasPrefix(t, "terminate called ") && r.e.lines == 0, // after "pure virtual method called"
		shellSignal(t), // a launcher's shell saying the program died of it
		strings.HasPrefix(t, "Obtained ") && strings.HasSuffix(t, "stack frames."), strings.HasPrefix(t, "Dumping the backtrace."),
		strings.EqualFold(t, "backtrace:"), strings.EqualFold(t, "stack trace:"), strings.HasPrefix(t, "Aborted"),
		r.e.lines <= 1 && strings.Contains(r.e.rec.Text, "received signal ") && (gdbPlace(t) || gdbEcho(s)), r.gdbStopNext(s, t):
		return r.add(s, end)
	}
	return false
}

// gdbBacktraceCommand reports gdb's prompt with a command that prints the
// stack: "(gdb) bt", "(gdb) bt full", "(gdb) backtrace", "(gdb) where",
// "(gdb) thread apply all bt".
func gdbBacktraceCommand(t string) bool {
	cmd, ok := strings.CutPrefix(t, "(gdb) ")
	if !ok {
		return false
	}
	cmd = strings.TrimPrefix(strings.TrimPrefix(cmd, "thread apply all "), "t a a ")
	name, _, _ := strings.Cut(strings.TrimSpace(cmd), " ")
	return name == "bt" || name == "backtrace" || name == "where"
}

// gdbThread reports gdb's heading of a thread's frames in "thread apply
// all bt": "Thread 1 (Thread 0x7ffff7dd1740 (LWP 12244) "game"):".
func gdbThread(t string) bool {
	return strings.HasPrefix(t, "Thread ") && strings.HasSuffix(t, "):") && strings.Contains(t, " (LWP ")
}

// glogAborted reports the first line of glog's failure signal handler
// (Google's logging library, abseil's before it took its own): "*** Aborted
// at 1796534714 (unix time) try "date -d @1796534714" if you are using GNU
// date ***", then "PC: @ 0x0 (unknown)", "*** SIGSEGV (@(nil)) received by
// PID 30353 (TID 0x7f…) from PID 0; stack trace: ***" and the frames, "@
// 0x556d6404e4db phys::World::totalMass(int)".
func glogAborted(t string) bool {
	return strings.HasPrefix(t, "*** Aborted at ") && strings.Contains(t, " (unix time)")
}

// gdbStopNext reports gdb's place of its stop right after its headline,
// and the source line right after that, in a report gdb's headline joined
// (a failed assertion's, whose abort gdb stopped on).
func (r *report) gdbStopNext(s, t string) bool {
	last := trimLeft(string(r.e.stack[bytes.LastIndexByte(r.e.stack, '\n')+1:]))
	switch {
	case strings.HasPrefix(last, "Program received signal "), strings.HasPrefix(last, "Program terminated with signal "),
		strings.HasPrefix(last, "[Switching to Thread "): // the thread that received it, between
		return gdbPlace(t) || strings.HasPrefix(t, "0x") && strings.Contains(t, " in ")
	case gdbPlace(last):
		return gdbEcho(s)
	}
	return false
}

// gdbPlace reports where gdb says a program stopped, after its headline,
// when the stop is at a line's first instruction (no address before it):
// "__strcpy_evex () at ../sysdeps/x86_64/multiarch/strcpy-evex.S:599".
func gdbPlace(t string) bool {
	i := strings.Index(t, ") at ")
	return i > 0 && strings.IndexByte(t[:i], '(') > 0 && isDigit(t[len(t)-1])
}

// gdbEcho reports gdb's echo of the source line it stopped at: its number,
// a tab, the line ("599", a tab, "../sysdeps/…/strcpy-evex.S: No such
// file or directory." when the source is not at hand).
func gdbEcho(s string) bool {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i > 0 && i < len(s) && s[i] == '\t'
}

// prefixedHeadline reports a signal's headline a logger printed, after an
// abort the runtime printed bare: a crash handler that logs.
func prefixedHeadline(s string) bool {
	n, _ := cutPrefix(s)
	return n > 0 && signalHeadline(trimLeft(s[n:]))
}

// nativeFrameLine reports a native frame: backtrace_symbols'
// "./game(update+0x14)[0x55d4c3a1b1e9]", gdb's and the sanitizers' "#3
// 0x... in f ...", lldb's "frame #3: ...", "[bt] ...".
func nativeFrameLine(t string) bool {
	switch {
	case len(t) > 1 && t[0] == '#' && isDigit(t[1]),
		strings.HasPrefix(t, "frame #"), strings.HasPrefix(t, "* thread #"), strings.HasPrefix(t, "[bt]"),
		strings.HasSuffix(t, "]") && strings.Contains(t, "[0x") && (strings.Contains(t, "(") || !strings.ContainsAny(t[:strings.Index(t, "[0x")], " \t")):
		return true // backtrace_symbols' "./game(f+0x14) [0x55d4]", and "./game[0x400686]" where it found no symbol
	case strings.HasPrefix(t, "0x") && strings.Contains(t, " in "):
		return true // gdb's frame of the stop: "0x000055 in update (p=0x0) at game.c:41"
	case loguruFrame(t), macSymbolsFrame(t):
		return true
	case t != "" && isDigit(t[0]):
		n, rest, ok := strings.Cut(t, "# ") // boost::stacktrace's: " 0# World::spawnEnemy(…) at /game/world.cpp:58"
		return ok && isDigits(n) && rest != ""
	case len(t) > 3 && t[0] == '[' && isDigit(t[1]):
		// Godot's crash handler: "[4] godot3-server(+0xd74acb) [0x5564d142bacb] (??:0)",
		// "[2] Node::get_child(int, bool) const (??:0)".
		_, rest, ok := strings.Cut(t, "] ")
		return ok && isDigits(t[1:strings.IndexByte(t, ']')]) && (strings.Contains(rest, "[0x") || strings.HasSuffix(rest, ")") && strings.Contains(rest, ":"))
	}
	return false
}

// macSymbolsFrame reports a frame of macOS's backtrace_symbols: "4   widelands
// 0x0000000104fa0b58 _ZN2UI5Panel6do_runEv + 1160".
func macSymbolsFrame(t string) bool {
	f := strings.Fields(t)
	n := len(f)
	return n >= 6 && isDigits(f[0]) && strings.HasPrefix(f[2], "0x") && f[n-2] == "+" && isDigits(f[n-1])
}

// glibcMapping reports a line of a process's memory map as glibc printed
// it after its heap corruption report: "00400000-00401000 r-xp 00000000
// 08:01 1048 /home/user/game".
func glibcMapping(t string) bool {
	dash := strings.IndexByte(t, '-')
	sp := strings.IndexByte(t, ' ')
	if dash < 8 || sp < dash+9 || sp+1 >= len(t) {
		return false
	}
	return isHex(t[:dash]) && isHex(t[dash+1:sp]) && (t[sp+1] == 'r' || t[sp+1] == '-')
}

// loguruFrame reports a frame of emilk/loguru's stack trace (C++): "2
// 0x5637da005e76 main + 696", its number, address and symbol.
func loguruFrame(t string) bool {
	i := 0
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	j := i
	for j < len(t) && t[j] == ' ' {
		j++
	}
	if i == 0 || j == i || !strings.HasPrefix(t[j:], "0x") {
		return false
	}
	k := j + 2
	for k < len(t) && isHex(t[k:k+1]) {
		k++
	}
	return k > j+2 && k < len(t) && t[k] == ' '
}

// assertFrame makes a frame of glibc's failed assertion, "game: game.c:27:
// spawn_enemy: Assertion `n < 100' failed.": "at spawn_enemy (game.c:27)";
// of libstdc++'s, without the program's name, "/usr/include/c++/12/bits/
// stl_vector.h:1123: std::vector<…>::reference std::vector<…>::operator[]
// (size_type) [with …]: Assertion '__n < this->size()' failed.": "at
// std::vector<…>::operator[] (/usr/include/…/stl_vector.h:1123)".
func assertFrame(t string) string {
	var place, fn string
	if i := strings.Index(t, ": Assertion `"); i >= 0 {
		parts := strings.SplitN(t[:i], ": ", 3)
		if len(parts) != 3 {
			return ""
		}
		place, fn = parts[1], parts[2]
	} else if i := strings.Index(t, ": Assertion '"); i >= 0 {
		var ok bool
		if place, fn, ok = strings.Cut(t[:i], ": "); !ok {
			return ""
		}
	} else {
		return ""
	}
	if k := strings.IndexByte(fn, '('); k > 0 { // C++'s "void World::spawn(int)"
		fn = fn[:k]
	}
	return "at " + strings.TrimLeft(lastName(fn), "*&") + " (" + place + ")"
}

// lastName returns a C or C++ declaration's last word outside a template's
// brackets: the function's name after its return type
// ("std::vector<_Tp, _Alloc>::reference std::vector<_Tp,
// _Alloc>::operator[]" is "std::vector<_Tp, _Alloc>::operator[]").
func lastName(decl string) string {
	depth := 0
	for k := len(decl) - 1; k >= 0; k-- {
		switch {
		case decl[k] == '>':
			depth++
		case decl[k] == '<':
			depth--
		case decl[k] == ' ' && depth == 0:
			return decl[k+1:]
		}
	}
	return decl
}

// sanitizer reads a sanitizer's report to its end: ASan's "==N==ABORTING",
// or the line after its SUMMARY; ASan's shadow bytes are left out.
// UndefinedBehaviorSanitizer's report is its line, frames and SUMMARY.
func (r *report) sanitizer(t string, end int64) bool {
	switch {
	case strings.HasPrefix(t, "==") && strings.HasSuffix(t, "==ABORTING"):
		r.e.end, r.done = end, true
		return true
	case r.state == stShadow:
		r.e.end = end
		return true
	case strings.HasPrefix(t, "SUMMARY: "):
		r.state = stSummary
		// LeakSanitizer's report ends with it; ASan's goes on to its
		// shadow bytes and "==PID==ABORTING", ThreadSanitizer's to a ruler.
		r.done = strings.Contains(r.e.rec.Text, "LeakSanitizer")
		return r.add(t, end)
	case isRuler(t) && r.e.rec.Text == goRace: // Go's race report has no summary
		r.e.end, r.done = end, true
		return true
	case r.state == stSummary:
		if isRuler(t) { // ThreadSanitizer's closing ruler
			r.e.end, r.done = end, true
			return true
		}
		if strings.HasPrefix(t, "Shadow bytes around") {
			r.state = stShadow
			r.e.end = end
			return true
		}
		return false
	case r.ubsan:
		return (nativeFrameLine(t) || strings.HasPrefix(t, "note: ")) && r.add("    "+t, end)
	}
	return r.add(t, end)
}

// beginDotnet reads the first line of an unhandled .NET exception: Mono's
// "Unhandled Exception:" (the exception on the next line), .NET's
// "Unhandled exception. System.X: msg", Mono's "[ERROR] FATAL UNHANDLED
// EXCEPTION: System.X: msg".
func (r *report) beginDotnet(t string) {
	switch {
	case t == "Unhandled Exception:":
		r.state = stHead
	case strings.HasPrefix(t, "Unhandled exception. "):
		r.setText(t[len("Unhandled exception. "):])
	case strings.HasPrefix(t, openraFatal):
		r.setText(openraException(t))
	default:
		_, exc, _ := strings.Cut(t, "EXCEPTION:")
		r.setText(strings.TrimSpace(exc))
	}
}

const monoFatal = "[ERROR] FATAL UNHANDLED EXCEPTION:"

// openraFatal begins the report OpenRA writes to exception.log and the
// console when an exception ends the game: "Exception of type
// `System.NullReferenceException`: Object reference not set…", then its
// frames, and "Inner Exception of type `…`: …" for each inner one.
const openraFatal = "Exception of type `"

// openraException is an OpenRA report's exception line as .NET prints
// one: "System.NullReferenceException: Object reference not set…".
func openraException(t string) string {
	t = t[strings.IndexByte(t, '`')+1:]
	name, msg, ok := strings.Cut(t, "`: ")
	if !ok {
		return strings.TrimSuffix(t, "`")
	}
	return name + ": " + msg
}

// argumentLine reports the line .NET Framework's and Mono's
// ArgumentException adds to its message: "Parameter name: startIndex",
// ArgumentOutOfRangeException's "Actual value was 5.".
func argumentLine(t string) bool {
	return strings.HasPrefix(t, "Parameter name: ") || strings.HasPrefix(t, "Actual value was ")
}

// isMonoFatal reports Mono's second printout's first line, its "[ERROR]
// FATAL" perhaps read as a prefix.
func isMonoFatal(t string) bool {
	return strings.HasPrefix(t, monoFatal) || strings.HasPrefix(t, "FATAL UNHANDLED EXCEPTION:") ||
		strings.HasPrefix(t, "UNHANDLED EXCEPTION:")
}

// dotnet reads the exception, its frames and inner exceptions, and Mono's
// second printout of it, which adds nothing.
func (r *report) dotnet(t string, end int64) bool {
	switch {
	case r.state == stHead:
		r.state = stFrames
		r.setText(t)
		r.e.end = end
		return true
	case isMonoFatal(t) && r.e.lines == 0:
		// Its first printout had no frames (a stack overflow's): this one
		// has them, and the message.
		_, exc, _ := strings.Cut(t, "EXCEPTION:")
		r.setText(strings.TrimSpace(exc))
		r.e.end = end
		return true
	case isMonoFatal(t):
		r.state = stDup
		r.e.end = end
		return true
	case argumentLine(t) && r.e.lines == 0:
		// An ArgumentException's message's last line, before the frames.
		if r.state != stDup {
			r.setText(r.e.rec.Text + "\n" + t)
		}
		r.e.end = end
		return true
	case strings.HasPrefix(t, "Inner "+openraFatal):
		return r.add("  ---> "+openraException(t), end)
	case !isFrameStart(t):
		return false
	case r.state == stDup:
		r.e.end = end
		return true
	}
	return r.add("  "+t, end)
}

// node reads Node's uncaught error: its location (the report's first
// line), the source line, the caret, the error's line, its frames and
// Node's version. Until the error shows, the lines are held as they came.
func (r *report) node(s, t string, end int64) bool {
	switch r.state {
	case stSource:
		r.state = stCaret
		return true
	case stCaret:
		if strings.Trim(t, "^") != "" {
			return false
		}
		r.state = stError
		return true
	case stError:
		if indentation(s) > 0 {
			return false
		}
		r.confirmed, r.state = true, stFrames
		r.raw, r.rawEnds = r.raw[:0], r.rawEnds[:0]
		// util.inspect's "[AggregateError: All promises were rejected] {": its properties next.
		r.braces = strings.HasPrefix(t, "[") && strings.HasSuffix(t, "] {")
		r.setText(t)
		r.e.end, r.e.blanks = end, 0
		return true
	case stFrames:
		switch {
		case strings.HasPrefix(t, "Node.js v"):
			r.e.end, r.done = end, true
			return true
		case r.e.blanks > 0:
			return false
		case t == "Thrown at:", strings.HasPrefix(t, "Emitted 'error' event on "): // --trace-uncaught's, a Worker's
			return r.add(s, end)
		case r.braces || isFrameStart(t):
			return r.frames(s, t, end)
		case r.indented(s):
			r.braces = strings.HasSuffix(t, " {") // "at async file:///…/main.mjs:11:15 {", the error's properties next
			return r.add(s, end)
		}
	}
	return false
}

// goPanic reads a Go panic's goroutines: headers, functions, their
// locations, "created by", and "exit status N" that go run prints; before
// them, the panic value's further lines.
func (r *report) goPanic(s, t string, end int64) bool {
	switch {
	case !r.confirmed && strings.HasPrefix(t, goRuntimeSays):
		return r.add(t, end)
	case !r.confirmed:
		// The runtime's lines before its fatal error: "runtime: goroutine
		// stack exceeds 1000000000-byte limit", then "fatal error: stack
		// overflow", which titles the report; any other line ends them,
		// read as they came.
		if !strings.HasPrefix(t, "fatal error: ") && !strings.HasPrefix(t, "panic: ") {
			return false
		}
		r.confirmed = true
		r.setText(t)
		r.e.end = end
		return true
	case r.message > 0 && r.e.lines == 0 && r.e.blanks == 0 && strings.HasPrefix(s, "\t"):
		// A panic value of several lines: Go indents each after the first.
		r.message--
		r.setText(r.e.rec.Text + "\n" + t)
		r.e.end = end
		return true
	case strings.HasPrefix(t, "exit status "):
		r.done = true
		return r.add(s, end)
	case strings.HasPrefix(t, "goroutine ") && strings.HasSuffix(t, ":"), strings.HasPrefix(t, "[signal "),
		strings.HasPrefix(t, "created by "), strings.HasPrefix(t, "panic: "), strings.HasPrefix(t, "runtime: "),
		strings.HasPrefix(t, "fatal error: "), strings.HasPrefix(t, "...") && strings.Contains(t, "elided"), t == "runtime stack:",
		indented(s), goCall(t):
		return r.add(s, end)
	}
	return false
}

// goStart reports the first line of Go's report: a panic, a fatal error
// (not a C compiler's, "game.c:1:10: fatal error: x.h: No such file"), or
// what the runtime says before some fatal errors (a report once the error
// comes: goPanic).
func goStart(t string) bool {
	return strings.HasPrefix(t, "panic: ") || strings.HasPrefix(t, "fatal error: ") && !strings.Contains(t, ".h: ") ||
		strings.HasPrefix(t, goRuntimeSays)
}

// goRuntimeSays begins what Go's runtime prints before some of its fatal
// errors: "runtime: goroutine stack exceeds 1000000000-byte limit".
const goRuntimeSays = "runtime: "

// goCall reports a Go frame's function line: "main.(*World).Spawn(...)",
// and the built-in panic's, "panic({0x4bd840?, 0xc000012345?})".
func goCall(t string) bool {
	i := strings.IndexByte(t, '(')
	return i > 0 && strings.HasSuffix(t, ")") && (strings.IndexByte(t[:i], '.') > 0 || t[:i] == "panic") && !strings.ContainsAny(t[:i], " \t")
}
