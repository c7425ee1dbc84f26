//go:build !windows

package follow

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// langCGame builds the C game three times: plain (-g -rdynamic, for the
// signal handler's backtrace), with AddressSanitizer and with
// UndefinedBehaviorSanitizer.
func langCGame(t *testing.T) (*langGame, string) {
	t.Helper()
	gcc := needEngine(t, "gcc")
	dir := copyGame(t, "runtimes/c")
	builds := map[string][]string{
		"plain": {"-g", "-O0", "-rdynamic"},
		"asan":  {"-g", "-O0", "-fsanitize=address"},
		"ubsan": {"-g", "-O0", "-fsanitize=undefined"},
	}
	progs := map[string][]string{}
	for name, flags := range builds {
		out := filepath.Join(dir, "game-"+name)
		langBuild(t, dir, nil, append(append([]string{gcc}, flags...), "-o", out, "game.c")...)
		progs[name] = []string{out}
	}
	// A release build without symbols: its handler's frames are places.
	stripped := filepath.Join(dir, "game-stripped")
	langBuild(t, dir, nil, gcc, "-O0", "-o", stripped, "game.c")
	langBuild(t, dir, nil, needEngine(t, "strip"), stripped)
	progs["stripped"] = []string{stripped}
	// A launcher script, as games ship them: bash reports the game's
	// death by a signal ("launch.sh: line 2: 4242 Segmentation fault ...")
	// and exits with its status.
	launch := filepath.Join(dir, "launch.sh")
	script := "#!/bin/bash\n\"$@\"\nstatus=$?\necho \"launcher: the game exited with $status\"\nexit $status\n"
	if err := os.WriteFile(launch, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	progs["launcher"] = []string{needEngine(t, "bash"), launch, progs["plain"][0]}
	return &langGame{dir: dir, progs: progs, first: "plain", wrap: langWrapper(t),
		handled: "missing texture enemy.png, using the placeholder"}, filepath.Join(dir, "game.c")
}

// TestRuntime_C: glibc's failed assert, a SIGSEGV a handler prints a
// backtrace of, AddressSanitizer's heap use after free, UBSan's signed
// overflow (halting, and going on as it does by default), LeakSanitizer's
// report at exit.
func TestRuntime_C(t *testing.T) {
	g, src := langCGame(t)
	at := func(marker string) string { return fmt.Sprintf("game.c:%d", langLineOf(t, src, marker)) }
	overflow := regexp.QuoteMeta(at("CRASH:overflow")) + `:\d+: runtime error: signed integer overflow: 300 \+ 2147483600 cannot be represented in type 'int'`
	cases := []langCase{
		{name: "assert", text: `game-plain: ` + regexp.QuoteMeta(at("CRASH:assert")+": spawn_enemy: Assertion `e->hp > 0' failed."), level: oplog.LevelFatal,
			class: oplog.ClassCrash, title: "Assertion `e->hp > 0' failed", where: []string{"spawn_enemy", at("CRASH:assert")}},
		{name: "segv", text: regexp.QuoteMeta("Caught signal 11 (Segmentation fault), backtrace:"), level: oplog.LevelFatal,
			stack: []string{"(spawn_enemy+0x", "(world_spawn+0x", "(tick+0x"}, class: oplog.ClassCrash,
			title: "Caught signal 11 (Segmentation fault)", where: []string{"spawn_enemy"}},
		// The handler most games copy: its headline's level word, the
		// frames, then exit(1), which the crash explains.
		{name: "segv-exit", text: regexp.QuoteMeta("Error: signal 11:"), level: oplog.LevelFatal,
			stack: []string{"(spawn_enemy+0x", "(world_spawn+0x", "(tick+0x"}, class: oplog.ClassCrash,
			title: "Error: signal 11:", where: []string{"spawn_enemy"}},
		// Games' own crash handlers, in their words: Cataclysm: DDA's
		// report on standard error, Yamagi Quake II's banner on standard
		// output; the frames backtrace_symbols gives.
		{name: "segv-cdda", text: regexp.QuoteMeta("SIGSEGV: Segmentation fault"), level: oplog.LevelFatal,
			stack: []string{"The program has crashed.", "(spawn_enemy+0x", "(world_spawn+0x", "(tick+0x"}, class: oplog.ClassCrash,
			title: "SIGSEGV: Segmentation fault", where: []string{"spawn_enemy"}},
		{name: "segv-yq2", text: regexp.QuoteMeta("Yamagi Quake II crashed! Signal: 11"), level: oplog.LevelFatal,
			stack: []string{"Product:      Yamagi Quake II", "(spawn_enemy+0x", "(world_spawn+0x"}, class: oplog.ClassCrash,
			title: "Yamagi Quake II crashed! Signal: 11", where: []string{"spawn_enemy"}},
		{name: "fpe", text: regexp.QuoteMeta("Caught signal 8 (Floating point exception), backtrace:"), level: oplog.LevelFatal,
			stack: []string{"(spawn_enemy+0x"}, class: oplog.ClassCrash, title: "Caught signal 8", where: []string{"spawn_enemy"}},
		{name: "uaf", prog: "asan", text: `==\d+==ERROR: AddressSanitizer: heap-use-after-free on address 0x[0-9a-f]+`, level: oplog.LevelFatal,
			stack: []string{"in spawn_enemy ", "freed by thread T0 here:", "SUMMARY: AddressSanitizer: heap-use-after-free"}, class: oplog.ClassCrash,
			title: "AddressSanitizer: heap-use-after-free", where: []string{"spawn_enemy", at("CRASH:uaf")}},
		// Halting or not, UBSan prints the same report: an error, which
		// the failing exit right after it makes the run's crash.
		{name: "overflow-halt", mode: "overflow", prog: "ubsan", env: []string{"UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"},
			text: overflow, level: oplog.LevelError, stack: []string{"in spawn_enemy ", "in world_spawn "}, class: oplog.ClassCrash,
			title: "runtime error: signed integer overflow", where: []string{"spawn_enemy", at("CRASH:overflow")}},
		{name: "overflow", prog: "ubsan", env: []string{"UBSAN_OPTIONS=print_stacktrace=1"},
			text: overflow, level: oplog.LevelError, stack: []string{"in spawn_enemy ", "in world_spawn "}, class: oplog.ClassError,
			title: "runtime error: signed integer overflow", where: []string{"spawn_enemy", at("CRASH:overflow")}, exits: true},
		// Without print_stacktrace (UBSan's default) the report is its
		// place: the stack of the error, which halting makes the crash.
		{name: "overflow-halt-bare", mode: "overflow", prog: "ubsan", env: []string{"UBSAN_OPTIONS=halt_on_error=1"},
			text: overflow, level: oplog.LevelError, stack: []string{"at " + at("CRASH:overflow") + ":"}, class: oplog.ClassCrash,
			title: "runtime error: signed integer overflow", where: []string{at("CRASH:overflow")}},
		{name: "overflow-bare", mode: "overflow", prog: "ubsan", env: []string{"UBSAN_OPTIONS="},
			text: overflow, level: oplog.LevelError, stack: []string{"at " + at("CRASH:overflow") + ":"}, class: oplog.ClassError,
			title: "runtime error: signed integer overflow", where: []string{at("CRASH:overflow")}, exits: true},
		// The handler's SIGSEGV in a build without symbols: titled by the
		// place in the program.
		{name: "segv-stripped", mode: "segv", prog: "stripped", text: regexp.QuoteMeta("Caught signal 11 (Segmentation fault), backtrace:"),
			level: oplog.LevelFatal, stack: []string{"game-stripped(+0x"}, class: oplog.ClassCrash,
			title: "Caught signal 11 (Segmentation fault)", where: []string{"game-stripped(+0x"}},
		// The SIGSEGV with no handler, behind a launcher script: the
		// shell's line is the crash.
		{name: "segv-launcher", mode: "segv-bare", prog: "launcher", text: `\S*(launch\.sh: )?line 2: +\d+ Segmentation fault`,
			level: oplog.LevelFatal, class: oplog.ClassCrash, title: "Segmentation fault"},
		// A failed assert behind the launcher: bash's "Aborted" line is the
		// assertion's report's last, not a crash of its own.
		{name: "assert-launcher", mode: "assert", prog: "launcher",
			text: `\S*game-plain: ` + regexp.QuoteMeta(at("CRASH:assert")+": spawn_enemy: Assertion `e->hp > 0' failed."), level: oplog.LevelFatal,
			stack: []string{"Aborted"}, class: oplog.ClassCrash, title: "Assertion `e->hp > 0' failed", where: []string{"spawn_enemy", at("CRASH:assert")}},
		{name: "leak", prog: "asan", text: `==\d+==ERROR: LeakSanitizer: detected memory leaks`, level: oplog.LevelFatal,
			stack: []string{"Direct leak of 4 byte(s) in 1 object(s) allocated from:", "in spawn_enemy ", "SUMMARY: AddressSanitizer: 4 byte(s) leaked"},
			class: oplog.ClassCrash, title: "LeakSanitizer: detected memory leaks", where: []string{"spawn_enemy", at("CRASH:leak")}},
	}
	runLang(t, g, cases)
}

// TestRuntime_C_ThreadSanitizer: a data race, which ThreadSanitizer
// reports as the game goes on (an error, which a file shows as such);
// when the game exits, ThreadSanitizer makes its status 66, and under
// `mcplogd run` that report is the run's crash, not "exited with status
// 66". Skipped where ThreadSanitizer cannot run (its memory layout and
// some kernels' address randomisation do not agree).
func TestRuntime_C_ThreadSanitizer(t *testing.T) {
	g, _ := langCGame(t)
	prog := filepath.Join(g.dir, "game-tsan")
	langBuild(t, g.dir, nil, needEngine(t, "gcc"), "-g", "-O0", "-fsanitize=thread", "-o", prog, "game.c")
	if out, err := exec.Command(prog, "ok").CombinedOutput(); err != nil {
		t.Skipf("ThreadSanitizer does not run here: %v\n%s", err, out)
	}
	g.progs["tsan"] = []string{prog}
	runLang(t, g, []langCase{{name: "race", prog: "tsan", text: `ThreadSanitizer: data race \(pid=\d+\)`, level: oplog.LevelError,
		stack: []string{"Previous ", " of size 4", "SUMMARY: ThreadSanitizer: data race"}, class: oplog.ClassCrash,
		title: "ThreadSanitizer: data race", where: []string{"game.c:"}}})
}

// TestRuntime_Go_Race: Go's race detector (ThreadSanitizer, built in with
// -race) reports a data race as the game goes on: an error, one record
// from "WARNING: DATA RACE" to its closing ruler; the status 66 it gives
// the game at its end names it the run's crash under `mcplogd run`.
// Skipped where -race cannot build (no cgo).
func TestRuntime_Go_Race(t *testing.T) {
	goTool := needEngine(t, "go")
	dir := copyGame(t, "runtimes/go")
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module game\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command(goTool, "build", "-race", "-o", "game-race", ".")
	build.Dir, build.Env = dir, append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=", "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("go build -race: %v\n%s", err, out)
	}
	langBuild(t, dir, []string{"GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS="}, goTool, "build", "-o", "game", ".")
	g := &langGame{dir: dir, progs: map[string][]string{"go": {filepath.Join(dir, "game")}, "race": {filepath.Join(dir, "game-race")}},
		first: "go", wrap: langWrapper(t), handled: "missing texture, using the placeholder"}
	runLang(t, g, []langCase{{name: "race", prog: "race", text: "DATA RACE", level: oplog.LevelError,
		stack: []string{"Goroutine ", "main.(*world).spawnEnemy"}, class: oplog.ClassCrash, title: "DATA RACE", where: []string{"spawnEnemy"}}})
}

