package crash_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// groupsOf returns "count title" of each group find_crashes answers.
func groupsOf(t *testing.T, l *oplog.Log) []string {
	t.Helper()
	var got []string
	for _, g := range find(t, l, oplog.CrashQuery{}).Groups {
		got = append(got, fmt.Sprintf("%d %s", g.Count, g.Title))
	}
	return got
}

// TestIndex_FindCrashes_StackedFatalsApart: three different Lua errors
// with stacks at level fatal in one run within a second are three
// crashes, not one crash and its dump: each is a complete report.
func TestIndex_FindCrashes_StackedFatalsApart(t *testing.T) {
	l, _ := mustOpen(t, nil)
	luaFatal := func(msg, frame string, at time.Duration) oplog.Record {
		return oplog.Record{Level: oplog.LevelFatal, Source: "love", Time: t0.Add(at), Text: msg,
			Stack: msg + "\nstack traceback:\n\t[C]: in function 'error'\n\t" + frame + "\n\tmain.lua:30: in function 'love.update'"}
	}
	logtest.MustAppend(t, l,
		oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "love", Time: t0, Text: "run started"},
		luaFatal("enemy.lua:12: attempt to index a nil value (field 'hp')", "enemy.lua:12: in function 'hit'", 100*time.Millisecond),
		luaFatal("world.lua:40: bad spawn count", "world.lua:40: in function 'spawn'", 400*time.Millisecond),
		luaFatal("ui.lua:7: attempt to call a nil value (global 'draw')", "ui.lua:7: in function 'render'", 900*time.Millisecond),
	)
	// The run's crash first (its first fatal line), then the others newest first.
	want := fmt.Sprint([]string{
		"1 enemy.lua:12: attempt to index a nil value (field 'hp') in enemy.lua:12: in function 'hit'",
		"1 ui.lua:7: attempt to call a nil value (global 'draw') in ui.lua:7: in function 'render'",
		"1 world.lua:40: bad spawn count in world.lua:40: in function 'spawn'",
	})
	if got := fmt.Sprint(groupsOf(t, l)); got != want {
		t.Errorf("groups\n%s\nwant\n%s", got, want)
	}
}

// TestIndex_FindCrashes_BareDump: the lines without a stack a native crash
// prints about itself are its dump, one crash; a backtrace after its bare
// header takes the header's place; and a complete report after that is a
// crash of its own.
func TestIndex_FindCrashes_BareDump(t *testing.T) {
	l, _ := mustOpen(t, nil)
	fatal := func(text, stack string, at time.Duration) oplog.Record {
		return oplog.Record{Level: oplog.LevelFatal, Source: "unity", Time: t0.Add(at), Text: text, Stack: stack}
	}
	logtest.MustAppend(t, l,
		oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "unity", Time: t0, Text: "run started"},
		fatal("Received signal SIGSEGV", "", time.Second),
		fatal("Crash!!!", "", time.Second),
		fatal("Obtained 3 stack frames", "0x00007FF6A1B2C3D4 (Unity) mecanim::skeleton::CreateSkeletonPose\n"+
			"0x00007FF6A1B2C3D5 (Unity) AnimationSystem::Update", 2*time.Second),
		fatal("Thread 0x1 may have been prematurely finalized", "", 3*time.Second),
		fatal("NullReferenceException: Object reference not set to an instance of an object",
			"Player.Update () (at Assets/Scripts/Player.cs:42)", 4*time.Second),
	)
	got := groupsOf(t, l)
	if len(got) != 2 {
		t.Fatalf("groups %q, want the native crash and the exception", got)
	}
	for _, g := range got {
		if g[:2] != "1 " {
			t.Errorf("group %q: want one occurrence", g)
		}
	}
}

// TestIndex_FindCrashes_LoggedThenRaised: an exception a game logged as it
// caught it and then let go (Python's logging.exception then raise) is
// one occurrence a launch, not two, as is one a thread died of (reported
// at error) and its join raised again (fatal); the same exception printed
// as itself every frame, or logged under the same message every frame,
// counts each time.
func TestIndex_FindCrashes_LoggedThenRaised(t *testing.T) {
	l, _ := mustOpen(t, nil)
	const exc = "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)"
	inner := "  File \"game.py\", line 7, in load\n    return parse_level(s)\n  File \"game.py\", line 4, in parse_level\n    return json.loads(s)\n"
	logged := "Traceback (most recent call last):\n" + inner + exc
	uncaught := "Traceback (most recent call last):\n  File \"game.py\", line 14, in <module>\n    main()\n" + inner + exc
	line := func(source, text, stack string, at time.Duration) oplog.Record {
		return oplog.Record{Level: oplog.LevelError, Source: source, Time: t0.Add(at), Text: text, Stack: stack}
	}
	var recs []oplog.Record
	for launch := range 2 {
		at := time.Duration(launch) * time.Minute
		recs = append(recs,
			oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Time: t0.Add(at), Text: "run started"},
			line("game", "could not load level cave", logged, at+time.Second),
			line("game", exc, uncaught, at+time.Second+time.Millisecond),
			oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: oplog.LevelError, Source: "game",
				Time: t0.Add(at + 2*time.Second), Text: "python3 exited with status 1", Data: []byte(`{"exitCode":1}`)})
	}
	// A thread's report at error, then its join raising it, fatal.
	recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "threads", Time: t0, Text: "run started"},
		line("threads", exc, uncaught, time.Second), line("threads", exc, uncaught, time.Second+time.Millisecond))
	recs[len(recs)-1].Level = oplog.LevelFatal
	for _, source := range []string{"editor", "tool"} {
		recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: source, Time: t0, Text: "run started"})
	}
	for i := range 3 {
		at := time.Duration(i) * 100 * time.Millisecond
		recs = append(recs, line("editor", "update failed", logged, at), line("tool", exc, uncaught, at))
	}
	logtest.MustAppend(t, l, recs...)
	for source, want := range map[string]int{"game": 2, "threads": 1, "editor": 3, "tool": 3} {
		p := find(t, l, oplog.CrashQuery{Source: source})
		if len(p.Groups) != 1 || p.Groups[0].Count != want {
			t.Errorf("%s: %+v, want one group of %d", source, p.Groups, want)
		}
	}
}

