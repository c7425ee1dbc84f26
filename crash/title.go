package crash

import (
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// Titles name a crash as its newest occurrence says it: the message as
// written (not the normalised head the signature is made of) and the first
// frame that belongs to the game, so that an engine's error handler, a
// signal trampoline or a runtime's panic machinery never heads a group.

// Limits of a title's parts, in characters.
const (
	maxMessageRunes = 110
	maxFrameRunes   = 90
	maxGameFrames   = 24 // frames looked at for the game's own
)

// Describe titles a crash group from its newest occurrence's text and
// stack as the local crash index does (its message and the game's own
// frame), with the normalised top frames (empty, never nil, when the
// stack has none) and the top oplog.CrashLastFrames lines of the stack as
// written (file:line kept), so that one crash reads alike in local and
// studio scope.
func Describe(text, stack string) (title string, frames, lastFrames []string) {
	r := oplog.Record{Text: text, Stack: stack}
	frames = Parse(stack).WithHead(text).Frames
	if frames == nil {
		frames = []string{}
	}
	return Title(Message(&r), GameFrame(stack)), frames, TopLines(stack, oplog.CrashLastFrames)
}

// Title is a group's one line: message and, when there is one, the game's
// frame: "main.lua:79: attempt to index local 'player' (a nil value) in
// main.lua:79: in function 'update'".
func Title(message, frame string) string {
	t := clipTitle(shortPaths(message), maxMessageRunes)
	if frame == "" || strings.Contains(message, frame) { // the message is its place's line: Ren'Py's error in a script
		return t
	}
	return t + " in " + clipTitle(shortPaths(frameTitle(frame)), maxFrameRunes)
}

// frameTitle is a frame line without what says nothing in a title: "at ",
// gdb's and the sanitizers' numbering and address ("#1 0x5555 in f (p=0x0)
// at game.c:41" is "f (p=0x0) at game.c:41"), lldb's ("frame #0: 0x5555
// game`f at game.c:41:5" is "game`f at game.c:41:5") and
// backtrace_symbols' address ("./game(f+0x14)[0x55d4]" is
// "./game(f+0x14)"), Ruby's "from " before a caller.
func frameTitle(frame string) string {
	if f, ok := strings.CutPrefix(frame, "At: "); ok { // Godot 3's place: "At: res://main.gd:6."
		frame = strings.TrimSuffix(f, ".")
	}
	frame = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(frame, "at: "), "at "), haxeCalled)
	if f, ok := strings.CutPrefix(frame, "from "); ok && strings.Contains(f, ":in ") { // Ruby's caller: "from err.rb:2:in `parse'"
		frame = f
	}
	if f, ok := defoldTitle(frame); ok {
		return f
	}
	if f, ok := stpTitle(frame); ok {
		return f
	}
	if module, sym, ok := macParts(frame); ok {
		return demangled(sym) + " (" + module + ")"
	}
	if f, ok := monoJITTitle(frame); ok {
		return f
	}
	if f, ok := unrealTitle(frame); ok {
		return f
	}
	if f, ok := compiledTitle(frame); ok {
		return f
	}
	if _, sym, ok := androidParts(frame); ok && sym != "" {
		return sym
	}
	if sym, module, ok := coredumpParts(frame); ok {
		return demangled(sym) + " (" + module + ")"
	}
	switch {
	case len(frame) > 1 && frame[0] == '#' && isDigit(frame[1]):
		_, rest, _ := strings.Cut(frame, " ")
		rest = strings.TrimSpace(rest)
		if isHexStart(rest, 0) {
			if _, f, ok := strings.Cut(rest, " in "); ok {
				return strings.TrimSpace(f)
			}
		}
		return rest
	case lldbLine(frame):
		_, rest, _ := strings.Cut(frame, ": ")
		if addr, f, ok := strings.Cut(strings.TrimSpace(rest), " "); ok && isHexStart(addr, 0) {
			return strings.TrimSpace(f)
		}
		return rest
	}
	if module, sym, ok := execinfoParts(frame); ok {
		name, off, _ := strings.Cut(sym, "+0x")
		if d := demangled(name); d != name {
			return module + "(" + d + "+0x" + off + ")"
		}
		return strings.TrimSpace(frame[:strings.LastIndexByte(frame, '[')])
	}
	if i := strings.IndexByte(frame, '('); i > 0 && strings.HasSuffix(frame, ")") && !strings.ContainsAny(frame[:i], " \t") {
		// backtrace_symbols' frame as TopLines gives it, without its address: "./game(_ZN4game7do_turnEv+0x251)".
		if name, off, found := strings.Cut(frame[i+1:len(frame)-1], "+0x"); found {
			if d := demangled(name); d != name {
				return frame[:i] + "(" + d + "+0x" + off + ")"
			}
		}
	}
	return goArgs(javaFrame(frame))
}