// TestRuntime_C_Groups: the same SIGSEGV in two runs is one crash group
// of two; a SIGFPE in a third run another.
func TestRuntime_C_Groups(t *testing.T) {
	g, _ := langCGame(t)
	checkLangGroups(t, g, map[string]string{"segv": "Caught signal 11", "fpe": "Caught signal 8"}, "segv", "segv", "fpe")
}

// TestRuntime_CPP: a std::runtime_error nothing catches: std::terminate
// prints its what() and aborts, with no handler ("throw") and with one that
// prints a backtrace ("throw-bt"); a pure virtual method called from a
// base's destructor ("pure"), which libstdc++ names before it terminates;
// the game's own assertion macro ("assert"), which says what failed and
// where, then aborts: the run's crash is that error, not the SIGABRT after
// it (a file, which never shows the signal, holds the error).
func TestRuntime_CPP(t *testing.T) {
	gxx := needEngine(t, "g++")
	dir := copyGame(t, "runtimes/cpp")
	langBuild(t, dir, nil, gxx, "-g", "-O0", "-rdynamic", "-o", "game", "game.cpp")
	langBuild(t, dir, nil, gxx, "-g", "-O0", "-rdynamic", "-D_GLIBCXX_ASSERTIONS", "-o", "game-checked", "game.cpp")
	g := &langGame{dir: dir, progs: map[string][]string{"plain": {filepath.Join(dir, "game")}, "checked": {filepath.Join(dir, "game-checked")}},
		first: "plain", wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}
	terminate := regexp.QuoteMeta("terminate called after throwing an instance of 'std::runtime_error'")
	cases := []langCase{
		{name: "pure", text: "pure virtual method called", level: oplog.LevelFatal, stack: []string{"terminate called without an active exception"},
			class: oplog.ClassCrash, title: "pure virtual method called"},
		{name: "throw", text: terminate, level: oplog.LevelFatal, stack: []string{"what():  no spawn point for orc"},
			class: oplog.ClassCrash, title: "std::runtime_error"},
		{name: "throw-bt", text: terminate, level: oplog.LevelFatal,
			stack: []string{"what():  no spawn point for orc", "spawnEnemy", "Caught signal 6 (Aborted), backtrace:"},
			class: oplog.ClassCrash, title: "std::runtime_error", where: []string{"spawnEnemy"}},
		{name: "assert", text: regexp.QuoteMeta("ASSERT FAILED: at != spawnPoints.end() at game.cpp:"), level: oplog.LevelError,
			stack: []string{fmt.Sprintf("at game.cpp:%d", langLineOf(t, filepath.Join(dir, "game.cpp"), "CRASH:assert"))},
			class: oplog.ClassCrash, title: "ASSERT FAILED: at != spawnPoints.end()", where: []string{fmt.Sprintf("game.cpp:%d", langLineOf(t, filepath.Join(dir, "game.cpp"), "CRASH:assert"))}},
		// A checked build's std::vector read past its end: libstdc++'s
		// assertion, its place in the library's header, then SIGABRT.
		{name: "checked", prog: "checked", text: `\S*/stl_vector\.h:\d+: .*operator\[\]\(size_type\).*: Assertion '__n < this->size\(\)' failed\.`,
			level: oplog.LevelFatal, stack: []string{"operator[] (", "stl_vector.h:"}, class: oplog.ClassCrash,
			title: "Assertion '__n < this->size()' failed"},
	}
	runLang(t, g, cases)
}

