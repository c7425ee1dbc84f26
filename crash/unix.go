package crash

import (
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/mcplogd/mcplogd/oplog"
)

// Native crashes of programs on Linux and macOS, as a crash handler or a
// tool prints them: glibc's backtrace_symbols_fd ("./game(update+0x14)
// [0x55d4c3a1b1e9]", "/lib/x86_64-linux-gnu/libc.so.6(+0x3bfd0)[0x7f...]"),
// lldb ("frame #0: 0x0000 game`update_player at game.c:41:5"), the
// sanitizers' reports (their frames are gdb's shape, read by gdbFrame) and
// C++'s std::terminate. A frame of a system library (libc, libstdc++, the
// dynamic loader, the sanitizers' runtimes) is "": it is where every crash
// ends up, never what tells one from another.

// maxHandlerFrames is how many frames a signal handler's own frames may be
// before the signal's trampoline (signalTrampoline): the handler calls
// backtrace() itself, so its frames come first.
const maxHandlerFrames = 3

// execinfoFrame reads a frame of glibc's backtrace_symbols:
// "module(symbol+0xoff) [0xaddr]", the space optional, symbol and offset
// optional. ok is false when s is not one.
func execinfoFrame(s string) (frame string, ok bool) {
	module, sym, ok := execinfoParts(s)
	if !ok {
		return "", false
	}
	name := sym
	if i := strings.LastIndex(sym, "+0x"); i >= 0 {
		name = sym[:i]
	}
	name = demangled(name)
	if name == "" || systemLibrary(module) || nativeStartup(name) {
		return "", true
	}
	return normalizeName(name), true
}

// macParts splits macOS's backtrace_symbols frame, "4   widelands
// 0x0000000104fa0b58 _ZN2UI5Panel6do_runEv + 1160" (its number, image,
// address, symbol and offset), into its image and symbol.
func macParts(s string) (module, sym string, ok bool) {
	f := strings.Fields(s)
	n := len(f)
	if n < 6 || !allDigits(f[0]) || !isHexStart(f[2], 0) || f[n-2] != "+" || !allDigits(f[n-1]) {
		return "", "", false
	}
	return f[1], strings.Join(f[3:n-2], " "), true
}

// macFrame reads macOS's backtrace_symbols frame, as execinfoFrame reads
// glibc's.
func macFrame(s string) (string, bool) {
	module, sym, ok := macParts(s)
	if !ok {
		return "", false
	}
	name := demangled(sym)
	if systemLibrary(module) || nativeStartup(name) || name == "start" {
		return "", true
	}
	return normalizeName(name), true
}

// strippedStack reports a backtrace_symbols stack of a program without
// symbols: its frames of the program's own modules name no function
// ("./game(+0x1243)[0x55ffd34b6243]"), only places in them. Their offsets
// are then all that tells one crash from another, and they hold for every
// run of one build (a rebuild moves them: a build with symbols groups
// across builds).
func strippedStack(stack string) bool {
	if !strings.Contains(stack, "(+0x") {
		return false
	}
	found := false
	for line := range strings.Lines(stack) {
		module, sym, ok := execinfoParts(unnumbered(strings.TrimSpace(line)))
		if !ok || systemLibrary(module) {
			continue
		}
		if !strings.HasPrefix(sym, "+0x") {
			return false
		}
		found = true
	}
	return found
}