// javaFrame is a Java frame without what a log's layout adds after its
// place: the jar ("~[client-1.19.jar:?]", "[Util.class:?]") and Forge's
// transformers ("{re:classloading,pl:runtimedistcleaner:A}").
func javaFrame(frame string) string {
	for _, sep := range []string{") ~[", ") [", ") {"} {
		i := strings.Index(frame, sep)
		if i > 0 && strings.Contains(frame[:i], "(") && !strings.HasPrefix(frame[i+len(sep):], "0x") { // not Mono's IL offset: "Spawn () [0x00012] in …/Spawn.cs:42"
			return frame[:i+1]
		}
	}
	return frame
}

// monoJITTitle is a managed frame of Unity's native crash dump without its
// address: "0x0000000011F821D5 (Mono JIT Code)
// [C:\…\Assets\ImportAnimation.cs:14] SetupAnimationProcessor:SetupAnimation ()"
// is "SetupAnimationProcessor:SetupAnimation () at Assets\ImportAnimation.cs:14".
func monoJITTitle(frame string) (string, bool) {
	addr, rest, ok := strings.Cut(frame, " (Mono JIT Code) ")
	if !ok || !isHexStart(addr, 0) {
		return "", false
	}
	rest = strings.TrimPrefix(rest, "(wrapper dynamic-method) ")
	place, fn, ok := strings.Cut(strings.TrimPrefix(rest, "["), "] ")
	if !strings.HasPrefix(rest, "[") || !ok {
		return strings.TrimSpace(rest), true
	}
	if i := strings.LastIndex(place, "Assets"); i >= 0 {
		place = place[i:]
	} else if i := strings.LastIndexAny(place, `/\`); i >= 0 {
		place = place[i+1:]
	}
	return strings.TrimSpace(fn) + " at " + place, true
}

// goArgs is a Go frame as TopLines writes it ("main.(*world).spawn(0xc000012345,
// {0x4c5a2b, 0x6}) at /game/main.go:12") with its arguments, addresses
// that differ every run, written "(...)" as Go writes inlined calls'.
func goArgs(frame string) string {
	end := strings.Index(frame, ") at ")
	if end < 0 || !strings.Contains(frame[:end], "0x") {
		return frame
	}
	depth := 0
	for i := end; i >= 0; i-- {
		switch frame[i] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				return frame[:i] + "(...)" + frame[end+1:]
			}
		}
	}
	return frame
}

// shortPaths cuts the install location off the paths of s that name a
// mod's file ("/home/me/.minetest/mods/logtest/init.lua:54" is
// "mods/logtest/init.lua:54"): the part that says which file it is.
func shortPaths(s string) string {
	for i := 0; ; {
		j := strings.Index(s[i:], "/mods/")
		if j < 0 {
			return s
		}
		j += i
		k := strings.LastIndexAny(s[:j], " \t(<'\"") + 1
		s = s[:k] + s[j+1:]
		i = k + len("mods/")
	}
}

// Message is r's message as a title shows it: the exception a stack begins
// with (Java's "java.lang.IllegalStateException: ..." under a logger's
// "Session crashed") or ends with (Python), else the first line of r's
// text (of an operation, its error), or its second when the first only
// announces it ("ModError: Failed to load and run script from X:"). C++'s
// std::terminate is its exception's type and what() ("terminate called
// after throwing 'std::runtime_error': enemy pool exhausted"), a
// sanitizer's report its tool and error ("AddressSanitizer:
// heap-use-after-free").
func Message(r *oplog.Record) string {
	text := r.Text
	if r.Kind == oplog.KindOp {
		text = r.Error
	}
	if reason := exitReason(r.Data); reason != "" && r.Kind == oplog.KindMarker {
		return reason + " (" + text + ")" // what the program said as it gave up, then how it ended
	}
	if exc := stackException(stackOf(r)); exc != "" {
		if first, _, _ := strings.Cut(text, "\n"); first != exc && raisedIn(stackOf(r), first) {
			return first // the exception raised: another's traceback is part of its message
		}
		return exc
	}
	if typ, what, ok := terminateMessage(text); ok {
		if what == "" {
			return "terminate called after throwing '" + typ + "'"
		}
		return "terminate called after throwing '" + typ + "': " + what
	}
	if m, ok := assertMessage(strings.TrimSpace(text)); ok {
		return m
	}
	text = glogMessage(sanitizerMessage(strings.TrimSpace(text)))
	if reason, ok := rejectionReason(text); ok {
		return "UnhandledPromiseRejection: " + reason
	}
	first, rest, _ := strings.Cut(text, "\n")
	// Luanti: "ServerError: AsyncErr: Lua: Runtime error from mod 'x' in
	// callback environment_Step(): <the error>".
	if i := strings.Index(first, "(): "); i > 0 && strings.Contains(first[:i], "Runtime error from mod ") {
		first = first[i+len("(): "):]
	}
	second, _, _ := strings.Cut(strings.TrimSpace(rest), "\n")
	second = strings.TrimSpace(second)
	switch {
	case strings.HasSuffix(first, ":") && strings.HasPrefix(second, "no "):
		// Lua's require: "main.lua:4: module 'lib.camera' not found:", then
		// the places it looked in ("no field package.preload['lib.camera']").
		return strings.TrimSuffix(strings.TrimSpace(first), ":")
	case strings.HasPrefix(first, "Thread error (Thread: ") && second != "": // LÖVE's thread's error, on the next line
		return second
	case strings.HasPrefix(first, "panic: ") && strings.HasSuffix(first, ":") && second != "":
		// Go's panic value that goes on on the next line ("panic: cannot
		// spawn orc:", then why): both.
		return strings.TrimSpace(first) + " " + second
	case strings.HasSuffix(first, ":") && second != "":
		return second // a wrapper's words, then the error: Luanti's "ModError: Failed to load and run script from …:"
	}
	first = strings.TrimSpace(first)
	if inner, ok := strings.CutSuffix(first, "] {"); ok && strings.HasPrefix(inner, "[") {
		return inner[1:] // Node's util.inspect of an error with properties: "[AggregateError: All promises were rejected] {"
	}
	return shellMessage(first)
}

// shellMessage shortens a shell's line that a command it ran died of a
// signal for a title: "./launch.sh: line 3: 17490 Bus error
// ./game" (the pid, which differs every run, and the columns' padding) is
// "./launch.sh: line 3: Bus error ./game".
func shellMessage(s string) string {
	i := strings.Index(s, "line ")
	if i < 0 || i > 0 && !strings.HasSuffix(s[:i], ": ") {
		return s
	}
	j := i + len("line ")
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == i+len("line ") || !strings.HasPrefix(s[j:], ": ") {
		return s
	}
	rest := strings.TrimLeft(s[j+2:], " ")
	k := 0
	for k < len(rest) && isDigit(rest[k]) {
		k++
	}
	if k == 0 || k == len(rest) || rest[k] != ' ' || !shellSignalName(strings.TrimLeft(rest[k:], " ")) {
		return s
	}
	return s[:j+2] + strings.Join(strings.Fields(rest[k:]), " ")
}

// shellSignalName reports bash's (strsignal's) name of a signal a command
// died of at the start of s.
func shellSignalName(s string) bool {
	for _, name := range []string{"Segmentation fault", "Aborted", "Bus error", "Floating point exception", "Illegal instruction",
		"Killed", "Trace/breakpoint trap"} {
		if strings.HasPrefix(s, name) {
			return true
		}
	}
	return false
}

// raisedIn reports whether line, a record's text, is an exception's line
// ("RuntimeError: server exited with status 1:") that its stack holds on a
// line of its own: the exception the record is of, whatever other
// exception lines its message holds.
func raisedIn(stack, line string) bool {
	name, _, ok := strings.Cut(line, ": ")
	if !ok || name == "" || strings.ContainsAny(name, " \t") ||
		!strings.HasSuffix(name, "Error") && !strings.HasSuffix(name, "Exception") {
		return false
	}
	return strings.Contains(stack, "\n"+line+"\n") || strings.HasSuffix(stack, "\n"+line)
}

// rejectionReason is the reason of Node's rejection of a promise with
// something that is no Error, which it prints after 200 characters of
// explanation: "UnhandledPromiseRejection: This error originated either
// by … The promise rejected with the reason "lobby refused the
// connection".".
func rejectionReason(text string) (string, bool) {
	const head, with = "UnhandledPromiseRejection: This error originated", ` with the reason "`
	i := strings.Index(text, with)
	if !strings.HasPrefix(text, head) || i < 0 {
		return "", false
	}
	reason := text[i+len(with):]
	if j := strings.LastIndex(reason, `"`); j >= 0 {
		reason = reason[:j]
	}
	return reason, reason != ""
}

// isFrameLine reports whether s, trimmed, is a frame.
func isFrameLine(s string) bool {
	_, ok := parseFrame(s)
	return ok
}

// asyncioContext reports a line of the context asyncio's exception
// handler prints before the traceback ("future: <Task finished …>").
func asyncioContext(s string) bool {
	ctx, ok := oplog.AsyncioContext(s)
	return ok && len(ctx) == len(s)
}

// stackException returns the exception line of a stack that names one.
func stackException(stack string) string {
	if pyGroup(stack) {
		return "" // the group's line is the record's text: its sub-exceptions' come after it
	}
	stack = reportedCause(preamble(stack))
	python, asyncio, last := false, false, ""
	py := pyState{indent: -1}
	if i := strings.Index(stack, "\nstack traceback:"); i > 0 { // Lua: the error, then its traceback
		// (Not a second "stack traceback:" after a traceback's frames.)
		if line := strings.TrimSpace(stack[strings.LastIndexByte(stack[:i], '\n')+1 : i]); !isFrameLine(line) {
			return line
		}
	}
	for line := range strings.Lines(stack) {
		s := strings.TrimSpace(line)
		switch {
		case s == "":
			continue
		case s == "Traceback (most recent call last):":
			python = true
			continue
		case !python && asyncioContext(s):
			asyncio = true // asyncio's context, before the traceback
			continue
		case asyncio && !python && len(s) < len(strings.TrimRight(line, "\r\n")):
			continue // where the task was created, under its context line (asyncio's debug mode)
		case asyncio && !python:
			return s // the exception's line, of one raised nowhere: no traceback
		case python:
			// The exception's line ends the frames; its message's other
			// lines and its notes come after it.
			if !py.source(line, s) {
				if strings.HasPrefix(s, `File "`) {
					py.frame(line, s)
				} else {
					py.other(s)
				}
			}
			last = s
			continue
		}
		if _, ok := parseFrame(s); ok {
			return ""
		}
		if isExceptionLine(s) {
			return exceptionStart(s)
		}
		if strings.HasPrefix(s, "panic: ") { // Go
			return s
		}
		return ""
	}
	if py.exc != "" {
		return py.exc
	}
	return last // Python's exception ends its traceback
}

// GameFrame returns the first frame of stack that belongs to the game, as
// written (file and line kept), innermost first as TopLines reads them; ""
// when every frame is a runtime's.
//
// The rule, for every runtime: a frame of a language runtime or of the
// system is never the game's (runtimeFrame): Python's own library (the
// interpreter's lib/python3.x, site-packages and dist-packages, <frozen
// ...> modules), the C and C++ runtimes and the dynamic loader (libc,
// libstdc++, libgcc, ld-linux, __libc_start*, _start), the sanitizers'
// runtimes and interceptors (libasan, libubsan, liblsan, __interceptor_*,
// __asan_*, __sanitizer*), the JDK (java., javax., jdk., sun.), Node's
// (node:internal, node_modules), .NET's and Mono's base library (System.,
// Mono., mscorlib), Go's runtime. (A system library's native frame, and a
// signal handler's own frames above the signal's trampoline, are not
// even read as frames: Parse.) Past those, a frame in the project (res://,
// Assets/, a mod's folder, the crate's src/, the game's own .lua, .gd or
// .py) is chosen at once; else the first that is not an engine's (Unity,
// Godot, Minecraft and its loaders, LÖVE, Ren'Py); else, when every frame
// is an engine's, the first of those.
func GameFrame(stack string) string {
	other, engine := "", ""
	var rest []string // the lines after other
	lines := stpPastHandler(TopLines(stack, maxGameFrames))
	for _, l := range lines {
		if strings.Contains(l, stpModMark) {
			return l // a mod's, in Balatro's: what its modder looks for, past the game's own frames
		}
	}
	for i, l := range lines {
		s, module := frameText(l)
		switch {
		case i+1 < len(lines) && rubyCMethod(l, lines[i+1]):
			// Ruby's method written in C ("in `fetch'") at its caller's place: the caller, next, names it
		case runtimeModule(module) || runtimeFrame(s):
		case engineModule(module) || engineFrame(s):
			if engine == "" {
				engine = l
			}
		case projectFrame(s):
			return phpFrame(l, lines[i+1:])
		case other == "":
			other, rest = l, lines[i+1:]
		}
	}
	if other == "" {
		return engine // all the engine's (a Minecraft crash without mods): its first, past the runtime's
	}
	return phpFrame(other, rest)
}

// phpFrame is PHP's frame l ("#1 plugins/Arena/src/Main(41):
// pocketmine\Server->stop()": line 41 of Main called Server->stop) named
// as its function and place, "me\Main->onEnable() (plugins/Arena/src/Main:41)",
// the function the frame after it called; any other frame as it is.
func phpFrame(l string, after []string) string {
	place, _, ok := phpFrameParts(l)
	if !ok || len(after) == 0 {
		return l
	}
	_, call, ok := phpFrameParts(after[0])
	if !ok {
		return l
	}
	if i := strings.IndexByte(call, '('); i > 0 {
		call = call[:i] + "()" // its arguments say nothing of the place
	}
	return "at " + call + " (" + place + ")"
}

// phpFrameParts splits PHP's frame "#1 src/Main(41): Server->stop()" into
// its place ("src/Main:41") and its call.
func phpFrameParts(l string) (place, call string, ok bool) {
	if len(l) < 4 || l[0] != '#' || !isDigit(l[1]) {
		return "", "", false
	}
	_, rest, _ := strings.Cut(l, " ")
	head, call, found := strings.Cut(rest, "): ")
	open := strings.LastIndexByte(head, '(')
	if !found || open <= 0 || !allDigits(head[open+1:]) {
		return "", "", false
	}
	return head[:open] + ":" + head[open+1:], call, true
}

// rubyCMethod reports whether l is a Ruby frame of a method written in C,
// which Ruby gives its caller's file and line, next: "err.rb:2:in
// `fetch'", then "from err.rb:2:in `parse'".
func rubyCMethod(l, next string) bool {
	place, _, ok := strings.Cut(l, ":in ")
	caller, _, ok2 := strings.Cut(strings.TrimPrefix(next, "from "), ":in ")
	return ok && ok2 && place == caller
}

// frameText is what a frame line names, without "at ", a native dump's
// address and its module, which it returns apart: "0x0000022124FE0CC9
// (Mono JIT Code) Verse.StaticTextureAtlas:Bake ()" names
// "Verse.StaticTextureAtlas:Bake ()" in "Mono JIT Code"; gdb's "#3
// 0x00007f3a in Engine::World::Tick (...)" names "Engine::World::Tick (...)".
func frameText(l string) (text, module string) {
	s := strings.TrimPrefix(strings.TrimPrefix(l, "at "), haxeCalled)
	if sym, module, ok := coredumpParts(s); ok {
		if sym == "n/a" && module == "" {
			return "<unknown>", "" // no symbol, no module: no frame of the game's
		}
		if sym == "n/a" {
			return module, ""
		}
		name, _, _ := strings.Cut(module, "+0x")
		return demangled(sym), name
	}
	if f, ok := defoldTitle(s); ok {
		return f, ""
	}
	if f, ok := compiledTitle(s); ok {
		return f, ""
	}
	if module, sym, ok := androidParts(s); ok {
		return sym, module
	}
	if module, sym, ok := macParts(s); ok {
		return demangled(sym), module
	}
	if len(s) > 1 && s[0] == '#' && isDigit(s[1]) {
		if _, rest, ok := strings.Cut(s, " in "); ok {
			return strings.TrimSpace(rest), ""
		}
	}
	if lldbLine(s) {
		module, fn, _ := strings.Cut(frameTitle(s), "`")
		return fn, module
	}
	if module, sym, ok := execinfoParts(s); ok {
		if i := strings.LastIndex(sym, "+0x"); i >= 0 {
			sym = sym[:i] // an offset alone would be a frame without a symbol (moduleOffset)
		}
		return demangled(sym), module
	}
	if !isHexStart(s, 0) {
		return s, ""
	}
	_, rest, _ := strings.Cut(s, " ")
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "(") {
		if i := strings.IndexByte(rest, ')'); i > 0 {
			module, rest = rest[1:i], strings.TrimSpace(rest[i+1:])
		}
	}
	if strings.HasPrefix(rest, "[") { // the source position: "[c:\...\object.c:2853] do_runtime_invoke"
		if _, after, ok := strings.Cut(rest, "] "); ok {
			rest = strings.TrimSpace(after)
		}
	}
	// A method Harmony patched (a RimWorld mod's): the mod's code.
	return strings.TrimPrefix(rest, "(wrapper dynamic-method) "), module
}