// TestRuntime_Loguru: a C++ game logging through emilk/loguru fails a
// CHECK_F, or writes through a null pointer, which loguru's signal handler
// reports. Either way loguru prints the stack before its fatal line,
// outermost first: one fatal record, its stack the frames, named by the
// game's innermost frame (the failed check's place, or the function the
// signal hit).
func TestRuntime_Loguru(t *testing.T) {
	gxx := needEngine(t, "g++")
	dir := copyGame(t, "runtimes/loguru")
	langBuild(t, dir, nil, gxx, "-g", "-O0", "-rdynamic", "-pthread", "-o", "game", "game.cpp", "loguru.cpp", "-ldl")
	g := &langGame{dir: dir, progs: map[string][]string{"loguru": {filepath.Join(dir, "game")}}, first: "loguru",
		wrap: langWrapper(t), handled: "could not load texture grass.png"}
	check := fmt.Sprintf("game.cpp:%d", langLineOf(t, filepath.Join(dir, "game.cpp"), "CRASH:check"))
	runLang(t, g, []langCase{
		{name: "check", text: regexp.QuoteMeta("CHECK FAILED:  e != nullptr  no template for orc"), level: oplog.LevelFatal,
			stack: []string{"at " + check, "World::spawnEnemy(std::string const&) + ", "main + "}, class: oplog.ClassCrash,
			title: "CHECK FAILED:  e != nullptr  no template for orc", where: []string{check}},
		{name: "segv", text: regexp.QuoteMeta("Loguru caught a signal: SIGSEGV"), level: oplog.LevelFatal,
			stack: []string{"World::spawnEnemy(std::string const&) + ", "tick(World&, int) + ", "FATL| Signal: SIGSEGV"}, class: oplog.ClassCrash,
			title: "SIGSEGV", where: []string{"World::spawnEnemy"}},
	})
}

