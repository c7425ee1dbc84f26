//go:build !windows

package follow

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestRuntime_Mono: a NullReferenceException nothing catches, which Mono
// prints twice ("Unhandled Exception:", then "[ERROR] FATAL UNHANDLED
// EXCEPTION:"): one record. Built with mcs -debug and run with mono
// --debug, so that frames have file:line. The handled error of every run is
// an exception's ToString() written to standard error.
func TestRuntime_Mono(t *testing.T) {
	mcs := needEngine(t, "mcs")
	mono := needEngine(t, "mono")
	dir := copyGame(t, "runtimes/mono")
	langBuild(t, dir, nil, mcs, "-debug", "-d:TRACE", "-out:Game.exe", "Game.cs")
	g := &langGame{dir: dir, progs: map[string][]string{"mono": {mono, "--debug", filepath.Join(dir, "Game.exe")}}, first: "mono",
		wrap: langWrapper(t), handled: "missing texture enemy.png"}
	line := fmt.Sprintf("Game.cs:%d", langLineOf(t, filepath.Join(dir, "Game.cs"), "CRASH:null"))
	cases := []langCase{
		{name: "null", text: regexp.QuoteMeta("System.NullReferenceException: Object reference not set to an instance of an object"),
			level: oplog.LevelFatal, stack: []string{"at World.SpawnEnemy (System.String kind)", line, "at Game.Main"}, class: oplog.ClassCrash,
			title: "System.NullReferenceException: Object reference not set", where: []string{"World.SpawnEnemy", line}},
		// A signal in native code the game called: Mono's native crash
		// report (its sections between rulers, gdb's dump of every thread
		// when gdb is there), then SIGABRT. One fatal record, its stack
		// the native and the managed frames, named by the game's method.
		{name: "native", text: "Got a SIGSEGV while executing native code$", level: oplog.LevelFatal,
			stack: []string{"Native stacktrace:", "Managed Stacktrace:", "at World:LoadSprite <0x"}, class: oplog.ClassCrash,
			title: "Got a SIGSEGV while executing native code in World:strlen", where: []string{"World:strlen"}},
	}
	runLang(t, g, cases)
}

// TestRuntime_Java: an IllegalStateException caused by a
// NumberFormatException, uncaught in the main thread. The game logs
// through java.util.logging's default SimpleFormatter: two lines a record;
// with the prefix "mc" behind Minecraft's header, on every line of the
// exception too.
func TestRuntime_Java(t *testing.T) {
	g := langJavaGame(t)
	g.wrap, g.handled = langWrapper(t), "missing texture enemy.png, using the placeholder"
	line := fmt.Sprintf("game.World.spawnEnemy(Game.java:%d)", langLineOf(t, filepath.Join(g.dir, "game", "Game.java"), "CRASH:caused"))
	cases := []langCase{
		{name: "caused", text: regexp.QuoteMeta("java.lang.IllegalStateException: cannot spawn orc"), level: oplog.LevelFatal,
			stack: []string{"at " + line, "Caused by: java.lang.NumberFormatException: For input string: \"lots\"", "... 3 more"},
			class: oplog.ClassCrash, title: "java.lang.IllegalStateException: cannot spawn orc", where: []string{line},
			prefixes: []string{"mc"}},
		// A crash in native code (here the JVM's own, through
		// sun.misc.Unsafe; a driver's or LWJGL's in a game): HotSpot's
		// banner behind '#' on standard output, then SIGABRT. One fatal
		// record, its text the signal's line, its stack the banner with the
		// problematic frame and the hs_err file's path.
		{name: "native", env: []string{"JAVA_TOOL_OPTIONS=-XX:-CreateCoredumpOnCrash"},
			text: `SIGSEGV \(0xb\) at pc=0x[0-9a-f]+, pid=\d+, tid=\d+`, level: oplog.LevelFatal,
			stack: []string{"A fatal error has been detected by the Java Runtime Environment:", "Problematic frame:\nV  [libjvm.so+0x", "hs_err_pid"},
			class: oplog.ClassCrash, title: "SIGSEGV (0xb)"},
	}
	runLang(t, g, cases)
}

// langJavaGame copies and builds the Java game.
func langJavaGame(t *testing.T) *langGame {
	t.Helper()
	javac := needEngine(t, "javac")
	java := needEngine(t, "java")
	dir := copyGame(t, "runtimes/java")
	langBuild(t, dir, nil, javac, "-d", "classes", filepath.Join("game", "Game.java"))
	return &langGame{dir: dir, progs: map[string][]string{"java": {java, "-cp", filepath.Join(dir, "classes"), "game.Game"}}, first: "java"}
}

// TestRuntime_Java_Rethrow: an exception logged at SEVERE with its stack,
// then thrown on: one crash a launch, not two.
func TestRuntime_Java_Rethrow(t *testing.T) {
	g := langJavaGame(t)
	checkOnceALaunch(t, g, "rethrow", `java.lang.NumberFormatException: For input string: "lots"`)
}

