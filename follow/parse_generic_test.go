package follow

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_GenericLevels: the level after a leading uptime, after
// bracketed times, and a BOM dropped.
func TestParse_GenericLevels(t *testing.T) {
	f := func(line string, level oplog.Level, name, text string, tm time.Time) {
		t.Helper()
		r, ok := parseOne(t, "generic", line)
		if !ok {
			return
		}
		if r.Level != level || r.Name != name || r.Text != text || !r.Time.Equal(tm) {
			t.Errorf("%q:\n got %s name=%q text=%q time=%v\nwant %s name=%q text=%q time=%v",
				line, r.Level, r.Name, r.Text, r.Time, level, name, text, tm)
		}
	}
	utc := func(h, m, s, ms int) time.Time { return time.Date(2026, 3, 1, h, m, s, ms*1e6, time.UTC) }
	f("4044.612 Error MainLoop.cpp:1429: Exception at tick 1", oplog.LevelError, "", "MainLoop.cpp:1429: Exception at tick 1", time.Time{})
	f("  110.207 Info ServerMultiplayerManager.cpp:85: MultiplayerManager failed", oplog.LevelInfo, "",
		"ServerMultiplayerManager.cpp:85: MultiplayerManager failed", time.Time{})
	f("   1.234 Warning ModManager.cpp:10: deprecated", oplog.LevelWarn, "", "ModManager.cpp:10: deprecated", time.Time{})
	f("  111.441 Goodbye", oplog.LevelInfo, "", "Goodbye", time.Time{})
	f("[12:34:56] [ERROR] socket closed", oplog.LevelError, "", "socket closed", utc(12, 34, 56, 0))
	f("[2026-03-01 12:34:56.789] WARN slow frame", oplog.LevelWarn, "", "slow frame", utc(12, 34, 56, 789))
	f("[2026-03-01 12:34:56] [Physics] ERROR no contacts", oplog.LevelError, "Physics", "no contacts", utc(12, 34, 56, 0))
	// Bedrock's dedicated server, its milliseconds after a colon.
	f("[2026-03-01 12:34:56:789 ERROR] Using a whitelist but without online authentication can be dangerous and is not allowed.", oplog.LevelError, "",
		"Using a whitelist but without online authentication can be dangerous and is not allowed.", utc(12, 34, 56, 789))
	f("[2026-03-01 12:34:56 INFO] Starting Server", oplog.LevelInfo, "", "Starting Server", utc(12, 34, 56, 0))
	// lovely's header (Balatro's mods), Steamodded's inside it or alone.
	f("INFO - [G] 2026-03-01 12:34:56 :: WARN :: DebugPlus :: Config not found", oplog.LevelWarn, "DebugPlus", "Config not found", utc(12, 34, 56, 0))
	f("WARN - [♥] Unknown key `patches` in manifest", oplog.LevelWarn, "♥", "Unknown key `patches` in manifest", time.Time{})
	f("2026-03-01 12:34:56 :: ERROR :: Loader :: Mod Foo failed to load", oplog.LevelError, "Loader", "Mod Foo failed to load", utc(12, 34, 56, 0))
	// OpenMW's: its level one letter after the time.
	f("[12:34:56.003 E] Error in framelistener: bad lua", oplog.LevelError, "", "Error in framelistener: bad lua", utc(12, 34, 56, 3))
	f("[12:34:56.002 W] Warning: texture not found", oplog.LevelWarn, "", "Warning: texture not found", utc(12, 34, 56, 2))
	f("[12:34:56.000 I] Crash handler installed", oplog.LevelInfo, "", "Crash handler installed", utc(12, 34, 56, 0))
	f("[12:34:56.004 V] Loading cell", oplog.LevelDebug, "", "Loading cell", utc(12, 34, 56, 4))
	f("[12:34:56 X] not a level", oplog.LevelInfo, "", "[12:34:56 X] not a level", time.Time{})
	// CustomSkinLoader's log (a Minecraft mod's): the thread and the level
	// in one bracket, the time in it too or in its own.
	f("[2026-03-01 12:34:56] [yimu DEBUG] Try to request 'https://api.mojang.com/profiles/minecraft'.", oplog.LevelDebug, "yimu",
		"Try to request 'https://api.mojang.com/profiles/minecraft'.", utc(12, 34, 56, 0))
	f("[2026-03-01 12:34:56] [Render thread WARN] Failed to load skin", oplog.LevelWarn, "Render thread", "Failed to load skin", utc(12, 34, 56, 0))
	f("[2026-03-01 12:34:56 Texture Downloader #1 ERROR] Get a request failed", oplog.LevelError, "Texture Downloader #1", "Get a request failed", utc(12, 34, 56, 0))
	f("[2026-03-01 12:34:56] [Not a level] text", oplog.LevelInfo, "", "[Not a level] text", utc(12, 34, 56, 0))
	f("\ufeffERROR: first line of a file with a BOM", oplog.LevelError, "", "first line of a file with a BOM", time.Time{})
	f("\ufeffplain first line", oplog.LevelInfo, "", "plain first line", time.Time{})
	// Kivy pads the level and the module inside their brackets.
	f("[INFO   ] [Module      ] text", oplog.LevelInfo, "Module", "text", time.Time{})
	f("[WARNING] [Clock       ] text", oplog.LevelWarn, "Clock", "text", time.Time{})
	f("[CRITICAL] [App         ] msg", oplog.LevelFatal, "App", "msg", time.Time{})
	f("[ERROR  ] text", oplog.LevelError, "", "text", time.Time{})
	f("[INFO   ] [ERROR] printed by the game", oplog.LevelInfo, "", "[ERROR] printed by the game", time.Time{})
	f("[DEBUG  ] [Window      ] Provider: sdl2(['window_egl_rpi'] ignored)", oplog.LevelDebug, "Window",
		"Provider: sdl2(['window_egl_rpi'] ignored)", time.Time{})
	f("[12:34:56] [INFO   ] [Base        ] Leaving application in progress...", oplog.LevelInfo, "Base",
		"Leaving application in progress...", utc(12, 34, 56, 0))
	f("2026-03-01 12:34:56.789 | DEBUG    | game.net | tick 1", oplog.LevelDebug, "game.net", "tick 1", utc(12, 34, 56, 789))
	f("2026-03-01 12:34:56.789 INFO lag | spike", oplog.LevelInfo, "", "lag | spike", utc(12, 34, 56, 789)) // no '|' before the level
	// NLog's default layout, zap's development console (tabs), zerolog's console (a kitchen clock, three letters).
	f("2026-03-01 12:34:56.7891|ERROR|Game.Physics|physics step failed", oplog.LevelError, "Game.Physics", "physics step failed",
		time.Date(2026, 3, 1, 12, 34, 56, 789100000, time.UTC))
	f("2026-03-01T12:34:56.789Z\tERROR\tgame/physics.go:42\tstep failed", oplog.LevelError, "", "game/physics.go:42\tstep failed", utc(12, 34, 56, 789))
	f("10:00AM ERR step failed dt=0", oplog.LevelError, "", "step failed dt=0", utc(10, 0, 0, 0))
	f("3:04PM WRN lag ms=300", oplog.LevelWarn, "", "lag ms=300", utc(15, 4, 0, 0))
	f("12:30AM INF midnight", oplog.LevelInfo, "", "midnight", utc(0, 30, 0, 0))
	f("GET|POST are methods", oplog.LevelInfo, "", "GET|POST are methods", time.Time{})
	// loguru's default format: the module names the line, not its function and line too.
	f("2026-03-01 12:34:56.789 | WARNING  | game.net:poll:88 - lag spike 300ms", oplog.LevelWarn, "game.net", "lag spike 300ms", utc(12, 34, 56, 789))
	f("2026-03-01 12:34:56.789 | ERROR    | __main__:<module>:21 - An error has been caught", oplog.LevelError, "__main__",
		"An error has been caught", utc(12, 34, 56, 789))
}