// TestRuntime_Rust_Overflow: a recursion without end overflows the main
// thread's stack: Rust's handler says so, "fatal runtime error: stack
// overflow", and aborts. One fatal record; Rust prints no frames.
func TestRuntime_Rust_Overflow(t *testing.T) {
	rustc := needEngine(t, "rustc")
	dir := copyGame(t, "runtimes/rust")
	langBuild(t, dir, nil, rustc, "-g", "-o", "game", "game.rs")
	g := &langGame{dir: dir, progs: map[string][]string{"rust": {filepath.Join(dir, "game")}}, first: "rust",
		wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}
	runLang(t, g, []langCase{{name: "overflow", text: `thread 'main' (\(\d+\) )?has overflowed its stack`, level: oplog.LevelFatal,
		stack: []string{"fatal runtime error: stack overflow"}, class: oplog.ClassCrash, title: "has overflowed its stack"}})
}

// TestRuntime_Go: a slice indexed past its end: the runtime's panic and
// the goroutine's frames, status 2.
func TestRuntime_Go(t *testing.T) {
	goTool := needEngine(t, "go")
	dir := copyGame(t, "runtimes/go")
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module game\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	langBuild(t, dir, []string{"GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS="}, goTool, "build", "-o", "game", ".")
	g := &langGame{dir: dir, progs: map[string][]string{"go": {filepath.Join(dir, "game")}}, first: "go", wrap: langWrapper(t),
		handled: "missing texture, using the placeholder"}
	line := fmt.Sprintf("main.go:%d", langLineOf(t, filepath.Join(dir, "main.go"), "CRASH:index"))
	cases := []langCase{
		{name: "index", text: regexp.QuoteMeta("panic: runtime error: index out of range [3] with length 3"), level: oplog.LevelFatal,
			stack: []string{"goroutine 1 [running]:", "main.(*world).spawnEnemy(", line, "main.tick("}, class: oplog.ClassCrash,
			title: "panic: runtime error: index out of range [3] with length 3", where: []string{"spawnEnemy", line}, prefixes: []string{"slogtext"}},
		// The frames above panic(...) are the deferred function's (and
		// runtime/debug's): the crash is where the panic began.
		{name: "recover", text: regexp.QuoteMeta("panic: runtime error: index out of range [3] with length 3"), level: oplog.LevelFatal,
			stack: []string{"runtime/debug.Stack()", "panic({", "main.(*world).spawnEnemy(", line, "main.main()"}, class: oplog.ClassCrash,
			title: "panic: runtime error: index out of range [3] with length 3", where: []string{"spawnEnemy", line}},
		{name: "repanic", text: regexp.QuoteMeta("panic: runtime error: index out of range [3] with length 3 [recovered, repanicked]"),
			level: oplog.LevelFatal, stack: []string{"main.main.func", "panic({", "main.(*world).spawnEnemy(", line}, class: oplog.ClassCrash,
			title: "[recovered, repanicked]", where: []string{"spawnEnemy", line}},
		// A panic value of three lines: the message, not the stack; its
		// first ends with ':', so the title is the second (crash.Message).
		{name: "load", text: regexp.QuoteMeta("panic: cannot spawn orc:\nspawn table has no kind 'orc'\nlevel 3 has no spawn points") + "$",
			level: oplog.LevelFatal, stack: []string{"goroutine 1 [running]:", "main.(*world).spawnEnemy("}, class: oplog.ClassCrash,
			title: "panic: cannot spawn orc: spawn table has no kind 'orc' in main.(*world).spawnEnemy(...) at ", where: []string{"spawnEnemy", fmt.Sprintf("main.go:%d", langLineOf(t, filepath.Join(dir, "main.go"), "CRASH:load"))}},
		// The runtime's words before its fatal error, its own stack after
		// it: one record, named by the game's frame.
		{name: "overflow", text: regexp.QuoteMeta("fatal error: stack overflow"), level: oplog.LevelFatal,
			stack: []string{"runtime: goroutine stack exceeds 16777216-byte limit", "runtime stack:", "main.(*world).spawnWave("},
			class: oplog.ClassCrash, title: "fatal error: stack overflow in main.(*world).spawnWave",
			where: []string{"spawnWave", "main.go:"}}, // where it grew its stack: the function's first line
		// The runtime's own frame (internal/runtime/maps.fatal) is never the crash.
		// Which check sees the race first picks the runtime's words:
		// "concurrent map writes" or "small map with no empty slot
		// (concurrent map writes?)"; one crash, one title.
		{name: "mapwrite", text: `fatal error: (small map with no empty slot \()?concurrent map writes`, level: oplog.LevelFatal,
			stack: []string{"internal/runtime/maps.fatal(", "main.(*world).spawnEnemy.func1("}, class: oplog.ClassCrash,
			title: "fatal error: concurrent map writes", where: []string{"spawnEnemy", fmt.Sprintf("main.go:%d", langLineOf(t, filepath.Join(dir, "main.go"), "CRASH:mapwrite"))}},
	}
	runLang(t, g, cases)
}

