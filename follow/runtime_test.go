package follow

import (
	"fmt"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // PHP's zone identifiers, whatever the machine has

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// runtimePrefixes are the ways a program's output reaches a log: as
// printed, behind a timestamp and a padded level, and through a logger that
// writes each line of the program's standard error as a warning of its own.
var runtimePrefixes = []struct {
	name string
	add  func(string) string
}{
	{"none", func(s string) string { return s }},
	{"stamp", func(s string) string { return "2026-12-04 10:00:01,123 [INFO    ] " + s }},
	{"stderr", func(s string) string { return "[WARNING] stderr: " + s }},
	{"python", func(s string) string { return "2026-12-04 10:00:01,123 - game.world - ERROR - " + s }},
}

// runtimeCase is a fixture of testdata/runtimes, a real program's output
// (the programs of testdata/engines/runtimes), and the crash record it
// holds.
type runtimeCase struct {
	file  string
	level oplog.Level
	text  string // the crash record's text holds it
	stack string // and its stack this
}

var runtimeCases = []runtimeCase{
	{"py_uncaught.txt", oplog.LevelError, "ValueError: invalid literal for int() with base 10: 'lots'", `game.py", line 87, in spawn_enemy`},
	{"py_chained.txt", oplog.LevelError, "RuntimeError: cannot spawn orc", "During handling of the above exception"},
	{"py_from.txt", oplog.LevelError, "RuntimeError: cannot spawn orc", "The above exception was the direct cause"},
	{"py_syntax.txt", oplog.LevelError, "SyntaxError: '(' was never closed", `broken_level.py", line 5`},
	{"py_segv.txt", oplog.LevelFatal, "Fatal Python error: Segmentation fault", `game.py", line 108 in spawn_enemy`},
	{"py_warn.txt", oplog.LevelWarn, "UserWarning: sprite sheets are deprecated", `warnings.warn(`},
	{"c_assert.txt", oplog.LevelFatal, "spawn_enemy: Assertion `e->hp > 0' failed.", "at spawn_enemy (game.c:89)"},
	{"c_segv.txt", oplog.LevelFatal, "Caught signal 11 (Segmentation fault), backtrace:", "./game(spawn_enemy+"},
	{"c_fpe.txt", oplog.LevelFatal, "Caught signal 8 (Floating point exception), backtrace:", "./game(tick+"},
	{"c_asan.txt", oplog.LevelFatal, "ERROR: AddressSanitizer: heap-use-after-free", "in spawn_enemy c/game.c:97"},
	{"c_lsan.txt", oplog.LevelFatal, "ERROR: LeakSanitizer: detected memory leaks", "SUMMARY: AddressSanitizer: "},
	{"c_ubsan.txt", oplog.LevelError, "c/game.c:100:20: runtime error: signed integer overflow", "at c/game.c:100:20"},
	{"c_ubsan_halt.txt", oplog.LevelError, "c/game.c:100:20: runtime error: signed integer overflow", "in spawn_enemy c/game.c:100"},
	{"c_tsan.txt", oplog.LevelError, "ThreadSanitizer: data race (pid=26921)", "SUMMARY: ThreadSanitizer: data race /home/dev/game/game.c:13 in main"},
	{"c_asan_overflow.txt", oplog.LevelFatal, "ERROR: AddressSanitizer: stack-overflow", "in flood /home/dev/game/game.c:5"},
	{"py_logerror.txt", oplog.LevelError, "--- Logging error ---", "TypeError: not enough arguments for format string\nCall stack:\n  File \"/home/dev/game/py_logerror.py\", line 12, in <module>"},
	{"py_stackinfo.txt", oplog.LevelError, "spawn failed", "KeyError: 'orc'\nStack (most recent call last):\n  File \"/home/dev/game/py_stackinfo.py\", line 15, in <module>"},
	{"py_del.txt", oplog.LevelError, "Exception ignored in: <function Sound.__del__", "KeyError: None"},
	{"py_asyncio.txt", oplog.LevelError, "Task exception was never retrieved", "future: <Task finished name='Task-2'"},
	{"c_doublefree.txt", oplog.LevelFatal, "free(): double free detected in tcache 2", "./df(release_pool+"},
	{"cpp_throw.txt", oplog.LevelFatal, "terminate called after throwing an instance of 'std::runtime_error'\n  what():  no spawn point for orc", ""},
	{"cpp_throwbt.txt", oplog.LevelFatal, "terminate called after throwing an instance of 'std::runtime_error'", "Caught signal 6 (Aborted)"},
	{"mono.txt", oplog.LevelFatal, "System.NullReferenceException: Object reference not set to an instance of an object", "at World.SpawnEnemy (System.String kind)"},
	{"java.txt", oplog.LevelFatal, "java.lang.IllegalStateException: cannot spawn orc", "Caused by: java.lang.NumberFormatException"},
	{"node.txt", oplog.LevelFatal, "TypeError: Cannot read properties of undefined (reading 'width')", "at World.spawnEnemy (/home/dev/game/node/game.js:63:26)"},
	{"go.txt", oplog.LevelFatal, "panic: runtime error: index out of range [3] with length 3", "main.(*world).spawnEnemy(...)"},
	{"py_pickle.txt", oplog.LevelError, "_pickle.UnpicklingError: invalid load key, '\\x00'.", `main.py", line 12, in load_game`},
	{"py_fh_timeout.txt", oplog.LevelError, "Timeout (0:00:01.500000)!", `main.py", line 6 in wait_for_shader_cache`},
	{"c_gdb_batch.txt", oplog.LevelFatal, "Program received signal SIGSEGV, Segmentation fault.", "in apply_save (s=0x0, name=0x55555555603c \"Rowan\") at game.c:4"},
	{"c_gdb_assert.txt", oplog.LevelFatal, "game: game.c:109: spawn_enemy: Assertion `e->hp > 0' failed.", "Program received signal SIGABRT, Aborted.\n__pthread_kill_implementation (threadid=<optimized out>, signo=signo@entry=6, no_tid=no_tid@entry=0) at ./nptl/pthread_kill.c:44\n44\t./nptl/pthread_kill.c: No such file or directory.\n#0  __pthread_kill_implementation"},
	{"c_gdb_threads.txt", oplog.LevelFatal, "Program received signal SIGSEGV, Segmentation fault.", "Thread 1 (Thread 0x7ffff7dd1740 (LWP 12543) \"game\"):\n#0  __strcpy_evex () at ../sysdeps/x86_64/multiarch/strcpy-evex.S:599\n#1  0x000055555555517c in apply_save"},
	{"c_gdb_btfull.txt", oplog.LevelFatal, "Program received signal SIGSEGV, Segmentation fault.", "No locals.\n#1  0x000055555555517c in apply_save (s=0x0, name=0x55555555603c \"Rowan\") at gdb_batch.c:4\nNo locals.\n#2"},
	{"node_trace_uncaught.txt", oplog.LevelFatal, "{ code: 'E_LEVEL_MISSING', level: 3, message: 'level 3 not in pack' }", "Thrown at:\n    at loadLevel (/home/dev/game/main.js:2:14)"},
	{"node_worker_error.txt", oplog.LevelFatal, "TypeError [Error]: Cannot read properties of undefined (reading 'x')", "Emitted 'error' event on Worker instance at:"},
	{"node_aggregate.txt", oplog.LevelFatal, "[AggregateError: All promises were rejected] {", "Error: mirror https://cdn2.example.com unreachable"},
	{"node_esm_tla.txt", oplog.LevelFatal, "Error: ENOENT: no such file or directory, open './assets/atlas.json'", "path: './assets/atlas.json'\n}"},
	{"cs_aggregate.txt", oplog.LevelFatal, "System.AggregateException: One or more errors occurred. (PNG header invalid in boss.png)", "---> (Inner Exception #0) System.FormatException"},
	{"cs_stackoverflow.txt", oplog.LevelFatal, "System.StackOverflowException: The requested operation caused a stack overflow.", "at Node.Depth () [0x00018] in /home/dev/game/Game.cs:6"},
	{"java_message_lines.txt", oplog.LevelFatal, "java.lang.IllegalArgumentException: Invalid level file cave.txt:", "  line 4: unknown tile 'Q'\n\tat Game.parseLevel(Game.java:9)"},
	{"cpp_what_lines.txt", oplog.LevelFatal, "terminate called after throwing an instance of 'ShaderError'", "0:7(1): error: syntax error, unexpected '}'"},
	{"cpp_glog_segv.txt", oplog.LevelFatal, "*** SIGSEGV (@0x0) received by PID 22421", "@     0x5652ad03b709 phys::World::totalMass()"},
	{"cpp_glog_check.txt", oplog.LevelFatal, "Check failed: bodies.size() < 4u (4 vs. 4) body pool full", "phys::World::addBody()"},
	{"haxe_neko.txt", oplog.LevelFatal, "Invalid field access : width", "Called from Game.hx line 30\nUncaught exception - Invalid field access : width"},
	{"haxe_hl.txt", oplog.LevelFatal, "Null access", "Called from haxe.$EntryPoint.run("},
	{"nim_index.txt", oplog.LevelFatal, "unhandled exception: index 5 not in 0 .. 2 [IndexDefect]", "/home/dev/game/game.nim(5)    spawnEnemy"},
	{"zig_panic.txt", oplog.LevelFatal, "panic: index out of bounds: index 52304, len 15580", "main.zig:681:17: 0x231be9 in main (DOOM-fire)\n    showDoomFire();"},
	{"odin_panic.txt", oplog.LevelFatal, "panic: panic message", "at /mnt/w/Odin-other/Odin-test/panic.odin(5:2)"},
	{"dart_unhandled.txt", oplog.LevelFatal, "type 'Null' is not a subtype of type 'String'", "#0      main (file:///Users/ryjohn/Desktop/foo/bin/foo.dart:3:10)"},
	// Rust's and Lua's, read by the generic family where printed bare, by
	// the layer beneath a prefix.
	{"rust/panic_bt_1_rustup195.txt", oplog.LevelFatal, "boom: something went wrong (len=0)", "at game::main (./src/main.rs:98:13)"},
	{"rust/panic_thread.txt", oplog.LevelError, "unnamed thread panic", "src/main.rs:113:44"},
	{"love/error_update.txt", oplog.LevelFatal, "main.lua:79: attempt to index local 'player' (a nil value)", "main.lua:79: in function 'update'"},
	{"love/lua51_error.txt", oplog.LevelFatal, "main.lua:5: boom", "main.lua:5: in function 'boom'"},
}

// runtimeNotUnder says why a fixture is not read under a prefix (FILE/PREFIX)
// or under any (FILE).
var runtimeNotUnder = map[string]string{
	"py_pickle.txt/python":   "its print before the traceback, at ERROR like every line behind that logger, announces the traceback as logging.exception's line does",
	"cpp_glog_check.txt":     "glog's own prefix (its LOG(FATAL)'s line) is read where it begins a line, not behind another logger's",
	"node_aggregate.txt":     "behind a logger's prefix its first line, in brackets, reads as one of the prefix's fields",
	"java_message_lines.txt": "an exception's further message lines are its where printed bare (as a Python message's are)",
	"cpp_what_lines.txt":     "a what()'s further lines are its where printed bare (as a Python message's are): behind a prefix they may be the next record's",
}

// TestRuntime_Reports: each runtime's crash report, under each prefix,
// read by the generic parser and by detection, is one record with the
// runtime's message as its text and its frames as its stack, and no line
// of it is a record of its own.
func TestRuntime_Reports(t *testing.T) {
	for _, tc := range runtimeCases {
		for _, pre := range runtimePrefixes {
			for _, parser := range []string{"generic", "auto"} {
				t.Run(fmt.Sprintf("%s/%s/%s", tc.file, pre.name, parser), func(t *testing.T) {
					if why := runtimeNotUnder[tc.file+"/"+pre.name]; why != "" || pre.name != "none" && runtimeNotUnder[tc.file] != "" {
						t.Skip(why + runtimeNotUnder[tc.file])
					}
					file := tc.file
					if !strings.Contains(file, "/") {
						file = "runtimes/" + file
					}
					recs := recordsOf(feed(mustParser(t, parser), prefixed(readSample(t, file), pre.add)))
					checkRuntimeRecords(t, recs, tc)
				})
			}
		}
	}
}

// recordsOf returns the entries' records.
func recordsOf(es []Entry) []oplog.Record {
	out := make([]oplog.Record, len(es))
	for i, e := range es {
		out[i] = e.Record
	}
	return out
}

// prefixed returns data with add applied to each line.
func prefixed(data []byte, add func(string) string) []byte {
	var b strings.Builder
	for l := range strings.Lines(string(data)) {
		b.WriteString(add(strings.TrimSuffix(l, "\n")) + "\n")
	}
	return []byte(b.String())
}

func checkRuntimeRecords(t *testing.T, recs []oplog.Record, tc runtimeCase) {
	t.Helper()
	n := 0
	for _, r := range recs {
		if strings.Contains(r.Text, tc.text) {
			n++
			if r.Level != tc.level || !strings.Contains(r.Stack, tc.stack) {
				t.Errorf("the crash record is %s with stack\n%s\nwant %s with %q", r.Level, r.Stack, tc.level, tc.stack)
			}
		}
		if frag := reportFragment(r.Text); frag {
			t.Errorf("a line of a report is a record of its own: %s %q", r.Level, r.Text)
		}
	}
	if n != 1 {
		for _, r := range recs {
			t.Logf("%s %q\n%s", r.Level, r.Text, r.Stack)
		}
		t.Errorf("%d records hold %q, want 1", n, tc.text)
	}
}

// reportFragment reports a text that is a line of a report, not a message.
func reportFragment(text string) bool {
	s := text
	if n, _ := cutPrefix(s); n > 0 {
		s = s[n:]
	}
	s = strings.TrimSpace(s)
	for _, p := range []string{"at ", `File "`, "#0", "#1", "goroutine ", "Traceback", "./game", "/lib/x86_64", "Caused by",
		"... ", "what():", "^", "SUMMARY:", "Current thread", "main.main(", "main.(", "READ of size", "Direct leak", "Node.js v"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestRuntime_Attach: a traceback joins the line before it only when that
// line announces it.
func TestRuntime_Attach(t *testing.T) {
	tb := "Traceback (most recent call last):\n  File \"g.py\", line 3, in load\n    open(p)\nFileNotFoundError: x.png\n"
	for _, tc := range []struct {
		name, before string
		records      int
		text         string
	}{
		{"Error", "ERROR:game:could not load x.png\n", 1, "could not load x.png"},
		{"Colon", "2026-12-04 10:00:00 INFO loading failed, the trace follows:\n", 1, "loading failed, the trace follows:"},
		{"Info", "INFO:game:frame 3\n", 2, "FileNotFoundError: x.png"},
		{"Wrapped", "[WARNING] stderr: something\n", 2, "FileNotFoundError: x.png"},
		{"WrappedError", "[WARNING] stderr: ERROR:game:could not load x.png\n", 1, "stderr: ERROR:game:could not load x.png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs := recordsOf(feed(mustParser(t, "generic"), []byte(tc.before+tb)))
			if len(recs) != tc.records {
				t.Fatalf("%d records, want %d: %q", len(recs), tc.records, texts(recs))
			}
			last := recs[len(recs)-1]
			if last.Text != tc.text || last.Level != oplog.LevelError || !strings.HasSuffix(last.Stack, "FileNotFoundError: x.png") {
				t.Errorf("last record %s %q %q", last.Level, last.Text, last.Stack)
			}
		})
	}
}

// TestRuntime_Indented: an engine that indents a traceback by one space
// (or a tab) has it read as one record, not glued to the line before.
func TestRuntime_Indented(t *testing.T) {
	for _, ind := range []string{" ", "\t"} {
		in := "[INFO] frame 3\n" + ind + "Traceback (most recent call last):\n" + ind + "  File \"g.py\", line 3, in spawn\n" +
			ind + "    boom()\n" + ind + "ValueError: bad count\n[INFO] frame 4\n"
		recs := recordsOf(feed(mustParser(t, "generic"), []byte(in)))
		if len(recs) != 3 || recs[1].Text != "ValueError: bad count" || recs[1].Level != oplog.LevelError ||
			!strings.Contains(recs[1].Stack, `File "g.py", line 3, in spawn`) || recs[0].Stack != "" {
			t.Errorf("indented by %q: %d records %q", ind, len(recs), texts(recs))
		}
	}
}

// TestRuntime_Dotnet: .NET's unhandled exception (dotnet is not served
// here; its format as .NET 6 to 9 print it), inner exception and all.
func TestRuntime_Dotnet(t *testing.T) {
	in := "info: game started\nUnhandled exception. System.InvalidOperationException: spawn failed\n" +
		" ---> System.NullReferenceException: Object reference not set to an instance of an object.\n" +
		"   at Game.World.Spawn(Int32 count) in /src/Game/World.cs:line 27\n" +
		"   --- End of inner exception stack trace ---\n" +
		"   at Game.World.Tick() in /src/Game/World.cs:line 40\n" +
		"   at Game.Program.Main(String[] args) in /src/Game/Program.cs:line 12\n"
	for _, pre := range runtimePrefixes {
		recs := recordsOf(feed(mustParser(t, "generic"), prefixed([]byte(in), pre.add)))
		checkRuntimeRecords(t, recs, runtimeCase{text: "System.InvalidOperationException: spawn failed", level: oplog.LevelFatal,
			stack: "at Game.World.Spawn(Int32 count) in /src/Game/World.cs:line 27"})
	}
}

// TestRuntime_NotReports: lines that look like a report's first line but
// are not hand over unchanged.
func TestRuntime_NotReports(t *testing.T) {
	for _, in := range []string{
		"Registered signal handlers for SIGSEGV and SIGABRT",
		"TypeError: this is only a message",
		"/home/dev/game/game.js:12",
		"==============================",
		"SIGINT received, shutting down",
	} {
		recs := recordsOf(feed(mustParser(t, "generic"), []byte(in+"\nINFO next\n")))
		if len(recs) != 2 || recs[0].Text != in || recs[0].Level == oplog.LevelFatal {
			t.Errorf("%q: %d records %q", in, len(recs), texts(recs))
		}
	}
}

// TestRuntime_Import: a log imported is read by the same recognisers: a
// sanitizer's report behind a stderr wrapper is one stored fatal record,
// and the crash find_crashes names.
func TestRuntime_Import(t *testing.T) {
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	data := prefixed(readSample(t, "runtimes/c_asan.txt"), runtimePrefixes[2].add)
	mustImport(t, l, data, ImportOptions{Source: "game", File: "game.log"})
	recs := ofSource(t, l, "game")
	checkRuntimeRecords(t, recs, runtimeCase{text: "ERROR: AddressSanitizer: heap-use-after-free", level: oplog.LevelFatal,
		stack: "in spawn_enemy c/game.c:97"})
	page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: "game", Classes: oplog.CrashClasses, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Groups) != 1 || !strings.Contains(page.Groups[0].Title, "AddressSanitizer: heap-use-after-free in spawn_enemy c/game.c:97") {
		t.Errorf("find_crashes: %+v", page.Groups)
	}
}

// TestShellSignal: the lines shells print when a command they ran died of
// a signal, a game's own handler's line naming it the same way, and
// messages that only look like them.
func TestShellSignal(t *testing.T) {
	for s, want := range map[string]bool{
		"launcher.sh: line 3: 32352 Segmentation fault      ./game":               true,
		"launcher.sh: line 3: 32352 Segmentation fault      (core dumped) ./game": true,
		"line 3: 32352 Segmentation fault      ./game":                            true, // the script's name cut as a prefix
		"launch.sh: line 2:  7761 Segmentation fault      \"$@\"":                 true, // a pid of four digits, right-aligned
		"bash: line 1: 1234 Aborted                 (core dumped) ./game -w":      true,
		"Segmentation fault":               true,
		"Segmentation fault (core dumped)": true,
		"Killed":                           true,
		"zsh: segmentation fault (core dumped)  ./game": true,
		// Job notices: bash's, zsh's, zsh's with the pid (setopt longlistjobs).
		"[1]+  Segmentation fault      (core dumped) ./game":    true,
		"[1]  + segmentation fault (core dumped)  ./game":       true,
		"[2]  - 48213 segmentation fault (core dumped)  ./game": true,
		"[1]    48213 abort      ./game --level 3":              true,
		"[1]+  Done                    ./game":                  false,
		"[1] Killed 3 orcs":                                     false,
		"[12:00:01] Segmentation fault":                         false,
		// A game's own handler, naming the fault and saying more.
		"Segmentation fault! The game crashed. Please send crash.txt to bugs@example.com": true,
		"Bus error: cannot recover": true,
		"Aborted: user cancelled":   false,
		"Segmentation fault.":       false,
		"Killed 3 orcs":             false,
		"Aborted mission":           false,
		"Segmentation faulty":       false,
		"the dragon Killed":         false,
		"line x: Killed":            false,
		"run.sh: line 4: ./game: No such file or directory": false,
	} {
		if got := shellSignal(s); got != want {
			t.Errorf("shellSignal(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestParse_ShellJobNotice: a shell's notice that a background job died
// of a signal, after the game's lines, is a fatal record of its own: its
// job number is not a logger's prefix that hides the signal.
func TestParse_ShellJobNotice(t *testing.T) {
	for _, notice := range []string{
		"[1]  + 48213 segmentation fault (core dumped)  ./game",
		"[1]+  Segmentation fault      (core dumped) ./game",
		"[2]  - abort      ./game --level 3",
	} {
		es := feed(mustParser(t, "auto"), []byte("Starting game v1.2\nLoading level 3\nspawned 4 orcs\n"+notice+"\n"))
		last := es[len(es)-1].Record
		if len(es) != 4 || last.Text != notice || last.Level != oplog.LevelFatal {
			t.Errorf("%q: %d records, the last %s %q; want 4, the last the notice, fatal", notice, len(es), last.Level, last.Text)
		}
	}
}

// TestParse_Wine: Wine's crash reports as it prints them (testdata/wine,
// README.md says where each is from), through the detected parser: one
// fatal record, titled by winedbg's headline (Wine's line of a stack
// overflow, which has no report), whose crash frame is the place in the
// program when the backtrace has no symbol; Wine's debug lines before it
// are records of their own.
func TestParse_Wine(t *testing.T) {
	for _, c := range []struct{ sample, text, frame string }{
		{"wine/stripped-wine8.log", "Unhandled exception: page fault on write access to 0x0000000000000004 in 64-bit code (0x000001400015f5).", "game+0x15f5"},
		{"wine/ankama-launcher-issue45.log", "Unhandled exception: page fault on read access to 0x0000000000000000 in 64-bit code (0x006ffff9e7f1d8).", "adobe_air+0x62f1d8"},
		{"wine/stackoverflow-wine8.log", "stack overflow 1808 bytes addr 0x1700312a2 stack 0x208f0 (0x20000-0x21000-0x220000)", ""},
	} {
		es := feed(mustParser(t, "auto"), readSample(t, c.sample))
		var fatal []oplog.Record
		for _, e := range es {
			if e.Record.Level == oplog.LevelFatal {
				fatal = append(fatal, e.Record)
			}
		}
		if len(fatal) != 1 || fatal[0].Text != c.text {
			t.Errorf("%s: fatal records %+v; want one, %q", c.sample, fatal, c.text)
			continue
		}
		if tr := crash.Parse(fatal[0].Stack); c.frame != "" && (len(tr.Frames) == 0 || tr.Frames[0] != c.frame) {
			t.Errorf("%s: frames %q, want %s first", c.sample, tr.Frames, c.frame)
		}
		if c.sample != "wine/ankama-launcher-issue45.log" && es[0].Record.Text != "0050:err:winediag:nodrv_CreateWindow Application tried to create a window, but no driver could be loaded." {
			t.Errorf("%s: first record %q", c.sample, es[0].Record.Text)
		}
	}
}

// TestParse_PastedExcerpts: crash excerpts users pasted in public issues
// (testdata/*/README.md), read with the detected parser: a Godot crash
// handler's paste that begins at it, with no banner, is Godot's and its
// crash; an uncaught exception of a MonoGame game is titled by the game's
// frame, not the framework's.
func TestParse_PastedExcerpts(t *testing.T) {
	es := feed(mustParser(t, "auto"), readSample(t, "godot/aigym_issue18_crash.txt"))
	if len(es) != 1 || es[0].Record.Level != oplog.LevelFatal || es[0].Record.Text != "Program crashed with signal 11" {
		t.Errorf("Godot's crash handler pasted alone: %+v", es)
	}
	es = feed(mustParser(t, "auto"), readSample(t, "generic/truecraft_issue192.txt"))
	var fatal []oplog.Record
	for _, e := range es {
		if e.Record.Level == oplog.LevelFatal {
			fatal = append(fatal, e.Record)
		}
	}
	if len(fatal) != 1 || !strings.HasPrefix(crash.GameFrame(fatal[0].Stack), "at TrueCraft.Client.Program.Main_Thread") {
		t.Errorf("MonoGame's uncaught exception: %+v; game frame %q", fatal, crash.GameFrame(fatal[0].Stack))
	}
	// An ArgumentException's message ends with "Parameter name: …": one
	// record with its frames, the game's first among them.
	es = feed(mustParser(t, "auto"), readSample(t, "generic/fnaify_issue46.txt"))
	r := es[len(es)-1].Record
	if r.Level != oplog.LevelFatal || r.Text != "System.ArgumentOutOfRangeException: StartIndex cannot be less than zero.\nParameter name: startIndex" ||
		!strings.HasPrefix(crash.GameFrame(r.Stack), "at CrashDebugGame.Draw") {
		t.Errorf("FNA's uncaught ArgumentOutOfRangeException: %+v; game frame %q", r, crash.GameFrame(r.Stack))
	}
}

// TestParse_LuantiPasted: Luanti's crash as a user pasted it (testdata/luanti/README.md): its
// frames indented with spaces, a second "stack traceback:" after them. One fatal record, titled
// by the Lua error and the mod's frame.
func TestParse_LuantiPasted(t *testing.T) {
	es := feed(mustParser(t, "auto"), readSample(t, "luanti/9mine_issue74_spaces.txt"))
	if len(es) != 1 || es[0].Record.Level != oplog.LevelFatal || strings.Count(es[0].Record.Stack, "\n") != 4 {
		t.Fatalf("%d records: %+v", len(es), es)
	}
	r := es[0].Record
	if got := crash.Title(crash.Message(&r), crash.GameFrame(r.Stack)); got !=
		`[string "mods/core/common.lua"]:194: attempt to index local 'platform' (a nil value) in [string "mods/core/common.lua"]:194: in function 'func'` {
		t.Errorf("title %q", got)
	}
}

// TestParse_LuantiAsyncErr: the error Luanti's error screen shows, pasted
// without debug.txt's prefix (testdata/generic/README.md): the Lua error
// that stopped the server, fatal, with its traceback.
func TestParse_LuantiAsyncErr(t *testing.T) {
	es := feed(mustParser(t, "auto"), readSample(t, "generic/luanti_voxelgarden_asyncerr.txt"))
	if len(es) != 1 || es[0].Record.Level != oplog.LevelFatal || !strings.HasPrefix(es[0].Record.Text, "AsyncErr: ServerThread::run Lua: Runtime error from mod 'mobs_flat'") ||
		strings.Count(es[0].Record.Stack, "\n") != 3 {
		t.Fatalf("%d records: %+v", len(es), es)
	}
	if m := crash.Message(&es[0].Record); m != "/home/user/.minetest/games/voxelgarden/mods/mobs/api.lua:136: attempt to index a nil value" {
		t.Errorf("message %q", m)
	}
}

// TestParse_LuaInterpreterNoTraceback: Lua 5.1 and LuaJIT print an error
// that is no string without a traceback ("lua5.1: (error object is not a
// string)"), first when standard output is a file (it is buffered): the
// interpreter prints it only as it ends, so it is fatal; the game's lines
// after it are records of their own. (Debian's lua5.1
// 5.1.5, luajit 2.1.0-beta3.) LÖVE's "Error: " with no traceback stays
// what the generic parser makes of it.
func TestParse_LuaInterpreterNoTraceback(t *testing.T) {
	for _, prog := range []string{"lua5.1", "luajit"} {
		es := feed(mustParser(t, "auto"), []byte(prog+": (error object is not a string)\ngame starting\nplayer quits\n"))
		if len(es) != 3 || es[0].Record.Level != oplog.LevelFatal || es[0].Record.Text != "(error object is not a string)" ||
			es[1].Record.Text != "game starting" || es[1].Record.Level != oplog.LevelInfo {
			t.Errorf("%s: %+v", prog, es)
		}
	}
	es := feed(mustParser(t, "auto"), []byte("Error: could not load level\ngame starting\n"))
	if len(es) != 2 || es[0].Record.Level != oplog.LevelError {
		t.Errorf("LÖVE's Error: without a traceback: %+v", es)
	}
}

// TestParse_RustDoublePanic: a panic in main whose unwinding runs a Drop
// that panics too (testdata/rust/README.md): the first panic is the crash,
// fatal; the destructor's, and Rust's "panic in a destructor during
// cleanup" after it (the same thread ID), are errors.
func TestParse_RustDoublePanic(t *testing.T) {
	es := feed(mustParser(t, "auto"), readSample(t, "rust/panic_double_rust195.txt"))
	var panics []oplog.Record
	for _, e := range es {
		if e.Record.Name == "panic" {
			panics = append(panics, e.Record)
		}
	}
	if len(panics) != 3 || panics[0].Level != oplog.LevelFatal || panics[0].Text != "index out of bounds: the len is 2 but the index is 2" ||
		panics[1].Level != oplog.LevelError || panics[1].Text != "save slot 2 is read-only" ||
		panics[2].Level != oplog.LevelError || !strings.HasPrefix(panics[2].Text, "panic in a destructor during cleanup") {
		t.Fatalf("panics: %+v", panics)
	}
}

// TestParse_JavaGameThreads: an uncaught exception in the thread that
// runs the game (libGDX's "LWJGL Application", jMonkeyEngine's "jME3
// Main") ends the game, as one in "main" does: fatal; another thread's is
// an error (the JVM goes on). The first is a libGDX user's paste
// (https://github.com/Trixt0r/LibGDX-FX/issues/6).
func TestParse_JavaGameThreads(t *testing.T) {
	frames := "\tat com.badlogic.gdx.backends.lwjgl.LwjglGraphics.initiateGLInstances(LwjglGraphics.java:378)\n" +
		"\tat com.badlogic.gdx.backends.lwjgl.LwjglApplication$1.run(LwjglApplication.java:126)\n"
	for thread, want := range map[string]oplog.Level{"LWJGL Application": oplog.LevelFatal, "jME3 Main": oplog.LevelFatal,
		"main": oplog.LevelFatal, "GLThread 171": oplog.LevelFatal, "audio-mixer": oplog.LevelError} {
		es := feed(mustParser(t, "auto"), []byte("Exception in thread \""+thread+"\" java.lang.NullPointerException\n"+frames))
		if len(es) != 1 || es[0].Record.Level != want || es[0].Record.Text != "java.lang.NullPointerException" {
			t.Errorf("%s: %+v; want one record at %s", thread, es, want)
		}
	}
}

// TestParse_SDLAssert: SDL's assertion report, as Debian's SDL 2.26 prints
// it (a warning whose message begins with two newlines, the condition on
// its own line, the prompt), and SDL 1.2's one line (SuperTuxKart issue
// 4564): one error record, the place as its frame, the condition in its
// text.
func TestParse_SDLAssert(t *testing.T) {
	sdl2 := "INFO: Arena started: 4 enemies\nWARN: \n\nAssertion failure at damage_enemy (game.c:10), triggered 1 time:\n" +
		"  'idx >= 0 && idx < enemy_count'\n\nAbort/Break/Retry/Ignore/AlwaysIgnore? [abriA] : \n"
	sdl12 := "Assertion failure at LUNIX_JoystickOpen (/home/Dokumenty/programowanie/supertuxkart/supertuxkart-git/dependencies-linux-64bit/sdl12/src/joystick/linux/SDL_sysjoystick.c:843), triggered 1 time: 'item->hwdata == ((void *)0)'\n"
	for name, c := range map[string]struct{ in, text, frame string }{
		"SDL 2":   {sdl2, "Assertion failure at damage_enemy (game.c:10), triggered 1 time: 'idx >= 0 && idx < enemy_count'", "at damage_enemy (game.c:10)"},
		"SDL 1.2": {sdl12, "Assertion failure at LUNIX_JoystickOpen (/home/Dokumenty/programowanie/supertuxkart/supertuxkart-git/dependencies-linux-64bit/sdl12/src/joystick/linux/SDL_sysjoystick.c:843), triggered 1 time: 'item->hwdata == ((void *)0)'", "at LUNIX_JoystickOpen ("},
	} {
		es := feed(mustParser(t, "auto"), []byte(c.in))
		r := es[len(es)-1].Record
		if n := map[string]int{"SDL 2": 2, "SDL 1.2": 1}[name]; len(es) != n || r.Level != oplog.LevelError || r.Text != c.text || !strings.HasPrefix(crash.GameFrame(r.Stack), c.frame) {
			t.Errorf("%s: %d records, last %+v (frame %q)", name, len(es), r, crash.GameFrame(r.Stack))
		}
	}
}

// TestParse_GameMaker: GameMaker's runner errors as users pasted them
// (testdata/generic/README.md): one fatal record from "ERROR in", titled by
// the runner's message, with the game's script as its frame; the ruler
// above it stays a line of its own.
func TestParse_GameMaker(t *testing.T) {
	for file, c := range map[string]struct{ text, frame string }{
		"gamemaker_sonictimetwisted_231.txt": {"Unable to find any instance for object index '308' name 'objTitlecard'", "at gml_Room_DD1_f_Create (line 15)"},
		"gamemaker_jtool_11.txt":             {"string_count argument 2 incorrect type (number) expecting a String (YYGS)", "at gml_Script_loadConfig"},
		"gamemaker_bardaudio_2.txt":          {"Variable <unknown_object>.order(101506, -2147483648) not set before reading it.", "at gml_Object_objAudioEditor_Other_20 (line 49)"},
	} {
		es := feed(mustParser(t, "auto"), readSample(t, "generic/"+file))
		var fatal []oplog.Record
		for _, e := range es {
			if e.Record.Level >= oplog.LevelError {
				fatal = append(fatal, e.Record)
			}
		}
		if len(fatal) != 1 || fatal[0].Level != oplog.LevelFatal || fatal[0].Text != c.text || !strings.HasPrefix(crash.GameFrame(fatal[0].Stack), c.frame) {
			t.Errorf("%s: %+v; game frame %q", file, fatal, crash.GameFrame(fatal[0].Stack))
		}
		if es[len(es)-1].Record.Level != oplog.LevelFatal || !strings.HasPrefix(es[len(es)-2].Record.Text, "####") {
			t.Errorf("%s: the error is not the last record after its ruler: %+v", file, es)
		}
	}
	// "ERROR in" without GameMaker's next line is a line like any other.
	if es := feed(mustParser(t, "auto"), []byte("ERROR in\nsomething else\n")); len(es) != 2 || es[0].Record.Level == oplog.LevelFatal {
		t.Errorf("a bare ERROR in: %+v", es)
	}
}

// TestParse_FatalHandlers: the reports engines write as an uncaught
// exception ends the game, as users pasted them (testdata/generic/README.md):
// jMonkeyEngine's handleError through java.util.logging, OpenRA's
// exception.log. One fatal record each, titled by the exception, its
// frames (and inner exception) in its stack.
func TestParse_FatalHandlers(t *testing.T) {
	for file, c := range map[string]struct{ text, frame, inner string }{
		"jme_threadwarden_2582.txt":    {"Uncaught exception thrown in Thread[#105,jME3 Main,6,main]", "at com.jme3.scene.threadwarden.SceneGraphThreadWarden.setup(SceneGraphThreadWarden.java:52)", "java.lang.IllegalStateException: The main thread"},
		"openra_exception_nullref.txt": {"System.NullReferenceException: Object reference not set to an instance of an object.", "at OpenRA.Manifest.Get[T]() in ", ""},
		"openra_ra2_243.txt":           {"System.TypeInitializationException: The type initializer for 'OpenRA.ModMetadata' threw an exception.", "at OpenRA.Log.Channel(String channelName) in ", "---> System.Exception: Tried logging to non-existent channel exception"},
	} {
		for _, parser := range []string{"generic", "auto"} {
			es := feed(mustParser(t, parser), readSample(t, "generic/"+file))
			var bad []oplog.Record
			for _, e := range es {
				if e.Record.Level >= oplog.LevelWarn {
					bad = append(bad, e.Record)
				}
			}
			if len(bad) != 1 || bad[0].Level != oplog.LevelFatal || bad[0].Text != c.text || !strings.Contains(bad[0].Stack, c.inner) ||
				!strings.HasPrefix(crash.GameFrame(bad[0].Stack), c.frame) {
				t.Errorf("%s (%s): %+v", file, parser, bad)
			}
		}
	}
}

// TestParse_LuaBeneathPrefix: a Lua error and its traceback with a
// timestamp on every line (Solar2D's console, as github.com/coronalabs/corona/issues/686 shows
// its lines; a timestamping wrapper) is one error record, as it is bare:
// the message its text, the traceback its stack.
func TestParse_LuaBeneathPrefix(t *testing.T) {
	lines := []string{"ERROR: Runtime error", "main.lua:10: attempt to index global 'foo' (a nil value)", "stack traceback:",
		"\tmain.lua:10: in function <main.lua:8>", "\t?: in function <?:190>", "Loading level 2"}
	for name, prefix := range map[string]string{"none": "", "Solar2D": "16:39:08.567  ", "ISO": "2026-12-06T10:00:01.200Z "} {
		var in strings.Builder
		for _, l := range lines {
			in.WriteString(prefix + l + "\n")
		}
		for _, parser := range []string{"generic", "auto"} {
			es := feed(mustParser(t, parser), []byte(in.String()))
			if len(es) != 3 {
				t.Fatalf("%s (%s): %d records, want 3: %+v", name, parser, len(es), es)
			}
			r := es[1].Record
			if r.Level != oplog.LevelError || r.Text != lines[1] || r.Stack != "stack traceback:\n\tmain.lua:10: in function <main.lua:8>\n\t?: in function <?:190>" ||
				!strings.HasPrefix(crash.GameFrame(r.Stack), "main.lua:10:") || es[2].Record.Text != "Loading level 2" {
				t.Errorf("%s (%s): %+v", name, parser, es)
			}
		}
	}
	// The game's own word for it, as it gives up (an xpcall handler's
	// "FATAL: "), is its level.
	es := feed(mustParser(t, "generic"), []byte("FATAL: main.lua:5: attempt to concatenate local 'path' (a nil value)\nstack traceback:\n\tmain.lua:5: in function 'load_sprite'\n"))
	if len(es) != 1 || es[0].Record.Level != oplog.LevelFatal || !strings.HasPrefix(es[0].Record.Text, "main.lua:5: attempt") {
		t.Errorf("FATAL: %+v", es)
	}
	for line, want := range map[string]bool{"main.lua:10: boom": true, `C:\game\main.lua:10: boom`: true, `[string "level"]:3: boom`: true,
		"game.c:12: note": true, "main.lua: boom": false, "ERROR: x": false, "a b.lua:1: x": false, "12:00:01: x": false} {
		if luaErrorLine(line) != want {
			t.Errorf("luaErrorLine(%q) = %v", line, !want)
		}
	}
	// A line that looks like one, with no traceback after it, stays as it came.
	es = feed(mustParser(t, "generic"), []byte("16:39:08.567  game.c:12: note: level loaded\n16:39:08.600  next\n"))
	if len(es) != 2 || es[0].Record.Level != oplog.LevelInfo || es[0].Record.Text != "game.c:12: note: level loaded" {
		t.Errorf("no traceback: %+v", es)
	}
}

// TestRuntime_PyRemote: a multiprocessing worker's exception, which the
// parent prints in quotes before its own traceback, is one record titled
// where the worker raised it, not where the parent waited for it.
func TestRuntime_PyRemote(t *testing.T) {
	es := feed(mustParser(t, "auto"), readSample(t, "runtimes/py_mp.txt"))
	if len(es) != 2 || es[1].Record.Level != oplog.LevelError || es[1].Record.Text != "ZeroDivisionError: integer division or modulo by zero" ||
		!strings.HasPrefix(es[1].Record.Stack, "multiprocessing.pool.RemoteTraceback:") || !strings.Contains(es[1].Record.Stack, "The above exception was the direct cause") {
		t.Fatalf("%d records: %+v", len(es), es)
	}
	if f := crash.GameFrame(es[1].Record.Stack); !strings.HasSuffix(f, `main.py", line 6, in bake_lightmap`) {
		t.Errorf("game frame %q", f)
	}
}

// TestParse_PythonMessageLines: an exception whose message has lines of
// its own after a first ending with ':' (Python prints str(exc) as it is)
// is one record with them; a line after a blank one, or under a logger's
// prefix, is not the message's.
func TestParse_PythonMessageLines(t *testing.T) {
	tb := "Traceback (most recent call last):\n  File \"main.py\", line 10, in validate\n    raise LevelFormatError(msg)\n" +
		"LevelFormatError: level caves is invalid:\n  line 2: expected 8 columns, got 6\nfix the map in the editor\n"
	for in, want := range map[string]int{
		"puzzle game: validating levels\n" + tb + "\nbye\n":                                3,
		"puzzle game: validating levels\n" + tb + "2026-12-04 10:00:01 INFO bye\n":         3,
		"puzzle game: validating levels\n" + strings.Replace(tb, "invalid:", "invalid", 1): 3, // no ':': the last line is a line of its own
	} {
		es := feed(mustParser(t, "generic"), []byte(in))
		if len(es) != want || !strings.HasPrefix(es[1].Record.Text, "LevelFormatError: level caves is invalid") {
			t.Errorf("%d records, want %d: %q", len(es), want, texts(recordsOf(es)))
			continue
		}
		if strings.Contains(in, "invalid:") != strings.Contains(es[1].Record.Stack, "fix the map in the editor") {
			t.Errorf("the message's last line: %q stack %q", es[1].Record.Text, es[1].Record.Stack)
		}
	}
}

// TestParse_GoRace: the Go race detector's two reports (testdata/runtimes
// go_race.txt), each from "WARNING: DATA RACE" to its closing ruler, are two
// error records, the rulers and accesses in them, read by the generic
// parser and by detection; the game's lines around them are its own.
func TestParse_GoRace(t *testing.T) {
	for _, parser := range []string{"generic", "auto"} {
		recs := recordsOf(feed(mustParser(t, parser), readSample(t, "runtimes/go_race.txt")))
		var texts []string
		for _, r := range recs {
			texts = append(texts, r.Text)
			if r.Text == "DATA RACE" && (r.Level != oplog.LevelError || !strings.Contains(r.Stack, "Goroutine 8 (running) created at:") ||
				!strings.Contains(r.Stack, "main.go:19 +0x")) {
				t.Errorf("%s: the report %s with stack\n%s", parser, r.Level, r.Stack)
			}
		}
		want := []string{"starting audio mixer", "tick 0", "DATA RACE", "DATA RACE", "tick 1", "tick 2", "shutting down", "Found 2 data race(s)"}
		if strings.Join(texts, "|") != strings.Join(want, "|") {
			t.Errorf("%s: records %q, want %q", parser, texts, want)
		}
	}
}

// TestParse_HaxeFramesFirst: hxcpp's uncaught exception (its frames,
// outermost first, then "Critical Error:" or "Error :"), as hxcpp's
// Debug.cpp and HxcppMain.h print it, is one fatal record, the message its
// text; frames that no message ends stay the lines they are; a trace's
// place before a level word gives the line that level. The line after
// lines held so (a Node location's too) is read once.
func TestParse_HaxeFramesFirst(t *testing.T) {
	frames := "Called from hxcpp::__hxcpp_main\nCalled from ApplicationMain::main ApplicationMain.hx line 25\nCalled from Main::update Main.hx line 33\n"
	for _, c := range []struct {
		name, in string
		want     []string // text/level of each record
	}{
		{"critical", "Main.hx:12: booting\n" + frames + "Critical Error: Null Object Reference\nMain.hx:40: after\n",
			[]string{"Main.hx:12: booting/info", "Null Object Reference/fatal", "Main.hx:40: after/info"}},
		{"throw", frames + "Error : level 3 missing\n", []string{"level 3 missing/fatal"}},
		{"unended", "Main.hx:12: booting\n" + frames + "Main.hx:40: WARNING: slow frame\n",
			[]string{"Main.hx:12: booting/info", "Called from hxcpp::__hxcpp_main/info", "Called from ApplicationMain::main ApplicationMain.hx line 25/info",
				"Called from Main::update Main.hx line 33/info", "Main.hx:40: WARNING: slow frame/warn"}},
		{"node-unended", "starting\n/game/x.js:12\n  let a = b;\nnot a caret\n", []string{"starting/info", "/game/x.js:12/info", "not a caret/info"}},
	} {
		for _, parser := range []string{"generic", "auto"} {
			var got []string
			for _, r := range recordsOf(feed(mustParser(t, parser), []byte(c.in))) {
				got = append(got, r.Text+"/"+r.Level.String())
				if r.Level == oplog.LevelFatal && (!strings.HasPrefix(r.Stack, "Called from hxcpp::__hxcpp_main\n") || strings.Count(r.Stack, "\n") != 3) {
					t.Errorf("%s/%s: the report's stack %q", c.name, parser, r.Stack)
				}
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("%s/%s: records %q, want %q", c.name, parser, got, c.want)
			}
		}
	}
}

// TestParse_Defold: Defold's crash call stack (testdata/defold, as posted
// in Defold's issues), each line behind "ERROR:CRASH:", is one fatal record
// named CRASH with the frames as its stack, joined by the line before it
// that names the dump it wrote; the lines before it stay their own.
func TestParse_Defold(t *testing.T) {
	for _, c := range []struct {
		file, text string
		before     int // records before the crash's
	}{
		{"defold/assert_windows.txt", `Successfully wrote Crashdump to file: C:\Users\Mike\AppData\Roaming\Defold/_crash`, 2},
		{"defold/sprite_windows.txt", "CALL STACK:", 0},
	} {
		for _, parser := range []string{"generic", "auto"} {
			recs := recordsOf(feed(mustParser(t, parser), readSample(t, c.file)))
			if len(recs) != c.before+1 {
				t.Errorf("%s/%s: %d records %q, want %d", c.file, parser, len(recs), texts(recs), c.before+1)
				continue
			}
			r := recs[c.before]
			if r.Level != oplog.LevelFatal || r.Name != "CRASH" || r.Text != c.text || strings.Count(r.Stack, "\n") != 5 ||
				!strings.HasPrefix(r.Stack, "0 0x7FF7") || !strings.Contains(r.Stack, "\n5 0x7FF7") {
				t.Errorf("%s/%s: %s %s %q stack\n%s", c.file, parser, r.Level, r.Name, r.Text, r.Stack)
			}
		}
	}
}

// TestParse_ZigErrorReturn: Zig's start code logs the error main returned
// ("error: FileNotFound", std.log's form) and its error return trace,
// frames as a panic's: one fatal record, the frames its stack; the same
// line with no frame after it stays an error line of its own.
func TestParse_ZigErrorReturn(t *testing.T) {
	trace := "info: loading level 3\nerror: FileNotFound\n" +
		"/home/dev/game/src/level.zig:8:5: 0x10328b0 in loadLevel (game)\n    return error.FileNotFound;\n    ^\n" +
		"/home/dev/game/src/main.zig:20:5: 0x1034b4e in main (game)\n    try level.loadLevel(\"caves\");\n    ^\n"
	for _, parser := range []string{"generic", "auto"} {
		recs := recordsOf(feed(mustParser(t, parser), []byte(trace)))
		if len(recs) != 2 || recs[1].Level != oplog.LevelFatal || recs[1].Text != "error: FileNotFound" ||
			!strings.Contains(recs[1].Stack, "level.zig:8:5: 0x10328b0 in loadLevel (game)\n    return error.FileNotFound;") {
			t.Errorf("%s: %q", parser, texts(recs))
			for _, r := range recs {
				t.Logf("%s %q %q", r.Level, r.Text, r.Stack)
			}
		}
		recs = recordsOf(feed(mustParser(t, parser), []byte("error: Timeout\nretrying\n")))
		if len(recs) != 2 || recs[0].Level != oplog.LevelError || recs[0].Stack != "" {
			t.Errorf("%s: a lone error line: %q", parser, texts(recs))
		}
	}
}

// TestReport_TimeOfItsPrefix: a report that begins beneath a logger's
// prefix (a crash handler's headline, a panic, a Lua error, a traceback
// the logger prefixed line by line) happened when that prefix says, not
// when the line was read: a log imported or read after the game died
// dates its crash right.
func TestReport_TimeOfItsPrefix(t *testing.T) {
	at := func(hms string) time.Time {
		c, err := time.ParseInLocation("2006-01-02 15:04:05", "2026-01-01 "+hms, time.Local)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cases := []struct {
		name, parser, log, text string
		want                    time.Time
	}{
		{"handler", "generic", "2026-01-01 10:00:00 [INFO] start\n2026-01-01 10:00:03 [ERROR] Caught signal 11 (Segmentation fault), backtrace:\n./game(spawn_enemy+0xc)[0x55f877bb1214]\n",
			"Caught signal 11", at("10:00:03")},
		{"handler-level-cut", "generic", "2026-01-01 10:00:00 [INFO] start\n2026-01-01 10:00:04 [ERROR] signal 11:\n./game(spawn_enemy+0xc)[0x55f877bb1214]\n",
			"signal 11", at("10:00:04")},
		{"panic", "generic", "2026-01-01 10:00:00 [INFO] start\n2026-01-01 10:00:05 [ERROR] thread 'main' panicked at src/main.rs:3:5:\n" +
			"2026-01-01 10:00:05 [ERROR] index out of bounds: the len is 3 but the index is 5\n", "index out of bounds", at("10:00:05")},
		{"lua", "generic", "2026-01-01 10:00:00 [INFO] start\n2026-01-01 10:00:09 [ERROR] Error: main.lua:12: attempt to index a nil value\n" +
			"2026-01-01 10:00:09 [ERROR] stack traceback:\n2026-01-01 10:00:09 [ERROR] \tmain.lua:12: in function 'update'\n", "attempt to index", at("10:00:09")},
		{"traceback", "generic", "2026-01-01 10:00:00 [INFO] start\n2026-01-01 10:00:11 [ERROR] Traceback (most recent call last):\n" +
			"2026-01-01 10:00:11 [ERROR]   File \"game.py\", line 3, in <module>\n2026-01-01 10:00:11 [ERROR] KeyError: 'x'\n", "KeyError", at("10:00:11")},
		{"luanti", "luanti", "2026-01-01 10:00:00: ACTION[Main]: start\n2026-01-01 10:00:07: ERROR[Main]: Caught signal 11 (Segmentation fault), backtrace:\n" +
			"./minetest(spawn+0xc)[0x55f877bb1214]\n", "Caught signal 11", at("10:00:07")},
		// PHP's error_log: its own stamp, the zone an identifier.
		{"php", "generic", "[01-Jan-2026 10:00:00 UTC] PHP Warning:  Undefined variable $x in /srv/game/main.php on line 3\n" +
			"[01-Jan-2026 10:00:12 Europe/Berlin] PHP Fatal error:  Uncaught RuntimeException: no spawn point for orc in /srv/game/world.php:49\n" +
			"Stack trace:\n#0 /srv/game/world.php(56): World->spawnEnemy()\n#1 {main}\n  thrown in /srv/game/world.php on line 49\n",
			"RuntimeException: no spawn point for orc", time.Date(2026, 1, 1, 9, 0, 12, 0, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var found bool
			for _, e := range feed(mustParser(t, c.parser), []byte(c.log)) {
				if strings.Contains(e.Record.Text, c.text) {
					found = true
					if !e.Record.Time.Equal(c.want) {
						t.Errorf("%q at %v, want %v (its prefix's)", e.Record.Text, e.Record.Time, c.want)
					}
				}
			}
			if !found {
				t.Fatalf("no record with %q", c.text)
			}
		})
	}
}

// TestReport_FlutterUnhandled: an error a Flutter game's Dart code did not
// catch, as Flutter's engine logs it (FML_LOG's prefix, then "Unhandled
// Exception: " and the VM's frames, "<asynchronous suspension>" between
// them) in logcat under the tag flutter and on the desktop's output: one
// error record (Flutter goes on), titled by the message and the game's
// frame, not the SDK's.
func TestReport_FlutterUnhandled(t *testing.T) {
	frames := []string{"#0      List.first (dart:core-patch/growable_array.dart:344:5)",
		"#1      World.spawnEnemy (package:mygame/world.dart:81:55)", "<asynchronous suspension>",
		"#2      World.tick (package:mygame/world.dart:147:35)", "<asynchronous suspension>"}
	desktop := "flutter: game started\n[ERROR:flutter/runtime/dart_vm_initializer.cc(41)] Unhandled Exception: Bad state: No element\n" +
		strings.Join(frames, "\n") + "\n\nflutter: still running\n"
	logcat := "12-06 15:10:01.100  5842  5842 I flutter : game started\n" +
		"12-06 15:10:02.200  5842  5842 E flutter : [ERROR:flutter/runtime/dart_vm_initializer.cc(40)] Unhandled Exception: Bad state: No element\n"
	for _, f := range frames {
		logcat += "12-06 15:10:02.200  5842  5842 E flutter : " + f + "\n"
	}
	logcat += "12-06 15:10:02.200  5842  5842 E flutter : \n12-06 15:10:03.300  5842  5842 I flutter : still running\n"
	for name, log := range map[string]string{"desktop": desktop, "logcat": logcat} {
		var errs []oplog.Record
		for _, e := range feed(mustParser(t, "auto"), []byte(log)) {
			if e.Record.Level >= oplog.LevelError {
				errs = append(errs, e.Record)
			}
		}
		if len(errs) != 1 || errs[0].Level != oplog.LevelError || errs[0].Text != "Bad state: No element" ||
			!strings.Contains(errs[0].Stack, "World.tick (package:mygame/world.dart:147:35)") {
			t.Fatalf("%s: the errors %+v; want one, Bad state: No element, the frames its stack", name, errs)
		}
		if got := crash.Title(crash.Message(&errs[0]), crash.GameFrame(errs[0].Stack)); got != "Bad state: No element in World.spawnEnemy (package:mygame/world.dart:81:55)" {
			t.Errorf("%s: titled %q", name, got)
		}
	}
}

// TestParsePHP: PHP's error lines, read: the level of each kind, the
// message without its place, the place; a shown copy (no "PHP ") only
// with a place; a TypeError's message keeps where it was called and
// defined.
func TestParsePHP(t *testing.T) {
	for _, c := range []struct {
		line, msg, place string
		level            oplog.Level
		ok               bool
	}{
		{"PHP Fatal error:  Uncaught RuntimeException: no spawn point in /g/world.php:49", "Uncaught RuntimeException: no spawn point", "/g/world.php:49", oplog.LevelFatal, true},
		{"Fatal error: Uncaught RuntimeException: no spawn point in /g/world.php:49", "Uncaught RuntimeException: no spawn point", "/g/world.php:49", oplog.LevelFatal, true},
		{"PHP Parse error:  syntax error, unexpected token \";\" in /g/level.php on line 3", "syntax error, unexpected token \";\"", "/g/level.php:3", oplog.LevelFatal, true},
		{"PHP Warning:  Undefined variable $x in /g/main.php on line 3", "Undefined variable $x", "/g/main.php:3", oplog.LevelWarn, true},
		{"PHP Notice:  Only variables should be passed by reference", "Only variables should be passed by reference", "", oplog.LevelInfo, true},
		{"PHP Fatal error:  Uncaught TypeError: hit(): Argument #1 ($n) must be of type int, string given, called in /g/a.php on line 10 and defined in /g/a.php:4",
			"Uncaught TypeError: hit(): Argument #1 ($n) must be of type int, string given, called in /g/a.php on line 10 and defined in /g/a.php:4", "/g/a.php:4", oplog.LevelFatal, true},
		{"Warning: texture missing", "", "", 0, false},       // no "PHP ", no place: any program's
		{"PHP is great: says the README", "", "", 0, false},  // not a kind PHP names
		{"Fatal error: the GPU went away", "", "", 0, false}, // no place
		{"PHP Fatal error:  Allowed memory size of 134217728 bytes exhausted (tried to allocate 20480 bytes) in /g/map.php on line 7",
			"Allowed memory size of 134217728 bytes exhausted (tried to allocate 20480 bytes)", "/g/map.php:7", oplog.LevelFatal, true},
	} {
		h, ok := parsePHP(c.line)
		if ok != c.ok || ok && (h.msg != c.msg || h.place != c.place || h.level != c.level) {
			t.Errorf("parsePHP(%q) = %q, %q, %s, %v; want %q, %q, %s, %v", c.line, h.msg, h.place, h.level, ok, c.msg, c.place, c.level, c.ok)
		}
	}
}

// TestRuntime_GlibcHeapCheck: glibc before 2.26 on a corrupted heap: its
// line, "======= Backtrace: =========" and the frames (without a space
// before the address), "======= Memory map: ========" and the mappings,
// then the shell's "Aborted": one fatal record, titled by the game's frame.
func TestRuntime_GlibcHeapCheck(t *testing.T) {
	log := "INFO: frame 1\n*** Error in `./game': double free or corruption (fasttop): 0x0000000001d3c010 ***\n" +
		"======= Backtrace: =========\n/lib/x86_64-linux-gnu/libc.so.6(+0x777e5)[0x7f2c3a0a47e5]\n" +
		"/lib/x86_64-linux-gnu/libc.so.6(cfree+0x4c)[0x7f2c3a0b153c]\n./game(destroy_enemy+0x1e)[0x400686]\n./game(main+0x1f)[0x4006e3]\n" +
		"======= Memory map: ========\n00400000-00401000 r-xp 00000000 08:01 1048 /home/user/game\n" +
		"7ffd5c1d5000-7ffd5c1f6000 rw-p 00000000 00:00 0 [stack]\nAborted (core dumped)\nINFO: next run\n"
	recs := recordsOf(feed(mustParser(t, "generic"), []byte(log)))
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3: %q", len(recs), texts(recs))
	}
	r := recs[1]
	if r.Level != oplog.LevelFatal || !strings.Contains(r.Stack, "./game(destroy_enemy+0x1e)") || !strings.HasSuffix(r.Stack, "[stack]\nAborted (core dumped)") {
		t.Fatalf("%s %q, stack %q", r.Level, r.Text, r.Stack)
	}
	if title, _, _ := crash.Describe(r.Text, r.Stack); !strings.HasSuffix(title, " in ./game(destroy_enemy+0x1e)") {
		t.Errorf("title %q", title)
	}
}

// TestRuntime_AssertUnderGDBSession: a failed assertion pasted from an
// interactive gdb session: gdb's stop on the abort, its "(gdb) bt" and the
// frames are the assertion's stack, one record titled by the game's frame.
func TestRuntime_AssertUnderGDBSession(t *testing.T) {
	log := "INFO: frame 2\ngame: game.c:12: spawn_enemy: Assertion `e->hp > 0' failed.\n\nProgram received signal SIGABRT, Aborted.\n" +
		"__pthread_kill_implementation (threadid=<optimized out>, signo=signo@entry=6, no_tid=no_tid@entry=0) at ./nptl/pthread_kill.c:44\n" +
		"44\t./nptl/pthread_kill.c: No such file or directory.\n(gdb) bt\n" +
		"#0  __pthread_kill_implementation (threadid=<optimized out>, signo=signo@entry=6, no_tid=no_tid@entry=0) at ./nptl/pthread_kill.c:44\n" +
		"#3  0x00007ffff7dca4b2 in __GI_abort () at ./stdlib/abort.c:79\n" +
		"#5  0x00007ffff7dd93a2 in __assert_fail (assertion=0x555555556004 \"e->hp > 0\", file=0x555555556010 \"game.c\", line=12) at ./assert/assert.c:101\n" +
		"#6  0x0000555555555189 in spawn_enemy (hp=0) at game.c:12\n#7  0x00005555555551b0 in main () at game.c:18\n"
	recs := recordsOf(feed(mustParser(t, "generic"), []byte(log)))
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2: %q", len(recs), texts(recs))
	}
	r := recs[1]
	if r.Level != oplog.LevelFatal || !strings.Contains(r.Stack, "(gdb) bt\n#0  __pthread_kill_implementation") || !strings.HasSuffix(r.Stack, "in main () at game.c:18") {
		t.Fatalf("%s %q, stack %q", r.Level, r.Text, r.Stack)
	}
	if title, _, _ := crash.Describe(r.Text, r.Stack); title != "Assertion `e->hp > 0' failed in spawn_enemy (game.c:12)" {
		t.Errorf("title %q", title)
	}
}