// engineModule and runtimeModule sort a native dump's modules: Unity's
// own and Mono's are the engine's; Windows' and the C runtime's the
// system's; "Mono JIT Code" is managed code, judged by its name.
func engineModule(m string) bool {
	return m != "" && m != "Mono JIT Code" && (strings.Contains(m, "Unity") || strings.Contains(m, "mono") ||
		strings.Contains(m, "/libunity.so") || strings.Contains(m, "/libgodot_android.so") || strings.Contains(m, "SDL2") || strings.Contains(m, "SDL3"))
}

func runtimeModule(m string) bool {
	if androidSystem(m) || systemLibrary(m) {
		return true
	}
	switch strings.ToLower(m) {
	case "ntdll", "kernel32", "kernelbase", "ucrtbase", "msvcrt", "user32", "d3d11", "d3d12", "dxgi":
		return true
	}
	return false
}

// runtimeFrame reports a frame of a language runtime or system library,
// which never names a crash (GameFrame's rule): the JDK, the .NET base
// library, Lua's C functions, Rust's standard library, libc and the C++
// runtime, the sanitizers', Python's library, Node's, Go's runtime, a
// native frame without a symbol.
func runtimeFrame(l string) bool {
	s := strings.TrimPrefix(l, "at ")
	if goStdFrame(s) || cLibraryFrame(s) {
		return true
	}
	switch s {
	case "_init", "_fini", "(Unknown)", // no symbol: a stripped library's nearest, Unity's word on Linux
		"funlockfile": // what that names the signal's trampoline in Unity's "Obtained 23 stack frames." on Linux
		return true
	}
	for _, p := range []string{"java.", "javax.", "jdk.", "sun.", "kotlin.", "System.", "Mono.", "mono_", "(wrapper ",
		"string:", "object:", // Mono's names of System.String's and System.Object's methods
		"GC_", // Mono's garbage collector (Boehm's)
		"[C]", "std::", "core::", "alloc::", "rust_begin_unwind", "__rustc::", "__libc_", "libc.so", "ld-linux", "_start", "runtime.",
		// Valgrind's and gdb's names for a frame they could not name, and for the C runtime's start.
		"???", "(below main)", "?? (",
		"__interceptor_", "___interceptor_", "__asan_", "__sanitizer", "__lsan_", "__ubsan_", "node:", "mscorlib",
		// No symbol: Rust's, Godot's and Unity's words for a frame they could not name.
		"<unknown>", "<couldn't map PC to fn name>", "(function-name not available)",
		// The threads' start in glibc.
		"start_thread", "clone3", "__clone",
		// Minecraft's launchers (a mod's development run, Prism, MultiMC,
		// Quilt) and the Java libraries it ships with: never a mod's code.
		"GradleStart", "net.minecraft.launchwrapper.", "org.prismlauncher.", "org.multimc.", "org.quiltmc.", "org.apache.",
		"com.google.", "io.netty.", "it.unimi.dsi.", "org.spongepowered.asm.", "com.llamalad7.", "org.objectweb.asm.",
		"joptsimple.", "org.slf4j.", "com.sun.", "org.spongepowered.", "net.fabricmc.loader.", "cpw.mods.modlauncher.",
		"cpw.mods.bootstraplauncher.", "io.github.zekerzhayard.forgewrapper."} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	for _, p := range []string{"/rustc/", "/usr/src/rustc", "/library/std/", "/library/core/", "ntdll", "KERNEL32", "KERNELBASE", "node:internal",
		"(<anonymous>)", // V8's built-ins: "at JSON.parse (<anonymous>)", "at Array.map (<anonymous>)"
		"libsystem_", "_sigtramp", "(node:", "node_modules", "mscorlib",
		// The signal's trampoline on ARM64 and 32-bit x86, MinGW's exception
		// handler (signalTrampoline); godot-cpp's bindings into the engine.
		"__kernel_rt_sigreturn", "__kernel_sigreturn", "_gnu_exception_handler", "___godot_icall_",
		// Ruby's own library and its gems.
		"/lib/ruby/", "/gems/",
		// The C and C++ runtimes' and the sanitizers' sources and libraries.
		"libc.so", "libstdc++", "libgcc_s", "ld-linux", "libjvm.", "jvm.dll", "libasan", "libubsan", "liblsan", "libtsan", "libsanitizer", "compiler-rt/",
		"/sysdeps/", "../csu/", "(vg_replace_", "/vgpreload_", "_intercepts.c:", // Valgrind's own: its allocator, its tools' wrappers
		// glibc's sources as its debug information names them.
		"./nptl/", "./stdlib/", "./libio/", "./string/", "./malloc/", "./posix/", "./assert/", "./signal/", "./misc/", "./elf/",
		// Zig's, Nim's and Dart's standard libraries.
		"/zig/std/", "/lib/zig/", `\zig\std\`, "/nim/lib/", "/lib/nim/", " (dart:",
		// D's runtime, which its trace names without a place.
		"(??:?)", "/druntime/", "/phobos/",
		// Microsoft's C runtime, in a Windows build's stack with its sources.
		`minkernel\crts\`, "minkernel/crts/", `\vctools\crt\`, "/vctools/crt/",
		// Python's own library, wherever the interpreter is installed.
		"lib/python", "site-packages", "dist-packages", `"<frozen `, `\Lib\`,
		// Godot's error reporting: push_error's and the engine's print of an
		// error, never where it happened.
		"gdscript_functions.cpp", "gdscript_utility_functions.cpp", "_err_print_error", "error_macros.cpp"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return windowsPythonLib(s) || moduleOffset(s)
}

// windowsPythonLib reports a frame in a Windows install of Python's
// library, "…\Python36\lib\OpenGL\error.py" (what pip put beside it too):
// a folder "Python" and its version's digits, then "lib".
func windowsPythonLib(s string) bool {
	low := strings.ToLower(s)
	for i := strings.Index(low, `\python`); i >= 0; {
		j := i + len(`\python`)
		k := j
		for k < len(low) && isDigit(low[k]) {
			k++
		}
		if k > j && strings.HasPrefix(low[k:], `\lib\`) {
			return true
		}
		n := strings.Index(low[j:], `\python`)
		if n < 0 {
			return false
		}
		i = j + n
	}
	return false
}

// goStdFrame reports a frame of Go's standard library, its runtime among
// them, as TopLines writes Go's frames: "runtime/debug.Stack() at
// /usr/local/go/src/runtime/debug/stack.go:26",
// "internal/runtime/maps.fatal(...) at ...". A program's own functions
// are main's, or under its module's path.
func goStdFrame(s string) bool {
	i := strings.IndexAny(s, "./")
	return i > 0 && strings.Contains(s, ".go:") && slices.Contains(goStd, s[:i])
}

// goStd are the first elements of the paths of Go's standard packages.
var goStd = []string{"archive", "bufio", "bytes", "cmp", "compress", "container", "context", "crypto", "database", "debug",
	"embed", "encoding", "errors", "expvar", "flag", "fmt", "hash", "html", "image", "internal", "io", "iter", "log", "maps",
	"math", "mime", "net", "os", "path", "plugin", "reflect", "regexp", "runtime", "slices", "sort", "strconv", "strings",
	"sync", "syscall", "testing", "text", "time", "unicode", "unique", "unsafe", "weak"}

// projectFrame reports a frame in the game's own files.
func projectFrame(l string) bool {
	for _, p := range []string{"res://", "Assets/", `Assets\`, "/mods/", `\mods\`, "src/", `src\`} {
		if strings.Contains(l, p) {
			return true
		}
	}
	for _, ext := range []string{".lua:", ".gd:", ".py\""} {
		if strings.Contains(l, ext) {
			return true
		}
	}
	return false
}

// engineFrames are the beginnings (after "at ") of frames of engines,
// runtimes and system libraries.
var engineFrames = []string{
	"[C]", `[love "`, "[string \"boot", "UnityEngine.", "UnityEditor.", "Unity.", "System.", "Mono.", "(wrapper ", "mono_",
	"java.", "javax.", "jdk.", "sun.", "kotlin.", "net.minecraft.", "com.mojang.", "cpw.mods.", "net.minecraftforge.",
	"net.neoforged.", "net.fabricmc.", "org.lwjgl.",
	// Minecraft's servers a plugin runs in: Bukkit, Spigot, Paper, BungeeCord, Velocity.
	"org.bukkit.", "org.spigotmc.", "io.papermc.", "com.destroystokyo.paper.", "co.aikar.timings.", "net.md_5.", "com.velocitypowered.",
	"std::", "core::", "alloc::", "tokio::", "rust_begin_unwind",
	"__rustc::", "__libc_", "libc.so", "ld-linux", "_start", "godot_", "Godot.", "GodotPlugins.", "runtime.",
	// Frameworks and packages a game builds on: XNA, MonoGame and FNA, Unity's TextMeshPro.
	"Microsoft.Xna.", "MonoGame.", "TMPro.",
	// Haxe's standard library and runtimes, Heaps, OpenFL, Lime, HaxeFlixel.
	"haxe.", "hl.", "hxcpp::", "hxd.", "h2d.", "h3d.", "hxsl.", "openfl.", "lime.", "flixel.",
}

// engineParts are parts of frames of engines, runtimes and system
// libraries wherever they appear.
var engineParts = []string{
	"/rustc/", "/usr/src/rustc", "/library/std/", "/library/core/", ".cargo/registry", "/builtin/", `\builtin\`,
	"(core/", "(scene/", "(modules/", "(servers/", "(main/", "(platform/", "(drivers/", "(editor/", "(./core/",
	"core_bind.cpp", "/usr/lib/",
	// Godot's sources in a checkout named godot, as a build of one's own names them.
	"/godot/core/", "/godot/scene/", "/godot/modules/", "/godot/servers/", "/godot/main/", "/godot/platform/", "/godot/drivers/", "/godot/editor/", "ntdll", "KERNEL32", "KERNELBASE", "UnityPlayer", "libunity",
	"mono-2.0", "(Unity)", "site-packages", "/renpy/", `\renpy\`, "renpy/common/", "node:internal", "node_modules",
	// SDL, which most native games run on.
	"libSDL2", "libSDL3", "SDL2.dll", "SDL3.dll",
	// PocketMine-MP's sources (a plugin's are under plugins/), as its traces name them.
	"src/pocketmine/", "pmsrc/", "vendor/pocketmine/",
}

// engineFrame reports a frame of an engine, a runtime or a system library:
// none of the game's own, or one without a symbol ("libc.so.6+3c050",
// "godot3-server+9f8211").
func engineFrame(l string) bool {
	if stpEngine(l) {
		return true
	}
	s := strings.TrimPrefix(l, "at ")
	for _, p := range engineParts {
		if strings.Contains(s, p) {
			return true
		}
	}
	if strings.HasPrefix(s, "[C]") || strings.HasPrefix(s, `[love "`) {
		return true
	}
	if projectFrame(s) {
		return false
	}
	s = javaLoaderless(s)
	for _, p := range engineFrames {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return moduleOffset(s)
}

// javaLoaderless returns a Java frame without its module or class
// loader: "knot//net.minecraft.client.Minecraft.<init>(Minecraft.java:456)"
// (Fabric's), "java.base/java.lang.Thread.run(…)", "TRANSFORMER/minecraft@1.21.1/net.minecraft.server.Main.main(…)"
// (Forge's) are their classes' frames; any other frame as it is.
func javaLoaderless(s string) string {
	open := strings.IndexByte(s, '(')
	if open <= 0 {
		return s
	}
	if i := strings.LastIndexByte(s[:open], '/'); i >= 0 && !strings.ContainsAny(s[:i], " $") {
		return s[i+1:]
	}
	return s
}

// moduleOffset reports a native frame without a symbol: a module and an
// offset, "libc.so.6+3c050", "godot3-server+9f8211 (core/os.cpp:12)".
func moduleOffset(s string) bool {
	s, _, _ = strings.Cut(s, " ")
	i := strings.LastIndexByte(s, '+')
	if i <= 0 || i == len(s)-1 || strings.ContainsAny(s[:i], "()<>:") {
		return false
	}
	for j := i + 1; j < len(s); j++ {
		if !isHex(s[j]) && s[j] != 'x' {
			return false
		}
	}
	return true
}

// framesAt returns the offset of stack's first frame line (0 when it has
// none): a native dump's frames come after its symbol path and modules.
func framesAt(stack string) int {
	off := 0
	for line := range strings.Lines(stack) {
		if s := strings.TrimSpace(line); s != "" && !skipLine(s) {
			if f, ok := parseFrame(s); ok && f != "" {
				return off
			}
		}
		off += len(line)
	}
	return 0
}