// TestRuntime_Nim: a seq indexed past its end and a write through a nil
// ref, nothing catching either: Nim prints the frames, outermost first,
// then the exception or the signal; one fatal record, titled by the
// message and the game's innermost frame.
func TestRuntime_Nim(t *testing.T) {
	nim := needEngine(t, "nim")
	dir := copyGame(t, "runtimes/nim")
	langBuild(t, dir, nil, nim, "c", "--hints:off", "-d:debug", "--nimcache:"+filepath.Join(dir, "cache"), "-o:game", "game.nim")
	g := &langGame{dir: dir, progs: map[string][]string{"nim": {filepath.Join(dir, "game")}}, first: "nim", wrap: langWrapper(t),
		handled: "missing texture enemy.png, using the placeholder"}
	src := filepath.Join(dir, "game.nim")
	index := fmt.Sprintf("game.nim(%d)", langLineOf(t, src, "CRASH:index"))
	null := fmt.Sprintf("game.nim(%d)", langLineOf(t, src, "CRASH:nil"))
	runLang(t, g, []langCase{
		{name: "index", text: regexp.QuoteMeta("unhandled exception: index 3 not in 0 .. 2 [IndexDefect]"), level: oplog.LevelFatal,
			stack: []string{index, "spawnEnemy", "Error: unhandled exception: "}, class: oplog.ClassCrash,
			title: "unhandled exception: index 3 not in 0 .. 2 [IndexDefect] in spawnEnemy (", where: []string{"spawnEnemy", index}},
		{name: "nil", text: regexp.QuoteMeta("SIGSEGV: Illegal storage access. (Attempt to read from nil?)"), level: oplog.LevelFatal,
			stack: []string{null, "spawnEnemy"}, class: oplog.ClassCrash,
			title: "SIGSEGV: Illegal storage access. (Attempt to read from nil?) in spawnEnemy (", where: []string{"spawnEnemy", null}},
	})
}