// TestIndex_FindCrashes_BareRepeated: the same bare fatal line three times
// in one run within seconds (a log the game appends to, its launches one
// run) is three occurrences, the newest last; a dump's other lines still
// go with its crash.
func TestIndex_FindCrashes_BareRepeated(t *testing.T) {
	l, _ := mustOpen(t, nil)
	terminate := "terminate called after throwing an instance of 'std::runtime_error'\n  what():  save file corrupt"
	fatal := func(text string, at time.Duration) oplog.Record {
		return oplog.Record{Level: oplog.LevelFatal, Source: "game", Time: t0.Add(at), Text: text}
	}
	recs := []oplog.Record{
		{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Time: t0, Text: "run started"},
		fatal(terminate, time.Second), fatal("Aborted (core dumped)", time.Second),
		fatal(terminate, 3*time.Second), fatal("Aborted (core dumped)", 3*time.Second),
		fatal(terminate, 5*time.Second),
	}
	logtest.MustAppend(t, l, recs...)
	p := find(t, l, oplog.CrashQuery{})
	if len(p.Groups) != 1 || p.Groups[0].Count != 3 || p.Groups[0].LastID != recs[5].ID {
		t.Fatalf("groups %q (%+v), want one of 3, the newest #%d", groupsOf(t, l), p.Groups, recs[5].ID)
	}
}

// TestIndex_FindCrashes_GivesUpOn: a game's own fatal line right after the
// exception it gives up on (a thread's uncaught exception, then "FATAL:
// world generation failed, exiting") is that exception's occurrence, the
// run's crash titled by it and its frame; a native crash's headline after
// an exception is a crash of its own.
func TestIndex_FindCrashes_GivesUpOn(t *testing.T) {
	l, _ := mustOpen(t, nil)
	npe := "Exception in thread \"chunk-loader\" java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"data\" is null\n" +
		"\tat Game.loadChunk(Game.java:8)\n\tat Game.lambda$main$0(Game.java:18)\n\tat java.base/java.lang.Thread.run(Thread.java:833)"
	line := func(source string, level oplog.Level, text, stack string, at time.Duration) oplog.Record {
		return oplog.Record{Level: level, Source: source, Time: t0.Add(at), Text: text, Stack: stack}
	}
	var recs []oplog.Record
	for launch := range 2 {
		at := time.Duration(launch) * time.Minute
		recs = append(recs,
			oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "java", Time: t0.Add(at), Text: "run started"},
			line("java", oplog.LevelError, "java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"data\" is null", npe, at+time.Second),
			line("java", oplog.LevelFatal, "world generation failed, exiting", "", at+time.Second+time.Millisecond))
	}
	recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "unity", Time: t0, Text: "run started"},
		line("unity", oplog.LevelError, "NullReferenceException: Object reference not set to an instance of an object", "Player.Update () (at Assets/Scripts/Player.cs:42)", time.Second),
		line("unity", oplog.LevelFatal, "Received signal SIGSEGV", "", 2*time.Second))
	logtest.MustAppend(t, l, recs...)
	p := find(t, l, oplog.CrashQuery{Source: "java"})
	if len(p.Groups) != 1 || p.Groups[0].Count != 2 || p.Groups[0].RunsEnded != 2 ||
		!strings.HasPrefix(p.Groups[0].Title, "java.lang.NullPointerException") || !strings.Contains(p.Groups[0].Title, "Game.loadChunk(Game.java:8)") {
		t.Errorf("java: %+v; want one crash of 2, the exception in Game.loadChunk, that ended both runs", p.Groups)
	}
	if got := groupsOf(t, l); len(got) != 3 {
		t.Errorf("groups %q; want the java crash, and unity's exception and native crash apart", got)
	}
}

