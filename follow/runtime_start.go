package follow

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// How a runtime's report begins. Every line a game prints is looked at, so
// the tests go from the cheapest (the first byte) to the dearest (a search
// of the line), and most lines fail the first.

// startOf reports the report that t, a line past its prefix and its
// indentation, begins, and the level of its record.
func startOf(t string) (rtKind, oplog.Level) {
	if len(t) < 4 {
		return rtNone, 0
	}
	if k, level := startByFirst(t); k != rtNone {
		return k, level
	}
	// An exception's name, a Python warning's file and line, a sanitizer's
	// location: a first word that ends with ':'. Node's location: a line
	// of one word ending in a digit.
	sp := strings.IndexByte(t, ' ')
	switch {
	case sp < 0:
		if isDigit(t[len(t)-1]) && nodeLocation(t) {
			return rtNode, oplog.LevelFatal
		}
		if t[len(t)-1] == ':' && exceptionHead(t, len(t)-1) {
			return rtThrown, oplog.LevelError
		}
	case sp > 1 && t[sp-1] == ':':
		first := t[:sp-1]
		switch {
		case exceptionHead(t, sp-1):
			return rtThrown, oplog.LevelError
		case isDigit(first[len(first)-1]) && strings.HasPrefix(t[sp+1:], "runtime error: "):
			return rtSanitizer, oplog.LevelError // UndefinedBehaviorSanitizer's "game.c:12:5: runtime error: ..."
		case pyWarning(t, strings.IndexByte(first, ':')):
			return rtPyWarning, oplog.LevelWarn
		}
	}
	if _, _, ok := rubyHead(t); ok {
		return rtRuby, oplog.LevelFatal
	}
	if k := startLanguage(t, sp); k != rtNone {
		return k, oplog.LevelFatal
	}
	return startWithin(t)
}

// startByFirst reports the reports known by their first words.
func startByFirst(t string) (rtKind, oplog.Level) {
	if gmStart(t) {
		return rtGameMaker, oplog.LevelFatal // a candidate until "action number N" (runtime.go)
	}
	if c := t[0]; c == '=' || c == 'A' || c == 'W' || c == 'T' || c == 'D' {
		if k, level := sanitizerFirst(t); k != rtNone {
			return k, level
		}
	}
	if is, sure := v8Start(t); is {
		if !sure {
			return rtV8, 0 // a candidate until its frames (runtime.go)
		}
		return rtV8, oplog.LevelFatal
	}
	switch t[0] {
	case 'T', 'm', '+':
		if t == pyTraceback || t == pyRemote || t == pyGroupTraceback {
			return rtPython, oplog.LevelError
		}
		if faulthandlerTimeout(t) {
			return rtFaulthandler, oplog.LevelError
		}
	case 'F':
		if strings.HasPrefix(t, "Fatal Python error: ") {
			return rtFaulthandler, oplog.LevelFatal
		}
		if t == renpyFull || strings.HasPrefix(t, `File "`) && strings.Contains(t, `", line `) && (!strings.Contains(t, " in ") || renpyParseError(t)) {
			return rtPython, oplog.LevelError // Ren'Py's report; a SyntaxError: its file, line, caret and exception; Ren'Py's error in a script
		}
	case 'E':
		if thread, ok := strings.CutPrefix(t, `Exception in thread "`); ok {
			if gameThread(thread) {
				return rtJava, oplog.LevelFatal
			}
			return rtJava, oplog.LevelError
		}
		if strings.HasPrefix(t, openraFatal) {
			return rtDotnet, oplog.LevelFatal
		}
	case 'U':
		if t == "Unhandled Exception:" || strings.HasPrefix(t, "Unhandled exception. ") || strings.HasPrefix(t, "UNHANDLED EXCEPTION:") {
			return rtDotnet, oplog.LevelFatal
		}
		if wineHeadline(t) {
			return rtWine, oplog.LevelFatal
		}
	case 'A', 'a':
		if sdlAssertStart(t) {
			return rtSDL, oplog.LevelError
		}
		if _, ok := assertionPlace(t); ok {
			return rtAssert, oplog.LevelError // a game's own assertion macro, which aborts after it
		}
	case 'P':
		if coredumpStart(t) {
			return rtCoredump, oplog.LevelFatal
		}
	case 'w', '0':
		if wineStart(t) || wineStackOverflow(t) {
			return rtWine, oplog.LevelFatal
		}
	case '[':
		if strings.HasPrefix(t, monoFatal) {
			return rtDotnet, oplog.LevelFatal
		}
	case 'p', 'f', 'r':
		if goStart(t) {
			return rtGo, oplog.LevelFatal
		}
	}
	if gameCrashStart(t) {
		return rtGameCrash, oplog.LevelFatal
	}
	if nativeAbort(t) {
		return rtNative, oplog.LevelFatal
	}
	return rtNone, 0
}