// TestParse_GenericJUL: java.util.logging's SimpleFormatter writes a
// record as a header (date, 12-hour time, source) and a "LEVEL: message"
// line: one entry, named by the class, with the method as Data's
// "function" and the exception after it as its stack.
func TestParse_GenericJUL(t *testing.T) {
	data := readSample(t, "generic/jul_simpleformatter.log")
	es := feed(mustParser(t, "generic"), data)
	checkAll(t, es, int64(len(data)))
	if len(es) != 8 {
		for i, e := range es {
			t.Logf("%d: %s %q %q", i, e.Record.Level, e.Record.Name, e.Record.Text)
		}
		t.Fatalf("%d records, want 8", len(es))
	}
	at := func(s int) time.Time { return time.Date(2026, 12, 4, 22, 0, s, 0, time.UTC) }
	checkEntries(t, es, map[int]want{
		0: {level: oplog.LevelInfo, name: "game.Main", text: "starting world", time: at(0), stack: ptr(""), data: `{"function":"main"}`},
		1: {level: oplog.LevelError, name: "game.World", text: "enemy pool exhausted", time: at(1), data: `{"function":"tick"}`,
			stack: ptr("java.lang.IllegalStateException: pool of 64 enemies exhausted\n\tat game.EnemyPool.take(EnemyPool.java:41)\n" +
				"\tat game.World.tick(World.java:118)\n\tat game.Main.main(Main.java:12)")},
		2: {level: oplog.LevelWarn, name: "game.World", text: "frame took 41 ms", time: at(2), stack: ptr("")},
		3: {level: oplog.LevelInfo, name: "game.Config", text: "difficulty=hard", time: at(3)},
		4: {level: oplog.LevelDebug, name: "game.Net", text: "3 packets", time: at(4)},
		5: {level: oplog.LevelInfo, name: "game.Save", text: "saving slot 2", time: at(5), stack: ptr("")},
		// An exception logged at INFO is an error of its own.
		6: {level: oplog.LevelError, text: "java.io.IOException: disk full", stack: ptr("\tat game.Save.write(Save.java:77)\n\t... 3 more")},
		7: {level: oplog.LevelInfo, name: "game.Main", text: "bye", time: at(6), stack: ptr("second line of the message")},
	})
	if _, title, _ := crash.Signature(es[1].Record.Stack); !strings.Contains(title, "IllegalStateException") {
		t.Errorf("title %q", title)
	}

	f := func(input string, n, i int, w want) {
		t.Helper()
		es := parse(t, "generic", input)
		if len(es) != n {
			for j, e := range es {
				t.Logf("%d: %s %q %q", j, e.Record.Level, e.Record.Name, e.Record.Text)
			}
			t.Fatalf("%q: %d records, want %d", input, len(es), n)
		}
		checkEntry(t, i, es[i], w)
	}
	day := func(d, h, m, s int) time.Time { return time.Date(2026, 12, d, h, m, s, 0, time.UTC) }
	f("Dec 4, 2026 1:02:03 AM game.Log\nFINEST: deep\n", 1, 0, want{level: oplog.LevelDebug, name: "game.Log", text: "deep", time: day(4, 1, 2, 3)})
	f("Dec 04, 2026 12:00:00 AM a.B c\nFINER: midnight\n", 1, 0, want{level: oplog.LevelDebug, name: "a.B", text: "midnight", time: day(4, 0, 0, 0)})
	f("Dec 04, 2026 12:30:00 PM a.B c\nWARNING:\n", 1, 0, want{level: oplog.LevelWarn, name: "a.B", time: day(4, 12, 30, 0)})
	// A header with no level line after it is a record of its own.
	f("Dec 04, 2026 11:00:00 PM a.B c\nDec 04, 2026 11:00:01 PM a.B c\nSEVERE: x\n", 2, 0,
		want{level: oplog.LevelInfo, name: "a.B", text: "a.B c", time: day(4, 23, 0, 0)})
	// Not a header: no source, a 24-hour time.
	f("Dec 04, 2026 11:00:00 PM\nSEVERE: x\n", 2, 1, want{level: oplog.LevelError, text: "x"})
	f("Dec 04, 2026 23:00:00 a.B c\n", 1, 0, want{level: oplog.LevelInfo, text: "Dec 04, 2026 23:00:00 a.B c"})
}