// TestRuntime_Pascal: a field of a nil object written, and an Exception
// raised, deep in a Free Pascal game built with line info: the run-time
// library's report, one fatal record titled by the exception and the
// routine with its line; status 217.
func TestRuntime_Pascal(t *testing.T) {
	fpc := needEngine(t, "fpc")
	dir := copyGame(t, "runtimes/pascal")
	langBuild(t, dir, nil, fpc, "-g", "-gl", "-ogame", "game.pas")
	g := &langGame{dir: dir, progs: map[string][]string{"fpc": {filepath.Join(dir, "game")}}, first: "fpc",
		wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}
	src := filepath.Join(dir, "game.pas")
	at := func(marker string) string { return fmt.Sprintf("line %d of game.pas", langLineOf(t, src, marker)) }
	place := func(marker string) string { return fmt.Sprintf("SPAWNENEMY (game.pas:%d)", langLineOf(t, src, marker)) }
	runLang(t, g, []langCase{
		{name: "nil", text: regexp.QuoteMeta("EAccessViolation: Access violation"), level: oplog.LevelFatal,
			stack: []string{"An unhandled exception occurred at $", "SPAWNENEMY,  " + at("CRASH:nil"), "TICK,  line "}, class: oplog.ClassCrash,
			title: "EAccessViolation: Access violation in " + place("CRASH:nil"), where: []string{"SPAWNENEMY,  " + at("CRASH:nil")}},
		{name: "raise", text: regexp.QuoteMeta("Exception: no spawn point for orc"), level: oplog.LevelFatal,
			stack: []string{"SPAWNENEMY,  " + at("CRASH:raise")}, class: oplog.ClassCrash,
			title: "Exception: no spawn point for orc in " + place("CRASH:raise"), where: []string{"SPAWNENEMY,  " + at("CRASH:raise")}},
	})
}

// TestRuntime_D: an array read past its end, and an Exception thrown, deep
// in a D game built with symbols: the runtime's report (the exception,
// where it was thrown, the frames), one fatal record titled by the
// exception and the game's function; status 1.
func TestRuntime_D(t *testing.T) {
	gdc := needEngine(t, "gdc")
	dir := copyGame(t, "runtimes/d")
	langBuild(t, dir, nil, gdc, "-g", "-o", "game", "game.d")
	g := &langGame{dir: dir, progs: map[string][]string{"gdc": {filepath.Join(dir, "game")}}, first: "gdc",
		wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}
	src := filepath.Join(dir, "game.d")
	at := func(marker string) string { return fmt.Sprintf("game.d:%d", langLineOf(t, src, marker)) }
	runLang(t, g, []langCase{
		{name: "index", text: regexp.QuoteMeta("core.exception.ArrayIndexError: index [3] is out of bounds for array of length 3"),
			level: oplog.LevelFatal, stack: []string{at("CRASH:index") + " void game.spawnEnemy(", "void game.tick(int)"}, class: oplog.ClassCrash,
			title: "ArrayIndexError: index [3] is out of bounds", where: []string{"game.spawnEnemy", at("CRASH:index")}},
		{name: "throw", text: regexp.QuoteMeta("object.Exception: no spawn point for orc"), level: oplog.LevelFatal,
			stack: []string{at("CRASH:throw") + " void game.spawnEnemy("}, class: oplog.ClassCrash,
			title: "object.Exception: no spawn point for orc in game.spawnEnemy", where: []string{"game.spawnEnemy", at("CRASH:throw")}},
	})
}