// startLanguage reports the reports of Haxe's, Zig's, Nim's, Odin's, Dart's,
// PHP's, Perl's, Free Pascal's and D's runtimes, Defold's engine and
// backward-cpp (runtime_haxe.go, runtime_compiled.go, runtime_php_perl.go,
// runtime_pascal_d.go, runtime_defold.go, runtime_backward.go), fatal
// unless they say otherwise, known by their first words (Perl's by its
// last); Nim's and hxcpp's begin with a frame, a report only once their
// message comes. sp is where t's first space is: Nim's and Odin's place is its first
// word, which ends with ')' (every line is asked: only that word is read).
func startLanguage(t string, sp int) rtKind {
	switch t[0] {
	case 'C', 'U':
		if haxeStart(t) {
			return rtHaxe
		}
		if t == dartHeader {
			return rtDart
		}
	case 'T':
		if t == nimTraceback {
			return rtNim
		}
	case 't':
		if zigPanic(t) {
			return rtZig
		}
		if rustOverflow(t) {
			return rtRustOverflow
		}
	case 'e':
		if zigError(t) {
			return rtZig // a candidate until its error return trace's first frame (runtime.go)
		}
	case 'E':
		if defoldStart(t) {
			return rtDefold
		}
	case '#':
		if jvmStart(t) {
			return rtJVM
		}
	case 'P', 'F':
		if phpStart(t) {
			return rtPHP
		}
	case 'A', 'R':
		if pascalStart(t) {
			return rtPascal
		}
	case 'S':
		if backwardStart(t) {
			return rtBackward
		}
		if t == cpptraceHeading {
			return rtCpptrace
		}
	}
	if perlStart(t) {
		return rtPerl
	}
	if _, _, _, ok := dHead(t, sp); ok {
		return rtD
	}
	if sp < 2 || t[sp-1] != ')' {
		return rtNone
	}
	if nimFrame(t) {
		return rtNim
	}
	if _, _, ok := odinReport(t); ok {
		return rtOdin
	}
	return rtNone
}

// gameThread reports whether the thread an uncaught Java exception names
// (the rest of its line after `Exception in thread "`) runs the game, so
// that the game ends with it: main, libGDX's LWJGL 2 loop ("LWJGL
// Application"), jMonkeyEngine's ("jME3 Main"), Android's GL thread.
func gameThread(rest string) bool {
	for _, name := range []string{`main" `, `LWJGL Application" `, `jME3 Main" `, `GLThread `} {
		if strings.HasPrefix(rest, name) {
			return true
		}
	}
	return false
}

// startWithin reports the native reports recognised by what a line holds
// rather than how it begins: glibc's failed assertion (after the
// program's name), libstdc++'s (its header's place first, the condition
// in plain quotes: a checked build's std::vector::operator[] out of
// range), a signal's headline.
func startWithin(s string) (rtKind, oplog.Level) {
	switch {
	case strings.HasSuffix(s, "' failed.") && (strings.Contains(s, ": Assertion `") || strings.Contains(s, ": Assertion '")):
		return rtNative, oplog.LevelFatal
	case signalHeadline(s), shellSignal(s), glogAborted(s):
		return rtNative, oplog.LevelFatal
	}
	return rtNone, 0
}

// faulthandlerTimeout reports the line faulthandler.dump_traceback_later
// prints when a program did not finish in time, before every thread's
// frames: "Timeout (0:00:01.500000)!" (a watchdog: it exits or goes on).
func faulthandlerTimeout(t string) bool {
	return strings.HasPrefix(t, "Timeout (") && strings.HasSuffix(t, ")!") && len(t) < 32
}