// TestRuntime_Java_GivesUp: a thread dies of an exception and the game
// gives up on it in a fatal line of its own: the run's crash is the
// exception, titled by it (not by the game's line), one a launch.
func TestRuntime_Java_GivesUp(t *testing.T) {
	g := langJavaGame(t)
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	for range 2 {
		runGame(t, l, "game", CommandOptions{Args: g.args(langCase{name: "thread"}, "none"), Env: os.Environ(), Dir: g.dir})
	}
	page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: "game", Classes: []string{oplog.ClassCrash}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Groups) != 1 || page.Groups[0].Count != 2 || page.Groups[0].RunsEnded != 2 ||
		!strings.HasPrefix(page.Groups[0].Title, "java.lang.IllegalStateException: cannot spawn orc in game.World.spawnEnemy(Game.java:") {
		t.Errorf("crashes %+v; want one of 2, the exception in World.spawnEnemy, that ended both runs", page.Groups)
		logLangRecords(t, "game", ofSource(t, l, "game"))
	}
}

// TestRuntime_Ruby_Thread: a thread dies of an exception and the game's
// join raises it again: Ruby prints it twice, one crash a launch.
func TestRuntime_Ruby_Thread(t *testing.T) {
	ruby := needEngine(t, "ruby")
	dir := copyGame(t, "runtimes/ruby")
	g := &langGame{dir: dir, progs: map[string][]string{"ruby": {ruby, filepath.Join(dir, "game.rb")}}, first: "ruby"}
	checkOnceALaunch(t, g, "thread", "undefined method `fetch' for nil")
}

// TestRuntime_Node: a TypeError thrown from a setInterval callback, which
// Node prints under the source line and a caret, with its version after;
// the handled error of every run is console.error of an Error: its stack.
func TestRuntime_Node(t *testing.T) {
	node := needEngine(t, "node", "nodejs")
	dir := copyGame(t, "runtimes/node")
	g := &langGame{dir: dir, progs: map[string][]string{"node": {node, filepath.Join(dir, "game.js")}}, first: "node",
		wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}
	line := fmt.Sprintf("game.js:%d", langLineOf(t, filepath.Join(dir, "game.js"), "CRASH:type"))
	cases := []langCase{
		{name: "type", text: regexp.QuoteMeta("TypeError: Cannot read properties of undefined (reading 'width')"),
			level: oplog.LevelFatal, stampLevel: oplog.LevelError, // stamped, the game's handler logs it, then exits 1
			stack: []string{"at World.spawnEnemy (", line, "at World.tick ("}, class: oplog.ClassCrash,
			title: "TypeError: Cannot read properties of undefined (reading 'width')", where: []string{"World.spawnEnemy", line}},
		// A source that is no file, and V8's own frame first: the game's is named.
		{name: "json", text: regexp.QuoteMeta("SyntaxError: Expected property name or '}' in JSON at position 1"),
			level: oplog.LevelFatal, stampLevel: oplog.LevelError,
			stack: []string{"at JSON.parse (<anonymous>)", "at World.spawnEnemy ("}, class: oplog.ClassCrash,
			title: "SyntaxError: Expected property name", where: []string{"World.spawnEnemy", fmt.Sprintf("game.js:%d", langLineOf(t, filepath.Join(dir, "game.js"), "CRASH:json"))}},
		// The heap full: V8 prints its fatal error and its native frames,
		// and aborts. One fatal record, the frames its stack.
		{name: "oom", env: []string{"NODE_OPTIONS=--max-old-space-size=32"},
			text: `FATAL ERROR: .*JavaScript heap out of memory`, level: oplog.LevelFatal, stack: []string{": 0x", "v8::"},
			class: oplog.ClassCrash, title: "JavaScript heap out of memory"},
	}
	runLang(t, g, cases)
}

// TestRuntime_Ruby: a NoMethodError on nil deep in game code, which
// nothing rescues: Ruby prints where, the message and class, the line of
// code with a caret under the call, then the frames; the game's own
// at_exit handler logs the same report behind its prefix. The handled
// error of every run is a warn line.
func TestRuntime_Ruby(t *testing.T) {
	ruby := needEngine(t, "ruby")
	dir := copyGame(t, "runtimes/ruby")
	g := &langGame{dir: dir, progs: map[string][]string{"ruby": {ruby, filepath.Join(dir, "game.rb")}}, first: "ruby",
		wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}
	line := fmt.Sprintf("game.rb:%d", langLineOf(t, filepath.Join(dir, "game.rb"), "CRASH:nomethod"))
	runLang(t, g, []langCase{
		{name: "nomethod", text: regexp.QuoteMeta("undefined method `fetch' for nil:NilClass (NoMethodError)"),
			level: oplog.LevelFatal, stack: []string{line + ":in `spawn_enemy'", "from ", ":in `tick'"}, class: oplog.ClassCrash,
			title: "undefined method `fetch' for nil:NilClass (NoMethodError)", where: []string{"spawn_enemy", line}},
	})
}

