package crash

import "strings"

// Valgrind's tools (Memcheck, Helgrind, DRD) write a report's frames
// innermost first, each its address, function and place, a file and line
// or the module: "at 0x1091E2: spawn_enemy (game.c:9)", "by 0x48A2D8F:
// (below main) (libc_start_call_main.h:58)", "by 0x1090C0: ??? (in
// /tmp/game)". Around them it says what was accessed or allocated, lines
// that are neither a frame nor the report's head (valgrindNoise).

// valgrindTermination begins the report Valgrind makes of the signal the
// program dies of, its frames where it was raised.
const valgrindTermination = "Process terminating with default action of signal "

// valgrindParts splits a frame of Valgrind's into its function and its
// place; ok is false for any other line.
func valgrindParts(s string) (fn, place string, ok bool) {
	rest, ok := strings.CutPrefix(s, "at ")
	if !ok {
		rest, ok = strings.CutPrefix(s, "by ")
	}
	if !ok || !strings.HasPrefix(rest, "0x") {
		return "", "", false
	}
	addr, rest, ok := strings.Cut(rest, ": ")
	if !ok || !isHexStart(addr, 0) || skipHex(addr, 0) != len(addr) || rest == "" {
		return "", "", false
	}
	if i := strings.LastIndex(rest, " ("); i > 0 && strings.HasSuffix(rest, ")") {
		return rest[:i], rest[i+2 : len(rest)-1], true
	}
	return rest, "", true
}

// valgrindFrame is a frame of Valgrind's as a signature keeps it: its
// function, "" for one without a name (???) and the C runtime's.
func valgrindFrame(s string) (string, bool) {
	fn, _, ok := valgrindParts(s)
	if !ok {
		return "", false
	}
	fn, _, _ = strings.Cut(fn, "@@") // glibc's version: "__libc_start_main@@GLIBC_2.34"
	if fn == "???" || fn == "(below main)" || nativeStartup(fn) || runtimeFrame(valgrindSymbol(s)) {
		// No name, or the C and C++ runtimes' (the abort, the allocator
		// Valgrind replaced, terminate): the same in every crash of theirs.
		return "", true
	}
	return normalizeName(demangled(fn)), true
}

// valgrindSymbol is a frame of Valgrind's without its address, "spawn_enemy
// (game.c:9)", which differs between builds; any other line is s.
func valgrindSymbol(s string) string {
	if fn, place, ok := valgrindParts(s); ok {
		if place == "" {
			return fn
		}
		return fn + " (" + place + ")"
	}
	return s
}

// valgrindNoise reports Valgrind's lines around a report's frames: what
// the address was, where its block came from, why the process ends and
// what to try.
func valgrindNoise(s string) bool {
	for _, p := range []string{"Address 0x", "Access not within mapped region", "Bad permissions for mapped region",
		"General Protection Fault", "Block was alloc'd at", "Uninitialised value was created", "Locks held: ",
		"This conflicts with a previous ", "If you believe this happened as a result of a stack",
		"overflow in your program's main thread", "possible), you can try to increase", "main thread stack using the --main-stacksize",
		"The main thread stack size used in this run", "Stack overflow in thread #", "Non-existent physical address",
		"Illegal opcode at address"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// cLibraryFrame reports a frame of the C library as Valgrind names it, a
// function and its source file's name, "strdup (strdup.c:42)", "raise
// (raise.c:26)", or its module, "fopen@@GLIBC_2.2.5 (in
// /usr/lib/x86_64-linux-gnu/libc.so.6)": a symbol of glibc's version
// ("clock_nanosleep@@GLIBC_2.17"), a name reserved to the implementation
// (two underscores first: "__pthread_kill_implementation",
// "__vfprintf_internal") or one of the library's that a game calls and a
// report's innermost frames show (an allocation, an abort, a print, a wait).
func cLibraryFrame(s string) bool {
	fn, place, ok := strings.Cut(s, " (")
	if !ok || !strings.HasSuffix(place, ")") || strings.Contains(fn, " ") {
		return false
	}
	if file, _, _ := strings.Cut(place, ":"); strings.ContainsAny(file, `/\`) && !strings.HasPrefix(file, "in /") {
		return false // a path: a game's frame as gdb or a sanitizer writes it has one, Valgrind's never
	}
	fn, version, _ := strings.Cut(fn, "@")
	return strings.HasPrefix(version, "GLIBC_") || strings.HasPrefix(version, "@GLIBC_") ||
		strings.HasPrefix(fn, "__") || strings.HasPrefix(fn, "_IO_") || cLibrary[fn]
}

// cLibrary are the C library's functions a report's innermost frames show.
var cLibrary = map[string]bool{
	"raise": true, "abort": true, "exit": true, "pthread_kill": true, "pthread_create": true, "pthread_join": true,
	"start_thread": true, "clone": true, "clone3": true, "strdup": true, "strndup": true, "asprintf": true, "vasprintf": true,
	"getline": true, "getdelim": true, "realpath": true, "fopen": true, "fopen64": true, "fdopen": true, "opendir": true,
	"scandir": true, "open_memstream": true, "backtrace_symbols": true, "printf": true, "fprintf": true, "sprintf": true,
	"snprintf": true, "vprintf": true, "vfprintf": true, "vsnprintf": true, "puts": true, "fputs": true, "fwrite": true,
	"fread": true, "qsort": true, "bsearch": true, "malloc": true, "calloc": true, "realloc": true, "free": true,
	"memalign": true, "posix_memalign": true, "aligned_alloc": true, "dlopen": true, "dlsym": true,
	// Where a thread waits when a signal stops the program.
	"sleep": true, "usleep": true, "nanosleep": true, "clock_nanosleep": true, "poll": true, "select": true, "epoll_wait": true,
	"read": true, "write": true, "pthread_cond_wait": true, "pthread_mutex_lock": true, "sem_wait": true,
}