// strsignals are the signals' names as strsignal(3) says them, which
// bash, dash and psiginfo(3) print.
var strsignals = [...]string{"Segmentation fault", "Aborted", "Bus error", "Floating point exception", "Illegal instruction",
	"Killed", "Trace/breakpoint trap"}

// shellSignals are how shells name the signals a command they ran died
// of: bash's and dash's (strsignal's), then zsh's.
var shellSignals = append(strsignals[:len(strsignals):len(strsignals)], "segmentation fault", "abort", "bus error",
	"floating point exception", "illegal hardware instruction", "killed")

// shellSignal reports the line a shell prints when a command it ran (a
// game behind a launcher script) died of a signal: bash's "launcher.sh:
// line 3: 32352 Segmentation fault      ./game" (and "(core dumped)"),
// dash's "Segmentation fault" alone, zsh's "zsh: segmentation fault
// ./game", and their job notices, "[1]+  Segmentation fault      ./game".
// A signal's name alone is the whole line; after a shell's "NAME: line N: "
// (or "line N: " past a prefix), "zsh: " or a job's number, the command
// follows it.
func shellSignal(t string) bool {
	rest, shell, job := t, false, false
	// "line 3: " first, or after the script's name and ": " (the name may
	// be cut as a logger's prefix): looked for at the first space only,
	// as every line of a log is asked.
	i := -1
	if strings.HasPrefix(t, "line ") {
		i = 0
	} else if sp := strings.IndexByte(t, ' '); sp > 1 && t[sp-1] == ':' && strings.HasPrefix(t[sp+1:], "line ") {
		i = sp + 1
	}
	if i >= 0 {
		j := i + len("line ")
		for j < len(t) && isDigit(t[j]) {
			j++
		}
		if j == i+len("line ") || !strings.HasPrefix(t[j:], ": ") {
			return false
		}
		rest, shell = strings.TrimLeft(t[j+2:], " "), true  // the pid is right-aligned: "line 2:  7761 Segmentation fault"
		for j = 0; j < len(rest) && isDigit(rest[j]); j++ { // the command's pid
		}
		if j > 0 && j < len(rest) && rest[j] == ' ' {
			rest = rest[j+1:]
		}
	} else if z, ok := strings.CutPrefix(t, "zsh: "); ok {
		rest, shell = z, true
	} else if j := jobPrefix(t); j > 0 {
		rest, shell, job = t[j:], true, true
	}
	if rest == "" || strings.IndexByte("SABFIKTsabfik", rest[0]) < 0 { // the names' first letters: most lines stop here
		return false
	}
	if !shell { // the name alone is the line: most lines are longer
		if ownFaultLine(rest) {
			return true
		}
		if len(rest) > len("Floating point exception (core dumped)") {
			return false
		}
		rest = strings.TrimSpace(strings.TrimSuffix(rest, "(core dumped)"))
		return slices.Contains(shellSignals, rest)
	}
	for _, name := range shellSignals {
		after, ok := strings.CutPrefix(rest, name)
		if !ok {
			continue
		}
		if after != "" && after[0] != ' ' {
			return false // "Killed 3 orcs" is no signal's
		}
		if job { // the state padded to a column, then the command: "[1] Killed 3 orcs" is a log's
			after = strings.TrimPrefix(after, " (core dumped)")
			return after == "" || strings.HasPrefix(after, "  ")
		}
		return true
	}
	return false
}

// jobPrefix returns the length of a shell's job notice before the state
// it names, 0 if t starts with none: bash's "[1]+  " and zsh's "[1]  + "
// and, with its pid, "[1]  + 12345 " (the number, the current job's mark,
// the pid).
func jobPrefix(t string) int {
	if len(t) < 4 || t[0] != '[' {
		return 0
	}
	skip := func(i int, in func(byte) bool) int {
		for i < len(t) && in(t[i]) {
			i++
		}
		return i
	}
	space := func(c byte) bool { return c == ' ' }
	i := skip(1, isDigit)
	if i == 1 || i == len(t) || t[i] != ']' {
		return 0
	}
	i = skip(i+1, space)
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i = skip(i+1, space)
	}
	if j := skip(i, isDigit); j > i && j < len(t) && t[j] == ' ' {
		i = skip(j, space)
	}
	if i == len(t) || t[i-1] != ' ' {
		return 0 // "[1]" and no space before the state
	}
	return i
}