// TestParse_GenericExceptionLines: a line naming an exception at its start
// begins an error entry of its own after an info entry, but joins a
// warning or error that announced it, and ends a Python traceback.
func TestParse_GenericExceptionLines(t *testing.T) {
	f := func(input string, n, i int, w want) {
		t.Helper()
		es := parse(t, "generic", input)
		if len(es) != n {
			for j, e := range es {
				t.Logf("%d: %s %q %q", j, e.Record.Level, e.Record.Text, e.Record.Stack)
			}
			t.Fatalf("%q: %d records, want %d", input, len(es), n)
		}
		checkEntry(t, i, es[i], w)
	}
	info := "2026-03-01 12:00:00 INFO server up\n"
	up := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, name := range []string{"TypeError", "RangeError", "ReferenceError", "SyntaxError", "EvalError", "URIError"} {
		f(info+name+": x is not a function\n    at update (game.js:12:5)\n    at tick (game.js:40:3)\n", 2, 1,
			want{level: oplog.LevelError, text: name + ": x is not a function", stack: ptr("    at update (game.js:12:5)\n    at tick (game.js:40:3)")})
	}
	f(info+"java.lang.IllegalStateException: pool\n\tat a.B.c(B.java:1)\n", 2, 1,
		want{level: oplog.LevelError, text: "java.lang.IllegalStateException: pool", stack: ptr("\tat a.B.c(B.java:1)")})
	f("2026-03-01 12:00:00 DEBUG tick\njava.lang.NullPointerException\n\tat a.B.c(B.java:1)\n", 2, 1,
		want{level: oplog.LevelError, text: "java.lang.NullPointerException", stack: ptr("\tat a.B.c(B.java:1)")})
	// The announcing entry keeps its exception.
	f("2026-03-01 12:00:00 ERROR com.x.Loader - failed\njava.io.IOException: x\n\tat a.B.c(B.java:1)\n", 1, 0,
		want{level: oplog.LevelError, name: "com.x.Loader", text: "failed", time: up, stack: ptr("java.io.IOException: x\n\tat a.B.c(B.java:1)")})
	f("2026-03-01 12:00:00 WARN retrying\nTypeError: x\n", 1, 0, want{level: oplog.LevelWarn, text: "retrying", time: up, stack: ptr("TypeError: x")})
	f("2026-03-01 12:00:00 INFO stack follows:\nTypeError: x\n", 1, 0, want{level: oplog.LevelInfo, text: "stack follows:", time: up, stack: ptr("TypeError: x")})
	// A Python traceback's exception line ends it.
	tb := "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: x"
	f("2026-03-01 12:00:00 ERROR handler failed\n"+tb+"\n2026-03-01 12:00:01 INFO next\n", 2, 0,
		want{level: oplog.LevelError, text: "handler failed", time: up, stack: ptr(tb)})
	f("Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: x\n", 1, 0,
		want{level: oplog.LevelError, text: "ValueError: x", stack: ptr("Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: x")})
	// Prose is no exception's name.
	f(info+"Connection Error: retrying\n", 1, 0, want{level: oplog.LevelInfo, text: "server up", time: up, stack: ptr("Connection Error: retrying")})
	// Rust's main returning an anyhow error: its causes, after a blank line, are its.
	f("loading world\nError: failed to load world \"overworld\"\n\nCaused by:\n    0: failed to read chunk (3, -7)\n    1: invalid region header\n", 2, 1,
		want{level: oplog.LevelError, text: `failed to load world "overworld"`, stack: ptr("Caused by:\n    0: failed to read chunk (3, -7)\n    1: invalid region header")})
}