// TestRuntime_Valgrind: the C and C++ games under Valgrind, as a developer
// runs a game that misbehaves only sometimes. Memcheck's SIGSEGV is one
// fatal record, named by the game's frame (the invalid read before it an
// error of its own); a failed assert or an uncaught exception is the
// crash, Valgrind's report of the abort after it no other (the exception's
// record takes its frames: where it was thrown); a use after free and a
// leak are errors the game goes on after, named by the game's frame, not
// the allocator's or strdup's; Helgrind's race is one error with the
// access it conflicts with.
func TestRuntime_Valgrind(t *testing.T) {
	vg := needEngine(t, "valgrind")
	g, src := langCGame(t)
	at := func(marker string) string { return fmt.Sprintf("game.c:%d", langLineOf(t, src, marker)) }
	plain := g.progs["plain"][0]
	g.progs = map[string][]string{"memcheck": {vg, "--leak-check=full", plain}, "helgrind": {vg, "--tool=helgrind", plain}}
	g.first = "memcheck"
	runLang(t, g, []langCase{
		{name: "segv", mode: "segv-bare", text: regexp.QuoteMeta("Process terminating with default action of signal 11 (SIGSEGV)"),
			level: oplog.LevelFatal, stack: []string{"Access not within mapped region at address 0x10", "at 0x", "spawn_enemy (" + at("CRASH:segv") + ")"},
			class: oplog.ClassCrash, title: "signal 11 (SIGSEGV)", where: []string{"spawn_enemy", at("CRASH:segv")}},
		{name: "assert", text: `\S*game-plain: ` + regexp.QuoteMeta(at("CRASH:assert")+": spawn_enemy: Assertion `e->hp > 0' failed."),
			level: oplog.LevelFatal, class: oplog.ClassCrash, title: "Assertion `e->hp > 0' failed", where: []string{"spawn_enemy", at("CRASH:assert")}},
		{name: "uaf", text: "Invalid read of size 4", level: oplog.LevelError,
			stack: []string{"spawn_enemy (" + at("CRASH:uaf") + ")", "16 bytes inside a block of size 20 free'd", "Block was alloc'd at"},
			class: oplog.ClassError, title: "Invalid read of size 4", where: []string{"spawn_enemy", at("CRASH:uaf")}, exits: true},
		{name: "leak", text: `4 bytes in 1 blocks are definitely lost in loss record \d+ of \d+`, level: oplog.LevelError,
			stack: []string{"strdup (", "spawn_enemy (" + at("CRASH:leak") + ")"},
			class: oplog.ClassError, title: "are definitely lost", where: []string{"spawn_enemy", at("CRASH:leak")}, exits: true},
		{name: "race", prog: "helgrind", text: `Possible data race during write of size 4 at 0x[0-9A-F]+ by thread #1`, level: oplog.LevelError,
			stack: []string{"This conflicts with a previous ", at("CRASH:race")}, class: oplog.ClassError,
			title: "Possible data race", where: []string{"spawn_enemy"}, exits: true},
	})

	gxx := needEngine(t, "g++")
	dir := copyGame(t, "runtimes/cpp")
	langBuild(t, dir, nil, gxx, "-g", "-O0", "-o", "game", "game.cpp")
	cpp := &langGame{dir: dir, progs: map[string][]string{"memcheck": {vg, filepath.Join(dir, "game")}}, first: "memcheck",
		wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}
	throw := fmt.Sprintf("game.cpp:%d", langLineOf(t, filepath.Join(dir, "game.cpp"), "CRASH:throw"))
	runLang(t, cpp, []langCase{{name: "throw", text: regexp.QuoteMeta("terminate called after throwing an instance of 'std::runtime_error'"),
		level: oplog.LevelFatal, stack: []string{"what():  no spawn point for orc", "Process terminating with default action of signal 6 (SIGABRT)", throw},
		class: oplog.ClassCrash, title: "std::runtime_error", where: []string{"spawnEnemy", throw}}})
}

// langBackwardGame builds the C++ game with backward-cpp's signal handler
// twice: with libdw (source files, lines and the source around them) and
// with -rdynamic alone (objects and function names).
func langBackwardGame(t *testing.T) (*langGame, string) {
	t.Helper()
	gxx := needEngine(t, "g++")
	if _, err := os.Stat("/usr/include/elfutils/libdw.h"); err != nil {
		if os.Getenv("MCPLOGD_REQUIRE_ENGINES") == "1" {
			t.Fatal("libdw-dev is not installed (scripts/need-engines installs it)")
		}
		t.Skip("libdw-dev is not installed; scripts/need-engines installs it")
	}
	dir := copyGame(t, "runtimes/backward")
	langBuild(t, dir, nil, gxx, "-g", "-O0", "-DBACKWARD_HAS_DW=1", "-o", "game-dw", "game.cpp", "-ldw")
	langBuild(t, dir, nil, gxx, "-g", "-O0", "-rdynamic", "-o", "game-names", "game.cpp")
	return &langGame{dir: dir, progs: map[string][]string{"dw": {filepath.Join(dir, "game-dw")}, "names": {filepath.Join(dir, "game-names")}},
		first: "dw", wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}, filepath.Join(dir, "game.cpp")
}

// TestRuntime_Backward: a C++ game with backward-cpp's signal handler
// writes through a null pointer, divides by zero or throws what nothing
// catches. The handler prints the frames outermost first, then the signal:
// one fatal record, the signal its text (the uncaught exception's what()
// when terminate said it), named by the game's innermost frame, whether
// the frames name source files (libdw) or only functions.
func TestRuntime_Backward(t *testing.T) {
	g, src := langBackwardGame(t)
	at := func(marker string) string { return fmt.Sprintf("game.cpp:%d", langLineOf(t, src, marker)) }
	runLang(t, g, []langCase{
		{name: "segv", text: regexp.QuoteMeta("Segmentation fault (Address not mapped to object [(nil)])"), level: oplog.LevelFatal,
			stack: []string{"Stack trace (most recent call last):", `Source "` + filepath.Join(g.dir, "game.cpp") + `", line`, "boss->hp += 10;"},
			class: oplog.ClassCrash, title: "Segmentation fault", where: []string{"spawnEnemy", at("CRASH:segv")}},
		{name: "throw", text: regexp.QuoteMeta("terminate called after throwing an instance of 'std::runtime_error'"), level: oplog.LevelFatal,
			stack: []string{"what():  no spawn point for orc", "Stack trace (most recent call last):", "Aborted (Signal sent by tkill()"},
			class: oplog.ClassCrash, title: "no spawn point for orc", where: []string{"spawnEnemy", at("CRASH:throw")}},
		{name: "fpe", prog: "names", text: regexp.QuoteMeta("Floating point exception (Integer divide by zero ["), level: oplog.LevelFatal,
			stack: []string{`Object "`, "in World::spawnEnemy("}, class: oplog.ClassCrash, title: "Floating point exception",
			where: []string{"World::spawnEnemy("}},
	})
}