// ownFaultLine reports a game's own handler's line naming the fault it
// dies of as the shell would, then saying more: "Segmentation fault! The
// game crashed. Please send crash.txt to …", "Bus error: cannot recover".
// Only the faults' names, which nothing but a crash is called.
func ownFaultLine(t string) bool {
	for _, name := range []string{"Segmentation fault", "Bus error", "Floating point exception", "Illegal instruction"} {
		if after, ok := strings.CutPrefix(t, name); ok {
			return len(after) > 1 && strings.IndexByte("!:.", after[0]) >= 0 && after[1] == ' '
		}
	}
	return false
}

// sanitizerStart reports "==1234==ERROR: AddressSanitizer: ..." (and
// Leak-, Memory-, Thread-).
// isRuler reports the line of '=' the sanitizers print around a report
// (ThreadSanitizer's is 18 long, AddressSanitizer's 65).
func isRuler(t string) bool { return len(t) >= 16 && strings.Trim(t, "=") == "" }

// sanitizerFirst reports the sanitizers' first lines: AddressSanitizer's
// and LeakSanitizer's "==PID==ERROR: …", the ruler before a report (and
// ASan's DEADLYSIGNAL before that), ThreadSanitizer's report, which it
// prints as the program goes on.
func sanitizerFirst(t string) (rtKind, oplog.Level) {
	switch {
	case sanitizerStart(t):
		return rtSanitizer, oplog.LevelFatal
	case isRuler(t), t == "AddressSanitizer:DEADLYSIGNAL":
		return rtRuler, 0
	case tsanReport(strings.TrimPrefix(t, "WARNING: ")), strings.TrimPrefix(t, "WARNING: ") == goRace: // its "WARNING: " may be read as a prefix
		return rtSanitizer, oplog.LevelError
	case valgrindStart(t):
		return rtValgrind, oplog.LevelError // a candidate until its frames (runtime_valgrind.go)
	}
	return rtNone, 0
}

// goRace is the Go race detector's (ThreadSanitizer's, built into Go)
// report's first line, past its "WARNING: ".
const goRace = "DATA RACE"

// tsanRecord reports a record of ThreadSanitizer's report, or of Go's
// race detector's.
func tsanRecord(r *oplog.Record) bool {
	t := strings.TrimPrefix(r.Text, "WARNING: ")
	return r.Level >= oplog.LevelError && r.Stack != "" && (tsanReport(t) || t == goRace)
}

// tsanEnd reports the line ThreadSanitizer prints as it makes the program
// exit with its status (66), "ThreadSanitizer: reported 1 warnings", or
// Go's race detector, "Found 2 data race(s)", anywhere in text (behind a
// wrapper's prefix, or read as a line of the record before).
func tsanEnd(text string) bool {
	if strings.Contains(text, "ThreadSanitizer: reported ") {
		return true
	}
	return strings.Contains(text, "Found ") && strings.HasSuffix(text, " data race(s)")
}

// tsanReport reports the first line of ThreadSanitizer's report (between
// two rulers), past its "WARNING: ": "ThreadSanitizer: data race (pid=7)".
func tsanReport(t string) bool {
	return strings.HasPrefix(t, "ThreadSanitizer: ") && strings.HasSuffix(t, ")") && strings.Contains(t, " (pid=")
}

func sanitizerStart(t string) bool {
	i := 2
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	return i > 2 && strings.HasPrefix(t[i:], "==ERROR: ") && strings.Contains(t, "Sanitizer")
}

// nativeAbort reports what the C and C++ runtimes print as they abort:
// C++'s terminate and its call of a pure virtual method, glibc's heap
// checks and fortify, gdb's stop; and Xlib's default error handlers as
// they exit.
func nativeAbort(t string) bool {
	switch t[0] {
	case 't', 'T':
		return strings.HasPrefix(t, "terminate called ") || strings.HasPrefix(t, "Terminate called after throwing ") // cpptrace's handler
	case 'f', 'm', 'r', 'd', 'c':
		return strings.HasPrefix(t, "free(): ") || strings.HasPrefix(t, "malloc(): ") || strings.HasPrefix(t, "realloc(): ") ||
			strings.HasPrefix(t, "double free or corruption") || strings.HasPrefix(t, "corrupted size vs. prev_size") ||
			strings.HasPrefix(t, "munmap_chunk(): ")
	case '*':
		return strings.HasPrefix(t, "*** stack smashing detected") || strings.HasPrefix(t, "*** buffer overflow detected") ||
			strings.HasPrefix(t, "*** Error in `")
	case 'P':
		return strings.HasPrefix(t, "Program received signal ") || strings.HasPrefix(t, "Program terminated with signal ") ||
			t == "Pure virtual function called!" // libc++'s
	case 'p':
		return t == "pure virtual method called" // libstdc++'s, before its terminate
	case 'X':
		// Xlib's default error handlers, which exit: the request's details
		// follow, indented.
		return strings.HasPrefix(t, "X Error of failed request: ") || strings.HasPrefix(t, "XIO:  fatal IO error ")
	}
	return false
}