// TestParse_GenericUptime: the lines of an uptime-stamped log (Factorio's)
// are dated from its first line, and an entry takes every line up to the
// next uptime: its message and Lua traceback, unindented (a mod's error
// that stops the game, fatal).
func TestParse_GenericUptime(t *testing.T) {
	es := parse(t, "generic", "   0.000 2026-03-01 12:00:00; Factorio 2.0.60 (build 83512, linux64, headless)\n"+
		"  110.207 Error MainLoop.cpp:1488: Exception at tick 5880: The mod BotBridge (0.0.1) caused a non-recoverable error.\n"+
		"Error while running event BotBridge::on_nth_tick(60)\nEntity is not mining-drill.\nstack traceback:\n"+
		"\t[C]: in function '__index'\n\t__BotBridge__/control.lua:1326: in function 'sample_bots'\n"+
		"  111.441 Goodbye\n")
	if len(es) != 3 {
		t.Fatalf("%d entries, want 3: %+v", len(es), es)
	}
	r := es[1].Record
	want := time.Date(2026, 3, 1, 12, 1, 50, 207e6, time.UTC)
	if r.Level != oplog.LevelFatal || !r.Time.Equal(want) || strings.Count(r.Stack, "\n") != 4 || es[2].Record.Text != "Goodbye" {
		t.Errorf("got %s at %v, stack:\n%s\nthen %q", r.Level, r.Time, r.Stack, es[2].Record.Text)
	}
	if _, title, _ := crash.Signature(r.Stack); title != "Entity is not mining-drill. in sample_bots" {
		t.Errorf("title %q", title)
	}
}