// offsetFrame is a stripped program's frame s as its module's name and the
// offset in it ("game+0x1243"); "" for a system library's, or a line that
// is no such frame.
func offsetFrame(s string) string {
	module, sym, ok := execinfoParts(s)
	if !ok || systemLibrary(module) || !strings.HasPrefix(sym, "+0x") {
		return ""
	}
	return oplog.ClipBytes(module[strings.LastIndexAny(module, `/\`)+1:]+sym, maxFrameBytes)
}

// coredumpParts splits systemd-coredump's frame, "#0  0x000055d5d5d5d1a9
// spawn_enemy (game + 0x11a9)" ("n/a" for a symbol it could not name),
// into its symbol and its module with the offset in it ("game+0x11a9"),
// "" when it names none ("n/a (n/a)").
func coredumpParts(s string) (sym, module string, ok bool) {
	if len(s) < 2 || s[0] != '#' || !isDigit(s[1]) {
		return "", "", false
	}
	_, rest, _ := strings.Cut(s, " ")
	addr, rest, _ := strings.Cut(strings.TrimSpace(rest), " ")
	i := strings.LastIndex(rest, " (")
	if !isHexStart(addr, 0) || i <= 0 || !strings.HasSuffix(rest, ")") {
		return "", "", false
	}
	if strings.ContainsAny(rest[:i], " \t") {
		return "", "", false
	}
	if rest[i+2:] == "n/a)" {
		return rest[:i], "", true // neither symbol nor module: "n/a (n/a)"
	}
	name, off, found := strings.Cut(rest[i+2:len(rest)-1], " + 0x")
	if !found || name == "" {
		return "", "", false
	}
	return rest[:i], name + "+0x" + off, true
}

// demangled is a C++ symbol as its source names it, without its
// parameters ("_ZN5World5spawnEi" is "World::spawn"); any other name, or
// one that does not demangle, as it is. backtrace_symbols prints C++'s
// names mangled; a title naming "_ZN5World10spawnEnemy..." says little.
func demangled(sym string) string {
	if !strings.HasPrefix(sym, "_Z") {
		return sym
	}
	if s, err := demangle.ToString(sym, demangle.NoParams, demangle.NoClones); err == nil {
		return s
	}
	return sym
}

// execinfoParts splits a backtrace_symbols frame into its module and its
// "symbol+0xoff".
func execinfoParts(s string) (module, sym string, ok bool) {
	i := strings.IndexByte(s, '(')
	j := strings.LastIndexByte(s, ')')
	if i <= 0 || j < i || !strings.HasSuffix(s, "]") || strings.ContainsAny(s[:i], " \t") ||
		!strings.HasPrefix(strings.TrimLeft(s[j+1:], " "), "[0x") {
		return "", "", false
	}
	return s[:i], s[i+1 : j], true
}

// unnumbered is s without the number a crash handler put before a frame
// of glibc's backtrace_symbols, "#2 ./game(mix_audio+0x1a) [0x55cf6942e330]":
// the frame as backtrace_symbols wrote it, so that it reads as one
// (the handler's frames above the signal's trampoline left out); and
// without the mark loguru puts before the Python frame that caught the
// exception ("> File \"game.py\", line 16, in main"). Any other line is s.
func unnumbered(s string) string {
	if strings.HasPrefix(s, `> File "`) {
		return s[2:]
	}
	if _, rest, ok := loguruParts(s); ok {
		if _, _, ok := execinfoParts(rest); ok {
			return rest
		}
	}
	if len(s) < 3 || s[0] != '#' || !isDigit(s[1]) {
		return s
	}
	i := 1
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	rest := strings.TrimSpace(s[i:])
	if _, _, ok := execinfoParts(rest); !ok || i == len(s) || s[i] != ' ' {
		return s
	}
	return rest
}

// lldbFrame reads a frame of lldb's bt: "frame #0: 0x0000555555555189
// game`update_player(p=0x0) at game.c:41:5", the selected one starred.
func lldbFrame(s string) string {
	s = strings.TrimPrefix(s, "* ")
	_, rest, _ := strings.Cut(s, ": ")
	if _, r, ok := strings.Cut(strings.TrimSpace(rest), " "); ok && isHexStart(rest, 0) {
		rest = r
	}
	module, fn, ok := strings.Cut(strings.TrimSpace(rest), "`")
	if !ok || systemLibrary(module) {
		return "" // no symbol, or a system library's
	}
	for _, sep := range []string{" at ", " + ", "("} {
		if i := strings.Index(fn, sep); i > 0 {
			fn = fn[:i]
		}
	}
	if nativeStartup(fn) {
		return ""
	}
	return normalizeName(fn)
}

// lldbLine reports a frame line of lldb's bt.
func lldbLine(s string) bool {
	return strings.HasPrefix(s, "frame #") || strings.HasPrefix(s, "* frame #")
}

// asanFunction returns the function of what follows " in " in a
// sanitizer's frame, "spawn_enemy /tmp/g/game.c:27:5" or "_start
// (/tmp/g/game+0x1234)": the location is the last word, after a space
// that gdb's shape ("f (args) at file:line") does not have there.
func asanFunction(s string) string {
	i := strings.LastIndexByte(s, ' ')
	if i <= 0 || strings.Contains(s, " at ") || strings.Contains(s, " from ") {
		return s
	}
	loc := s[i+1:]
	if strings.HasPrefix(loc, "(") && strings.Contains(loc, "+0x") || strings.Contains(loc, "/") || strings.Contains(loc, ".") && strings.Contains(loc, ":") {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// systemLibrary reports a module of the system or of a language's
// runtime: the C and C++ runtimes, the dynamic loader, the sanitizers'.
func systemLibrary(module string) bool {
	base := module[strings.LastIndexAny(module, `/\`)+1:]
	for _, p := range []string{"libc.so", "libc-", "libc++", "libstdc++", "libgcc_s", "ld-linux", "ld-musl", "libm.so", "libpthread", "libjvm.", "jvm.dll",
		"libdl.", "linux-vdso", "libasan", "libubsan", "liblsan", "libtsan", "libunwind", "libsystem_", "libSystem", "libdyld"} {
		if strings.HasPrefix(base, p) {
			return true
		}
	}
	return false
}

// nativeStartup reports the functions before main and the sanitizers'
// interceptors: in every stack, they name no crash.
func nativeStartup(fn string) bool {
	switch {
	case fn == "_start", strings.HasPrefix(fn, "__libc_start"), strings.HasPrefix(fn, "__interceptor_"),
		strings.HasPrefix(fn, "__asan_"), strings.HasPrefix(fn, "__sanitizer"), strings.HasPrefix(fn, "__lsan_"),
		strings.HasPrefix(fn, "__ubsan_"), strings.HasPrefix(fn, "___interceptor_"):
		return true
	}
	return false
}

// signalTrampoline reports the frame through which the kernel entered a
// signal handler: glibc's __restore_rt (a frame of libc without a symbol
// in backtrace_symbols), gdb's "<signal handler called>", macOS's
// _sigtramp, the vDSO's on ARM64 and 32-bit x86 (__kernel_rt_sigreturn,
// __kernel_sigreturn), and MinGW's C runtime's exception handler on
// Windows. The frames above it are the handler's, printing the stack:
// none of them is the crash.
func signalTrampoline(s string) bool {
	if strings.Contains(s, "(__kernel_rt_sigreturn+") || strings.Contains(s, "(__kernel_sigreturn+") ||
		strings.HasPrefix(s, "_gnu_exception_handler ") {
		return true
	}
	if module, sym, ok := execinfoParts(s); ok {
		return strings.HasPrefix(module[strings.LastIndexByte(module, '/')+1:], "libc") && (sym == "" || strings.HasPrefix(sym, "+0x") ||
			strings.HasPrefix(sym, "__restore_rt"))
	}
	if fn, place, ok := boostParts(s); ok && fn == "" { // boost::stacktrace's "1# 0x00007F2D3C05AFD0 in /lib/x86_64-linux-gnu/libc.so.6"
		return strings.HasPrefix(place[strings.LastIndexByte(place, '/')+1:], "libc")
	}
	return strings.Contains(s, "<signal handler called>") || strings.Contains(s, "_sigtramp")
}

// sanitizerNoise reports the lines of a sanitizer's report around its
// frames: what was accessed, which allocation, the summary, the pid's
// banners, the shadow memory. The report's first line is the record's
// message, its head.
func sanitizerNoise(s string) bool {
	for _, p := range []string{"READ of size ", "WRITE of size ", "Direct leak of ", "Indirect leak of ", "freed by thread ",
		"previously allocated by thread ", "allocated by thread ", "SUMMARY: ", "Shadow byte", "HINT: ",
		// ThreadSanitizer's accesses, and what they touched.
		"Read of size ", "Write of size ", "Previous read of size ", "Previous write of size ", "Atomic read of size ",
		"Atomic write of size ", "Previous atomic ", "Location is ", "Mutex M", "As if synchronized via sleep:",
		// Go's race detector's.
		"Read at 0x", "Write at 0x", "Previous read at 0x", "Previous write at 0x", "Goroutine "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(s, "=="); ok && rest != "" && isDigit(rest[0]) { // "==12345==ABORTING"
		return true
	}
	if rest, ok := strings.CutPrefix(s, "Thread T"); ok && rest != "" && isDigit(rest[0]) { // "Thread T1 created by T0 here:"
		return true
	}
	return isHexStart(s, 0) && (strings.Contains(s, " is located ") || strings.HasPrefix(s[strings.IndexByte(s, ' ')+1:], "is a wild pointer"))
}

// assertMessage returns a failed assertion's words without the place and
// function before them (the frame it makes says those): "Assertion `n <
// 100' failed" from glibc's "game: game.c:27: spawn_enemy: Assertion `n <
// 100' failed.", "Assertion '__n < this->size()' failed" from libstdc++'s
// "/usr/include/c++/12/bits/stl_vector.h:1123: std::vector<…>::reference
// std::vector<…>::operator[](size_type) [with …]: Assertion '__n <
// this->size()' failed."; "Assertion failed: i < Size()" from Microsoft's
// "Assertion failed: i < Size(), file D:\game\array.h, line 494"; ok is
// false when text is not one.
func assertMessage(text string) (string, bool) {
	if m, ok := strings.CutPrefix(text, "Assertion failed: "); ok { // Microsoft's: "…, file D:\game\array.h, line 494"
		if i := strings.LastIndex(m, ", file "); i > 0 && strings.Contains(m[i:], ", line ") {
			return "Assertion failed: " + m[:i], true
		}
		if i := strings.LastIndex(m, " at line "); i > 0 && strings.Contains(m[i:], " of ") { // Panda3D's: "… at line 449 of panda/src/x.cxx"
			return "Assertion failed: " + m[:i], true
		}
	}
	i := strings.Index(text, ": Assertion ")
	if i < 0 || !strings.HasSuffix(text, "' failed.") {
		return "", false
	}
	return strings.TrimSuffix(text[i+2:], "."), true
}

// terminateMessage reads C++'s std::terminate message, "terminate called
// after throwing an instance of 'std::runtime_error'" and on the next line
// "  what():  enemy pool exhausted", into the exception's type and what();
// ok is false when text is not one.
func terminateMessage(text string) (typ, what string, ok bool) {
	first, rest, _ := strings.Cut(strings.TrimSpace(text), "\n")
	typ, ok = strings.CutPrefix(strings.TrimSpace(first), "terminate called after throwing an instance of ")
	if !ok {
		// cpptrace's terminate handler: "Terminate called after throwing
		// an instance of std::runtime_error: no spawn point", one line.
		if typ, ok = strings.CutPrefix(strings.TrimSpace(first), "Terminate called after throwing an instance of "); !ok {
			return "", "", false
		}
		typ, what, _ = strings.Cut(typ, ": ")
		return typ, what, true
	}
	typ = strings.Trim(typ, "'")
	if _, w, found := strings.Cut(rest, "what():"); found {
		what, _, _ = strings.Cut(strings.TrimSpace(w), "\n")
	}
	return typ, strings.TrimSpace(what), true
}

// sanitizerMessage shortens a sanitizer's first line for a title:
// "==12345==ERROR: AddressSanitizer: heap-use-after-free on address 0x...
// at pc 0x... bp ... sp ..." is "AddressSanitizer: heap-use-after-free";
// ThreadSanitizer's "WARNING: ThreadSanitizer: data race (pid=4487)" is
// "ThreadSanitizer: data race"; UndefinedBehaviorSanitizer's "game.c:12:5:
// runtime error: …" is "runtime error: …".
func sanitizerMessage(s string) string {
	// UndefinedBehaviorSanitizer's place, which its frame says.
	if place, msg, ok := strings.Cut(s, ": runtime error: "); ok && place != "" && isDigit(place[len(place)-1]) &&
		!strings.ContainsAny(place, " \t") {
		return "runtime error: " + msg
	}
	if t, ok := strings.CutPrefix(strings.TrimPrefix(s, "WARNING: "), "ThreadSanitizer: "); ok {
		if i := strings.LastIndex(t, " (pid="); i > 0 && strings.HasSuffix(t, ")") {
			return "ThreadSanitizer: " + t[:i]
		}
		return s
	}
	rest, ok := strings.CutPrefix(s, "==")
	if !ok {
		return s
	}
	_, rest, ok = strings.Cut(rest, "==ERROR: ")
	if !ok {
		return s
	}
	// The address each run differs in: "heap-use-after-free on address
	// 0x602000000010 at pc ...", "attempting double-free on 0x603000000040
	// in thread T0:", "attempting free on address which was not
	// malloc()-ed: 0x602000000011 in thread T0".
	for _, cut := range []string{" on address 0x", " on unknown address 0x", " on 0x", ": 0x", " at pc "} {
		if i := strings.Index(rest, cut); i > 0 {
			rest = rest[:i]
		}
	}
	return rest
}

// androidParts splits a frame of Android's tombstone, as debuggerd and the
// runtime's abort dump write it, "#00 pc 000000000001e0b0
// /system/lib64/libc.so (abort+120) (BuildId: 5f9…)", into its module and
// its symbol without the offset; without a symbol, the module's name and
// the offset in it, "libgame.so+0x1e0b0" (empty for "(offset 0x2821000)",
// an offset into a file that maps several).
func androidParts(s string) (module, sym string, ok bool) {
	s = strings.TrimPrefix(s, "native: ")
	if len(s) < 3 || s[0] != '#' || !isDigit(s[1]) {
		return "", "", false
	}
	i := 1
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	rest, found := strings.CutPrefix(strings.TrimLeft(s[i:], " "), "pc ")
	if !found {
		return "", "", false
	}
	pc, rest, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
	rest = strings.TrimLeft(rest, " ")
	module, rest, _ = strings.Cut(rest, " (")
	if module == "" {
		return "", "", false
	}
	if rest == "" || strings.HasPrefix(rest, "BuildId: ") {
		// No symbol: the place in the module, which the build fixes (pc is
		// the module's offset), names the frame.
		return module, module[strings.LastIndexByte(module, '/')+1:] + "+0x" + strings.TrimLeft(pc, "0"), true
	}
	if !strings.HasPrefix(rest, "offset ") {
		sym, _, _ = strings.Cut(rest, ") (BuildId: ")
		sym = strings.TrimSuffix(sym, ")")
		if j := strings.LastIndexByte(sym, '+'); j > 0 && isDigit(sym[len(sym)-1]) {
			sym = sym[:j]
		}
	}
	return module, demangled(sym), true
}

// androidSystem reports a module of Android itself: its C library, its
// runtime (ART), its frameworks.
func androidSystem(module string) bool {
	for _, p := range []string{"/system/", "/apex/", "/vendor/", "/data/dalvik-cache/"} {
		if strings.HasPrefix(module, p) {
			return true
		}
	}
	return false
}

// tombstoneNoise reports the lines of Android's tombstone that are neither
// a frame nor the crash's head (the record's text is: libc's signal line,
// or the abort message): its banner, the build, the process, the signal's
// details, the registers, "backtrace:", Unity's version line.
func tombstoneNoise(s string) bool {
	for _, p := range []string{"*** *** ***", "Build fingerprint: ", "Revision: ", "ABI: ", "Timestamp: ", "Process uptime: ",
		"Cmdline: ", "uid: ", "Cause: ", "tagged_addr_ctrl: ", "pac_enabled_keys: ", "backtrace:", "Abort message: ",
		"obtaining output fd", "performing dump of process", "Tombstone written to: ", "Version '", "--- --- ---"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	switch {
	case strings.HasPrefix(s, "pid: ") && strings.Contains(s, ", tid: "),
		strings.HasPrefix(s, "signal ") && strings.Contains(s, " (SIG"):
		return true
	}
	return registersLine(s)
}

// registersLine reports a line of a dump's registers: names and
// hexadecimal values, "r0 7b124e30  r1 7b24f948  r2 00000000".
func registersLine(s string) bool {
	f := strings.Fields(s)
	if len(f) < 2 || len(f)%2 != 0 {
		return false
	}
	for i := 0; i < len(f); i += 2 {
		if len(f[i]) > 5 || len(f[i+1]) < 8 {
			return false
		}
		for j := 0; j < len(f[i+1]); j++ {
			if !isHex(f[i+1][j]) {
				return false
			}
		}
	}
	return true
}

// glogFrame reads a frame of the failure signal handler of glog (and of
// abseil): "@     0x556d6404e4db phys::World::totalMass(int)", "@
// 0x7f79d265a050 (unknown)" (no symbol: ""), abseil's "@ 0x55fbd1c41a72
// 32  Foo()" with the frame's size.
func glogFrame(s string) string {
	name := glogSymbol(s)
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	if name == "" || nativeStartup(name) {
		return ""
	}
	return normalizeName(name)
}

// glogSymbol is what follows the address (and the frame's size) in a
// frame of glog's report: "phys::World::totalMass(int)"; "" for none.
func glogSymbol(s string) string {
	f := strings.Fields(s[1:])
	if len(f) > 0 && strings.HasPrefix(f[0], "0x") {
		f = f[1:]
	}
	if len(f) > 0 && allDigits(f[0]) {
		f = f[1:]
	}
	if len(f) > 0 && f[0] == "(unknown)" {
		f = f[1:]
	}
	return strings.Join(f, " ")
}

// glogMessage shortens the headline of glog's report for a title: "***
// SIGSEGV (@(nil)) received by PID 30353 (TID 0x7f…) from PID 0; stack
// trace: ***" is "SIGSEGV received".
func glogMessage(s string) string {
	rest, ok := strings.CutPrefix(s, "*** SIG")
	if !ok || !strings.HasSuffix(s, "***") {
		return s
	}
	sig, _, _ := strings.Cut(rest, " ")
	return "SIG" + sig + " received"
}

// glogNoise reports the lines of glog's failure report around its frames:
// its first line, the time it struck; the place it stopped at, which its
// first frame repeats.
func glogNoise(s string) bool {
	return strings.HasPrefix(s, "*** Aborted at ") || strings.HasPrefix(s, "PC: @ ")
}

// monoNativeFrame reads a frame of the native stack Mono prints when a
// signal hits native code: "0x7f3a12c4d5e6 - /game/libfmod.so :
// FMOD_System_Update" names the function; the runtime's own ("mono :
// (null)", libmono…), the C library's and an address alone ("0x7ffe7769fa20
// - Unknown") name nothing.
func monoNativeFrame(s string) (string, bool) {
	if !isHexStart(s, 0) {
		return "", false
	}
	_, rest, ok := strings.Cut(s, " - ")
	if !ok || isHexStart(rest, 0) {
		return "", false // "0x7f… - 0x7f… path": a module's range, no frame
	}
	module, sym, _ := strings.Cut(rest, " : ")
	base := module[strings.LastIndexAny(module, `/\`)+1:]
	if sym == "" || sym == "(null)" || base == "mono" || strings.HasPrefix(base, "libmono") || systemLibrary(module) {
		return "", true
	}
	return normalizeName(sym), true
}