// exceptionHead reports an exception's line as Java, .NET and JavaScript
// print it: "TypeError: msg", "java.lang.IllegalStateException: msg",
// "System.InvalidOperationException: msg" (its frames must follow); colon
// is the first ':' of t.
func exceptionHead(t string, colon int) bool {
	if colon < 5 || colon+1 < len(t) && t[colon+1] != ' ' {
		return false
	}
	return exceptionName(t[:colon])
}

// exceptionName reports an exception's type as runtimes print it: a
// dotted name ending in Error, Exception or Throwable ("TypeError",
// "java.lang.IllegalStateException"). The runtimes' layer and the generic
// parser both ask.
func exceptionName(name string) bool {
	if !strings.HasSuffix(name, "Error") && !strings.HasSuffix(name, "Exception") && !strings.HasSuffix(name, "Throwable") {
		return false
	}
	if !isLetter(name[0]) {
		return false
	}
	for j := 1; j < len(name); j++ {
		if c := name[j]; !isLetter(c) && !isDigit(c) && c != '.' && c != '_' && c != '$' {
			return false
		}
	}
	return true
}

// nodeLocation reports Node's first line of an uncaught error, the
// location it was thrown at: "/home/me/game/game.js:12", "node:internal/x:12",
// and the sources that are no file: JSON.parse's "<anonymous_script>:1",
// eval's "[eval]:1", the vm module's "evalmachine.<anonymous>:3".
func nodeLocation(t string) bool {
	if !isDigit(t[len(t)-1]) || strings.IndexByte(t, ' ') >= 0 {
		return false
	}
	i := strings.LastIndexByte(t, ':')
	if i <= 0 {
		return false
	}
	if _, ok := atoi(t[i+1:]); !ok {
		return false
	}
	f := t[:i]
	return strings.HasSuffix(f, ".js") || strings.HasSuffix(f, ".mjs") || strings.HasSuffix(f, ".cjs") ||
		strings.HasSuffix(f, ".ts") || strings.HasPrefix(f, "node:") ||
		f == "<anonymous_script>" || f == "[eval]" || f == "evalmachine.<anonymous>"
}

// pyWarning reports Python's warning line: "game.py:12: UserWarning:
// msg"; colon is the first ':' of t.
func pyWarning(t string, colon int) bool {
	if colon < 0 || !strings.HasSuffix(t[:colon], ".py") || strings.IndexByte(t[:colon], ' ') >= 0 {
		return false
	}
	rest := t[colon+1:]
	j := 0
	for j < len(rest) && isDigit(rest[j]) {
		j++
	}
	if j == 0 || !strings.HasPrefix(rest[j:], ": ") {
		return false
	}
	name, _, ok := strings.Cut(rest[j+2:], ": ")
	return ok && strings.HasSuffix(name, "Warning") && strings.IndexByte(name, ' ') < 0
}