// TestParse_GenericLuaNumbered: Garry's Mod's numbered Lua frames are the
// error's stack and frames of its crash.
func TestParse_GenericLuaNumbered(t *testing.T) {
	es := parse(t, "generic", "[ERROR] lua/vgui/dlabel.lua:168: attempt to call method 'KeyDown' (a nil value)\n"+
		"  1. unknown - lua/vgui/dlabel.lua:168\n   2. include - [C]:-1\nnext\n")
	if len(es) != 2 || es[0].Record.Level != oplog.LevelError || es[0].Record.Stack != "  1. unknown - lua/vgui/dlabel.lua:168\n   2. include - [C]:-1" {
		t.Fatalf("%+v", es)
	}
	tr := crash.Parse(es[0].Record.Stack)
	if strings.Join(tr.Frames, "|") != "lua/vgui/dlabel.lua: in unknown|[C]: in include" {
		t.Errorf("frames %q", tr.Frames)
	}
}

// TestParse_GenericRenpy: Ren'Py's traceback.txt (BOM, simple and full
// tracebacks, platform lines) is one error record: the exception as text,
// the file as stack, no BOM; its crash is named by the exception and the
// innermost frame, and the source lines under frames are no frames.
func TestParse_GenericRenpy(t *testing.T) {
	var sigs, labels []string
	for _, tc := range []struct{ sample, text, title string }{
		{"generic/renpy_traceback_bom.txt", "Exception: Sayer '%(player_name)' is not defined.", "Exception in eval_who"},
		{"generic/renpy_katawa.txt", "Exception: The say screen (or show_function) must return a Text object.", "Exception in display_say"},
		{"generic/renpy_nameerror.txt", "NameError: name 'tempo' is not defined", "NameError in <module>"},
	} {
		for _, parser := range []string{"generic", "auto"} {
			data := readSample(t, tc.sample)
			es := feed(mustParser(t, parser), data)
			checkAll(t, es, int64(len(data)))
			if len(es) != 1 {
				t.Fatalf("%s (%s): %d records, want 1", tc.sample, parser, len(es))
			}
			r := es[0].Record
			if r.Level != oplog.LevelError || r.Text != tc.text || !strings.HasPrefix(r.Stack, renpyHeader+"\nWhile running game code:\n") ||
				strings.Contains(r.Stack, "\ufeff") || !strings.Contains(r.Stack, "\nFull traceback:\n") {
				t.Errorf("%s (%s): %s %q stack:\n%s", tc.sample, parser, r.Level, r.Text, r.Stack)
			}
			sig, title, frames := crash.Signature(r.Stack)
			if title != tc.title || strings.Contains(strings.Join(frames, "|"), "say(") {
				t.Errorf("%s: title %q frames %q, want %q", tc.sample, title, frames, tc.title)
			}
			if parser == "generic" {
				sigs, labels = append(sigs, sig), append(labels, tc.sample)
			}
		}
	}
	checkPairs(t, sigs, labels)
}