// TestRuntime_Haxe: a field read of null and a thrown string, uncaught, in
// a Haxe game on Neko: Neko prints the frames, outermost first, then the
// message; one fatal record, titled by the message and the game's
// innermost frame.
func TestRuntime_Haxe(t *testing.T) {
	haxe := needEngine(t, "haxe")
	neko := needEngine(t, "neko")
	dir := copyGame(t, "runtimes/haxe")
	langBuild(t, dir, nil, haxe, "-main", "Game", "-neko", "game.n")
	g := &langGame{dir: dir, progs: map[string][]string{"neko": {neko, filepath.Join(dir, "game.n")}}, first: "neko",
		wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}
	src := filepath.Join(dir, "Game.hx")
	null := fmt.Sprintf("Game.hx line %d", langLineOf(t, src, "CRASH:null"))
	thrown := fmt.Sprintf("Game.hx line %d", langLineOf(t, src, "CRASH:throw"))
	runLang(t, g, []langCase{
		{name: "null", text: regexp.QuoteMeta("Invalid field access : width"), level: oplog.LevelFatal,
			stack: []string{"Called from " + null, "Uncaught exception - Invalid field access : width"}, class: oplog.ClassCrash,
			title: "Invalid field access : width in " + null, where: []string{null}},
		{name: "throw", text: regexp.QuoteMeta("spawn table has no kind 'orc'") + "$", level: oplog.LevelFatal,
			stack: []string{"Called from " + thrown}, class: oplog.ClassCrash,
			title: "spawn table has no kind 'orc' in " + thrown, where: []string{thrown}},
	})
}

// TestRuntime_PHP: PHP's CLI logs an uncaught exception (a RuntimeException
// thrown deep in game code, a method called on null) with its "Stack
// trace:", and a level file that does not parse, to standard error: one
// fatal record each, titled by the message and the function it was thrown
// in at the line it names. With display_errors it shows the error again
// on standard output: that copy is no second crash.
func TestRuntime_PHP(t *testing.T) {
	php := needEngine(t, "php")
	dir := copyGame(t, "runtimes/php")
	g := &langGame{dir: dir, progs: map[string][]string{"php": {php, filepath.Join(dir, "game.php")}}, first: "php",
		wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}
	src := filepath.Join(dir, "game.php")
	thrown := fmt.Sprintf("game.php:%d", langLineOf(t, src, "CRASH:uncaught"))
	null := fmt.Sprintf("game.php:%d", langLineOf(t, src, "CRASH:null"))
	parse := fmt.Sprintf("broken.php:%d", langLineOf(t, filepath.Join(dir, "levels", "broken.php"), "CRASH:parse"))
	uncaught := langCase{name: "uncaught", text: regexp.QuoteMeta("RuntimeException: no spawn point for orc"), level: oplog.LevelFatal,
		stack: []string{"at World->spawnEnemy() (", thrown + ")", "): World->spawn()", "): tick()", "{main}"}, class: oplog.ClassCrash,
		title: "RuntimeException: no spawn point for orc in World->spawnEnemy()", where: []string{"World->spawnEnemy", thrown}}
	display := uncaught
	display.name = "display"
	runLang(t, g, []langCase{uncaught, display,
		{name: "null", text: regexp.QuoteMeta("Error: Call to a member function heal() on null"), level: oplog.LevelFatal,
			stack: []string{"at World->spawnEnemy() (", null + ")"}, class: oplog.ClassCrash,
			title: "Error: Call to a member function heal() on null", where: []string{"World->spawnEnemy", null}},
		{name: "parse", text: regexp.QuoteMeta(`syntax error, unexpected single-quoted string "troll"`), level: oplog.LevelFatal,
			stack: []string{parse}, class: oplog.ClassCrash, title: "syntax error", where: []string{parse}},
	})
}

// TestRuntime_Perl: Perl's die (where it died after the message), Carp's
// confess (the callers after it) and Perl's own error (a method called on
// undef), then status 2 or 255: one error record each, the place its
// stack, which the failing exit names the run's crash.
func TestRuntime_Perl(t *testing.T) {
	perl := needEngine(t, "perl")
	dir := copyGame(t, "runtimes/perl")
	g := &langGame{dir: dir, progs: map[string][]string{"perl": {perl, "game.pl"}}, first: "perl",
		wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}
	src := filepath.Join(dir, "game.pl")
	died := fmt.Sprintf("game.pl line %d", langLineOf(t, src, "CRASH:die"))
	method := fmt.Sprintf("game.pl line %d", langLineOf(t, src, "CRASH:method"))
	runLang(t, g, []langCase{
		{name: "die", text: regexp.QuoteMeta("no spawn point for orc"), level: oplog.LevelError,
			stack: []string{"at " + died}, class: oplog.ClassCrash, title: "no spawn point for orc", where: []string{died}},
		{name: "confess", text: regexp.QuoteMeta("no spawn point for orc"), level: oplog.LevelError,
			stack: []string{`main::spawn_enemy("orc") called at game.pl line`, "main::tick(3) called at game.pl line"},
			class: oplog.ClassCrash, title: "no spawn point for orc", where: []string{"game.pl line"}},
		{name: "method", text: regexp.QuoteMeta(`Can't call method "heal" on an undefined value`), level: oplog.LevelError,
			stack: []string{"at " + method}, class: oplog.ClassCrash, title: `Can't call method "heal" on an undefined value`, where: []string{method}},
	})
}