// signalHeadline reports a crash handler's headline in any common
// wording: a crash signal by name or number ("SIGSEGV", "signal 11") with
// a word that says it happened ("caught", "received", "fatal", "crash"),
// or first, as a handler's headline whose level word was cut ("Error:
// signal 11:", the handler most C and C++ games copy), never one that
// installs a handler.
func signalHeadline(s string) bool {
	// The signal is named in a headline's first words ("Caught signal
	// 11", "Received signal SIGSEGV", "*** SIGSEGV received"): only they
	// are searched, which keeps the look at every line of a log cheap.
	if !namesSignal(s[:min(len(s), signalWithin)]) {
		return false
	}
	if !crashSignal(s) {
		return false
	}
	l := strings.ToLower(s)
	for _, w := range []string{"install", "register", "handler for", "ignor", "enabl"} {
		if strings.Contains(l, w) {
			return false
		}
	}
	for _, w := range []string{"caught", "received", "fatal", "crash", "got ", "raised", "terminated", "killed"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return strings.HasPrefix(l, "signal ") || strings.HasPrefix(l, "error: signal ")
}

// namesSignal reports "signal", "Signal" or "SIG" in head: "gn" or "SI",
// found eight bytes at a time (every line of a log is looked at).
func namesSignal(head string) bool {
	if len(head) < 8 {
		return strings.Contains(head, "gna") || strings.Contains(head, "SIG")
	}
	for i := 0; ; i += 7 { // 7: a pair is whole in some word
		i = min(i, len(head)-8)
		w := binary.LittleEndian.Uint64([]byte(head[i : i+8]))
		if pairs(w, 'g', 'n')|pairs(w, 'S', 'I') != 0 {
			return strings.Contains(head, "gna") || strings.Contains(head, "SIG")
		}
		if i+8 >= len(head) {
			return false
		}
	}
}

// pairs marks the bytes of w that are a followed by b.
func pairs(w uint64, a, b byte) uint64 {
	return bytesEqual(w, a) & bytesEqual(w>>8, b) & 0x0080808080808080
}

// bytesEqual marks (high bit) the bytes of w that are c.
func bytesEqual(w uint64, c byte) uint64 {
	x := w ^ (uint64(c) * 0x0101010101010101)
	return ^(((x & 0x7f7f7f7f7f7f7f7f) + 0x7f7f7f7f7f7f7f7f) | x) & 0x8080808080808080
}

// signalWithin is how far into a line a signal's headline names it.
const signalWithin = 48

// crashSignal reports a signal that crashes a process, by name or number.
func crashSignal(s string) bool {
	for _, n := range []string{"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT", "SIGTRAP", "SIGSYS",
		"egmentation fault", "Bus error", "Illegal instruction", "Floating point exception"} {
		if strings.Contains(s, n) {
			return true
		}
	}
	for _, n := range []string{"ignal 11", "ignal 7", "ignal 4", "ignal 8", "ignal 6", "ignal 5", "ignal: 11", "ignal: 6"} {
		if i := strings.Index(s, n); i >= 0 && (i+len(n) == len(s) || !isDigit(s[i+len(n)])) {
			return true
		}
	}
	return false
}

// assertionPlace reads the line a game's own assertion macro prints before
// it aborts, "ASSERT FAILED: count < 8 at game.cpp:8", "Assertion failed:
// hp > 0 (src/player.c:42)", "Assert failed: …", and the one Microsoft's C
// runtime's assert prints, "Assertion failed: i < Size(), file
// D:\game\array.h, line 494": the place it names (its
// stack, so that a failing exit right after it is its crash), or "" when
// it names none.
func assertionPlace(s string) (string, bool) {
	if len(s) < 14 || !strings.EqualFold(s[:13], "assert failed") && !strings.EqualFold(s[:14], "assertion fail") &&
		!strings.EqualFold(s[:14], "assert failure") {
		return "", false
	}
	// Microsoft's C runtime: "Assertion failed: i < Size(), file D:\game\array.h, line 494".
	if i, j := strings.LastIndex(s, ", file "), strings.LastIndex(s, ", line "); i > 0 && j > i && isDigits(s[j+len(", line "):]) {
		return s[i+len(", file "):j] + ":" + s[j+len(", line "):], true
	}
	// Panda3D's: "Assertion failed: removed at line 449 of panda/src/display/graphicsEngine.cxx".
	if i := strings.LastIndex(s, " at line "); i > 0 {
		if n, file, ok := strings.Cut(s[i+len(" at line "):], " of "); ok && isDigits(n) && file != "" && !strings.Contains(file, " ") {
			return file + ":" + n, true
		}
	}
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, "()[],;'\"")
		i := strings.LastIndexByte(w, ':')
		if i <= 0 || i == len(w)-1 || strings.IndexByte(w[:i], '.') < 0 {
			continue
		}
		if _, ok := atoi(w[i+1:]); ok {
			return w, true
		}
	}
	return "", true
}