// TestParse_RenpyReport: Ren'Py 8's report of an exception on its standard
// output and in log.txt ("Full traceback:", the frames, the exception; a
// blank line, what Ren'Py was doing and the game's frames; all of it twice
// when the exception ended the game before it started), bare and behind a
// launcher's wrapper, is one crash record that ends the run, titled by the
// game's frame (else, when every frame is Ren'Py's, its innermost); a
// warning and a blank line before it stay a warning of its own. Ren'Py's
// error in a script (errors.txt) is titled once by its line.
func TestParse_RenpyReport(t *testing.T) {
	for _, tc := range []struct{ sample, text, doing, title string }{
		{"generic/renpy8_stdout_init.txt", "KeyError: 'boss'", "\nWhile running game code:\n",
			`KeyError: 'boss' in File "game/script.rpy", line 50, in spawn_enemy`},
		{"generic/renpy8_log_enginebug.txt", "ValueError: AST node line range (44, 1) is not valid", "\nAfter initialization, but before game start.\n",
			`ValueError: AST node line range (44, 1) is not valid in File "/usr/share/games/renpy/renpy/sl2/slast.py", line 84, in compile_expr`},
		{"generic/renpy8_errors.txt", `File "game/script.rpy", line 5: is not terminated with a newline. (Check strings and parenthesis.)`, "\n        $ x = (1 +",
			`File "game/script.rpy", line 5: is not terminated with a newline. (Check strings and parenthesis.)`},
	} {
		for _, wrap := range []string{"", "[WARNING] stderr: "} {
			var in strings.Builder
			for line := range strings.Lines(string(readSample(t, tc.sample))) {
				in.WriteString(wrap + line)
			}
			l := mustLog(t)
			l.SetCrashes(crash.New(l, nil))
			mustImport(t, l, []byte(in.String()), ImportOptions{Source: "renpy"})
			lines := slices.DeleteFunc(ofSource(t, l, "renpy"), func(r oplog.Record) bool { return r.Kind != oplog.KindLine })
			var errs []oplog.Record
			for _, r := range lines {
				if r.Level >= oplog.LevelError {
					errs = append(errs, r)
				}
				if txt := strings.TrimSpace(r.Text); txt == "" || txt == "stderr:" || txt == renpyFull || renpyDoing(txt) || strings.HasPrefix(r.Text, "Warning") && r.Stack != "" {
					t.Errorf("%s %q: record %d %s %q stack %.80q", tc.sample, wrap, r.ID, r.Level, r.Text, r.Stack)
				}
			}
			if len(errs) != 1 || errs[0].Text != tc.text || !strings.Contains(errs[0].Stack, tc.doing) ||
				tc.doing[2] != ' ' && !strings.HasPrefix(errs[0].Stack, renpyFull+"\n") {
				t.Errorf("%s %q: %d errors, want 1, %q with %q:", tc.sample, wrap, len(errs), tc.text, tc.doing)
				for _, r := range errs {
					t.Errorf("  %s %q\n\tstack %q", r.Level, r.Text, r.Stack)
				}
				continue
			}
			page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: "renpy", Classes: oplog.CrashClasses})
			if err != nil || len(page.Groups) != 1 || page.Groups[0].Title != tc.title {
				t.Errorf("%s %q: groups %+v, %v; want one titled %q", tc.sample, wrap, page.Groups, err, tc.title)
			}
			runs, err := l.Runs(t.Context(), "renpy")
			if want := tc.doing[2] != ' '; err != nil || len(runs) != 1 || (runs[0].Outcome == oplog.OutcomeCrashed) != want {
				t.Errorf("%s %q: runs %+v, %v; want one, crashed: %v", tc.sample, wrap, runs, err, want)
			}
		}
	}
}