// TestRuntime_Backward_Groups: backward-cpp's SIGSEGV in two runs is one
// crash group of two, its addresses (another each run) in none; a SIGFPE
// in a third run another.
func TestRuntime_Backward_Groups(t *testing.T) {
	g, _ := langBackwardGame(t)
	checkLangGroups(t, g, map[string]string{"segv": "Segmentation fault", "fpe": "Floating point exception"}, "segv", "segv", "fpe")
}

// TestRuntime_Xlib: a C game asks its X server for a window that does
// not exist; Xlib's default error handler says so and exits: one fatal
// record, the request's details its stack, the run's crash.
func TestRuntime_Xlib(t *testing.T) {
	gcc, xvfb := needEngine(t, "gcc"), needEngine(t, "xvfb-run")
	if _, err := os.Stat("/usr/include/X11/Xlib.h"); err != nil {
		if os.Getenv("MCPLOGD_REQUIRE_ENGINES") == "1" {
			t.Fatal("libx11-dev is not installed (scripts/need-engines installs it)")
		}
		t.Skip("libx11-dev is not installed; scripts/need-engines installs it")
	}
	dir := copyGame(t, "runtimes/xlib")
	langBuild(t, dir, nil, gcc, "-g", "-o", "game", "game.c", "-lX11")
	g := &langGame{dir: dir, progs: map[string][]string{"x": {xvfb, "-a", filepath.Join(dir, "game")}}, first: "x",
		wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}
	runLang(t, g, []langCase{{name: "badwindow", text: regexp.QuoteMeta("X Error of failed request:  BadWindow (invalid Window parameter)"),
		level: oplog.LevelFatal, stack: []string{"Major opcode of failed request:"}, class: oplog.ClassCrash, title: "BadWindow"}})
}

// TestRuntime_GDB: the C game run as a CI script runs a flaky game, under
// `gdb -batch -return-child-result -ex run -ex bt` (which fails the script
// when the game crashed): gdb's headline, the place it stopped, the
// source line and the frames are one fatal record named by the game's
// frame; a failed assertion keeps its own line as the text, gdb's stop on
// the abort its stack.
func TestRuntime_GDB(t *testing.T) {
	gdb := needEngine(t, "gdb")
	g, src := langCGame(t)
	at := func(marker string) string { return fmt.Sprintf("game.c:%d", langLineOf(t, src, marker)) }
	g.progs = map[string][]string{"gdb": {gdb, "-q", "-batch", "-return-child-result", "-ex", "run", "-ex", "bt", "--args", g.progs["plain"][0]}}
	g.first = "gdb"
	runLang(t, g, []langCase{
		{name: "segv", mode: "segv-bare", text: regexp.QuoteMeta("Program received signal SIGSEGV, Segmentation fault."), level: oplog.LevelFatal,
			stack: []string{"#0  0x", "in world_spawn ("}, class: oplog.ClassCrash, title: "SIGSEGV", where: []string{"spawn_enemy", at("CRASH:segv")}},
		{name: "assert", text: `\S*game-plain: ` + regexp.QuoteMeta(at("CRASH:assert")+": spawn_enemy: Assertion `e->hp > 0' failed."),
			level: oplog.LevelFatal, stack: []string{"Program received signal SIGABRT, Aborted.", "in spawn_enemy ("}, class: oplog.ClassCrash,
			title: "Assertion `e->hp > 0' failed", where: []string{"spawn_enemy", at("CRASH:assert")}},
	})
}

// TestRuntime_GDB_Groups: under gdb, the same SIGSEGV in two runs is one
// crash group of two, and a SIGFPE in the same function another: gdb's
// place of its stop, the same function's, is not what tells them apart.
func TestRuntime_GDB_Groups(t *testing.T) {
	gdb := needEngine(t, "gdb")
	g, _ := langCGame(t)
	g.progs = map[string][]string{"gdb": {gdb, "-q", "-batch", "-return-child-result", "-ex", "run", "-ex", "bt", "--args", g.progs["plain"][0]}}
	g.first = "gdb"
	checkLangGroups(t, g, map[string]string{"segv-bare": "SIGSEGV", "fpe": "SIGFPE"}, "segv-bare", "segv-bare", "fpe")
}