// TestIndex_FindCrashes_GivesUpOnTheGamesError: when the error right
// before a game's fatal line is the engine's, caused by an error of the
// game's own scripts just before it (Godot's script parse error, then
// "reload: Method failed" in gdscript.cpp, then the game's "FATAL: enemy
// script failed to compile"), the game's error is the run's crash, a
// crash though the parser's diagnostics are compile errors otherwise.
func TestIndex_FindCrashes_GivesUpOnTheGamesError(t *testing.T) {
	l, _ := mustOpen(t, nil)
	at := func(r oplog.Record, d time.Duration) oplog.Record { r.Source, r.Time = "godot", t0.Add(d); return r }
	recs := logtest.MustAppend(t, l,
		at(oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Text: "run started"}, 0),
		at(oplog.Record{Level: oplog.LevelError, Name: "script", Text: "Parse Error: ':' expected at end of line.",
			Stack: "at GDScript::reload (res://enemies/Goblin.gd:5)"}, time.Second),
		at(oplog.Record{Level: oplog.LevelError, Text: "Method failed. Returning: ERR_PARSE_ERROR",
			Stack: "at reload (modules/gdscript/gdscript.cpp:599)"}, time.Second),
		at(oplog.Record{Level: oplog.LevelFatal, Text: "FATAL: enemy script res://enemies/Goblin.gd failed to compile"}, time.Second),
	)
	p := find(t, l, oplog.CrashQuery{Limit: 1})
	if len(p.Groups) != 1 || p.Groups[0].Class != oplog.ClassCrash || p.Groups[0].RunsEnded != 1 || p.Groups[0].LastID != recs[3].ID ||
		!strings.HasPrefix(p.Groups[0].Title, "Parse Error: ':' expected") || !strings.Contains(p.Groups[0].Title, "res://enemies/Goblin.gd:5") {
		t.Errorf("the first group: %+v; want the parse error in Goblin.gd, the crash that ended the run (#%d)", p.Groups, recs[3].ID)
	}
}

// TestIndex_FindCrashes_DumpForAnAssertion: a failed assertion (an error,
// Microsoft's C runtime's), then the crash dump its abort made (Defold's
// on Windows: "Successfully wrote Crashdump…" and the call stack) are one
// crash, titled by the assertion and the dump's game frame; a later dump
// without an assertion before it is titled by itself.
func TestIndex_FindCrashes_DumpForAnAssertion(t *testing.T) {
	l, _ := mustOpen(t, nil)
	at := func(r oplog.Record, d time.Duration) oplog.Record { r.Source, r.Time = "defold", t0.Add(d); return r }
	dump := "CALL STACK:\n 0 0x7FF7018E4030 dmCrash::GenerateCallstack D:\\defold\\engine\\crash\\src\\backtrace_win32.cpp:144\n" +
		" 5 0x7FF701611AF0 dmGameSystem::RenderBatch D:\\defold\\engine\\gamesys\\src\\gamesys\\components\\comp_sprite.cpp:1319"
	recs := logtest.MustAppend(t, l,
		at(oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Text: "run started"}, 0),
		at(oplog.Record{Level: oplog.LevelError, Text: "Assertion failed: i < Size(), file D:\\defold\\dlib\\array.h, line 494",
			Stack: "at D:\\defold\\dlib\\array.h:494"}, time.Second),
		at(oplog.Record{Level: oplog.LevelFatal, Name: "CRASH", Text: "Successfully wrote Crashdump to file: C:\\Users\\Mike\\AppData\\Roaming\\Defold/_crash", Stack: dump}, time.Second),
	)
	p := find(t, l, oplog.CrashQuery{Limit: 1})
	if len(p.Groups) != 1 || p.Groups[0].Count != 1 || p.Groups[0].LastID != recs[2].ID || p.Groups[0].RunsEnded != 1 ||
		!strings.HasPrefix(p.Groups[0].Title, "Assertion failed: i < Size() in dmGameSystem::RenderBatch") {
		t.Fatalf("groups %+v; want one crash, the dump #%d, titled by the assertion in RenderBatch", p.Groups, recs[2].ID)
	}
	if all := find(t, l, oplog.CrashQuery{}); len(all.Groups) != 1 {
		t.Errorf("groups %q; want the assertion in the dump's crash, not an error of its own", groupsOf(t, l))
	}
	logtest.MustAppend(t, l,
		at(oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Text: "run started"}, time.Minute),
		at(oplog.Record{Level: oplog.LevelFatal, Name: "CRASH", Text: "Successfully wrote Crashdump to file: C:\\Users\\Mike\\AppData\\Roaming\\Defold/_crash", Stack: dump}, time.Minute+time.Second))
	if p := find(t, l, oplog.CrashQuery{Limit: 1}); len(p.Groups) != 1 || !strings.HasPrefix(p.Groups[0].Title, "Successfully wrote Crashdump") {
		t.Errorf("the dump without an assertion: %+v; want it titled by itself", p.Groups)
	}
}