// TestParse_GenericFactorio: a mod's crash logged twice (by the main loop
// and by the multiplayer manager, in quotes) is two records of one crash,
// named by the Lua error: the main loop's fatal (the game leaves the map),
// the quote an error.
func TestParse_GenericFactorio(t *testing.T) {
	data := readSample(t, "generic/factorio_wdm.log")
	for _, parser := range []string{"generic", "auto"} {
		es := feed(mustParser(t, parser), data)
		checkAll(t, es, int64(len(data)))
		if len(es) != 2 {
			t.Fatalf("%s: %d records, want 2", parser, len(es))
		}
		var sigs []string
		for i, e := range es {
			r := e.Record
			sig, title, _ := crash.Signature(r.Stack)
			if r.Level != []oplog.Level{oplog.LevelFatal, oplog.LevelError}[i] || strings.Count(r.Stack, "\n") != 6 ||
				title != "attempt to concatenate local '*' (a table value) in refresh_planets_list" {
				t.Errorf("%s: %s %q title %q stack:\n%s", parser, r.Level, r.Text, title, r.Stack)
			}
			sigs = append(sigs, sig)
		}
		checkPairs(t, sigs, []string{"planet_name", "planet_name"})
	}
}

// TestParse_GLib: GLib's log lines (testdata/runtimes/c_glib.txt, a game
// using g_message, g_critical, g_warning and g_error; and the domain's
// form GTK and GLib itself write): the level its word says, g_error's
// fatal (it traps), the time and the domain read, the text alone.
func TestParse_GLib(t *testing.T) {
	data := readSample(t, "runtimes/c_glib.txt")
	for _, parser := range []string{"generic", "auto"} {
		es := feed(mustParser(t, parser), data)
		checkAll(t, es, int64(len(data)))
		var got []string
		for _, e := range es {
			got = append(got, e.Record.Level.String()+" "+e.Record.Text)
		}
		want := []string{"info platformer: 1 animations loaded", "error find_anim: no animation named 'jump'",
			"warn falling back to idle pose", "fatal sprite sheet hero.png: animation 'walk' needs 8 frames, sheet has 4"}
		if strings.Join(got, "|") != strings.Join(want, "|") || es[0].Record.Time.Second() != 26 || es[0].Record.Time.Nanosecond() != 415_000_000 {
			t.Errorf("%s: %q (time %s)", parser, got, es[0].Record.Time)
		}
	}
	es := feed(mustParser(t, "generic"), []byte("(game:1234): GLib-CRITICAL **: 10:00:01.500: g_hash_table_lookup: assertion 'hash_table != NULL' failed\n"+
		"(game:1234): Gtk-WARNING **: cannot open display\n"))
	if len(es) != 2 || es[0].Record.Name != "GLib" || es[0].Record.Level != oplog.LevelError ||
		es[0].Record.Text != "g_hash_table_lookup: assertion 'hash_table != NULL' failed" ||
		es[1].Record.Name != "Gtk" || es[1].Record.Level != oplog.LevelWarn || es[1].Record.Text != "cannot open display" {
		t.Errorf("domains: %+v", es)
	}
}

// TestParse_GenericPrintsBetweenLoggerLines: after a timestamped entry a
// line without a timestamp is more of its message, unless the game's plain
// prints have begun entries of their own: then a print after a logger's
// error is a line of its own, while the error's indented and trace lines
// and the exception it announced stay its.
func TestParse_GenericPrintsBetweenLoggerLines(t *testing.T) {
	texts := func(input string) []string {
		t.Helper()
		var got []string
		for _, e := range parse(t, "generic", input) {
			got = append(got, fmt.Sprintf("%s %s|%s", e.Record.Level, e.Record.Text, e.Record.Stack))
		}
		return got
	}
	for _, c := range []struct {
		input string
		want  []string
	}{
		{"2026-03-01 12:00:00 ERROR config rejected:\nkey=1\nscale=0\n2026-03-01 12:00:01 INFO next\n",
			[]string{"error config rejected:|key=1\nscale=0", "info next|"}},
		{"starting\n2026-03-01 12:00:00 ERROR missing texture\nframe 2\nframe 3\n2026-03-01 12:00:01 INFO next\n",
			[]string{"info starting|", "error missing texture|", "info frame 2|", "info frame 3|", "info next|"}},
		{"starting\n2026-03-01 12:00:00 ERROR load failed\njava.io.IOException: x\n\tat a.B.c(B.java:1)\nframe 2\n",
			[]string{"info starting|", "error load failed|java.io.IOException: x\n\tat a.B.c(B.java:1)", "info frame 2|"}},
		{"starting\n2026-03-01 12:00:00 ERROR config rejected:\n  key=1\nframe 2\n",
			[]string{"info starting|", "error config rejected:|  key=1", "info frame 2|"}},
	} {
		if got := texts(c.input); !slices.Equal(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.input, got, c.want)
		}
	}
}

// TestParseGeneric_ThreadAfterLevel: a level word with its thread in
// brackets ("ERROR[Main]:", as Luanti writes it) is that level, the thread
// its name, and a prefix a report may be printed beneath; a word that is
// no level ("ACTION[Main]:") leaves the line info.
func TestParseGeneric_ThreadAfterLevel(t *testing.T) {
	recs := recordsOf(feed(mustParser(t, "generic"), readSample(t, "luanti/console_crash.txt")))
	server, ok := find(recs, func(r *oplog.Record) bool {
		return strings.HasPrefix(r.Text, "ServerError: AsyncErr: Lua: Runtime error")
	})
	if !ok || server.Level != oplog.LevelError || server.Name != "Main" {
		t.Errorf("the ServerError line: %+v", server)
	}
	if world, ok := find(recs, func(r *oplog.Record) bool { return strings.Contains(r.Text, "World at [") }); !ok || world.Level != oplog.LevelInfo {
		t.Errorf("the ACTION line: %+v", world)
	}
	if n, _ := cutPrefix("ERROR[Main]: stack traceback:"); n != len("ERROR[Main]: ") {
		t.Errorf("the prefix cut at %d", n)
	}
}

// TestParse_BalatroCrashScreen: Steamodded's crash screen as players paste
// it ("Oops! The game crashed:", the error, the game's versions and mods,
// StackTracePlus' frames): one fatal record, the error its text; the line
// after it that starts an entry is one of its own.
func TestParse_BalatroCrashScreen(t *testing.T) {
	log := "Oops! The game crashed:\n[SMODS _ \"src/utils.lua\"]:2634: bad argument #2 to 'max' (number expected, got nil)\n\n" +
		"Additional Context:\nBalatro Version: 1.0.1n-FULL\nModded Version: 1.0.0~BETA-1016c-STEAMODDED\nLÖVE Version: 11.5.0\nPlatform: Windows\n" +
		"Steamodded Mods:\n    1: Brainstorm by OceanRamen [ID: Brainstorm, Version: 2.0.0-beta, Uses Lovely]\n\nStack Traceback\n===============\n" +
		"(3) field C function 'max'\n(4) Lua field 'update_hand_limit_text' at Steamodded file 'src/utils.lua:2634' \nLocal variables:\n play = boolean: true\n" +
		"(5) Lua upvalue 'game_start_run' at file 'game.lua:2124'\n" +
		"INFO - [G] 2026-03-01 12:35:00 :: INFO :: Loader :: Restarting\n"
	recs := recordsOf(feed(mustParser(t, "generic"), []byte(log)))
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2: %q", len(recs), texts(recs))
	}
	r := recs[0]
	if r.Level != oplog.LevelFatal || r.Text != "[SMODS _ \"src/utils.lua\"]:2634: bad argument #2 to 'max' (number expected, got nil)" ||
		!strings.HasPrefix(r.Stack, "Oops! The game crashed:\n[SMODS") || !strings.HasSuffix(r.Stack, "at file 'game.lua:2124'") {
		t.Errorf("%s %q, stack %q", r.Level, r.Text, r.Stack)
	}
	if recs[1].Name != "Loader" || recs[1].Text != "Restarting" {
		t.Errorf("the next record: %+v", recs[1])
	}
}
