package oplogtest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Run outcomes (oplog's outcome.go): every store that keeps runs decides
// them as it appends.

func exitMarker(source string, level oplog.Level, data map[string]any) oplog.Record {
	b, _ := json.Marshal(data)
	return oplog.Record{Source: source, Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: level, Text: "exited", Data: b}
}

// outcomes returns "run:outcome:endID:crashID" of each run of source.
func outcomes(t *testing.T, l *oplog.Log, source string) []string {
	t.Helper()
	var out []string
	for _, r := range runs(t, l, source) {
		out = append(out, fmt.Sprintf("%d:%s:%d:%d", r.Run, r.Outcome, r.EndID, r.CrashID))
	}
	return out
}

func testRunsOutcomes(t *testing.T, open Opener) {
	l := newLog(t, open)
	stack := func(r oplog.Record) oplog.Record { r.Stack = "at Game.Update () (at Assets/Game.cs:3)"; return r }
	a := MustAppend(t, l,
		line("g", oplog.LevelInfo, "boot"),
		line("g", oplog.LevelFatal, "Received signal SIGSEGV"), // 1: crashed by the fatal
		line("g", oplog.LevelFatal, "Crash!!!"),                // a second fatal does not move the crash
		exitMarker("g", oplog.LevelInfo, map[string]any{"reason": "shutdown"}),
		marker("g", oplog.MarkerRun, "start"),
		line("g", oplog.LevelInfo, "playing"), // 2: ended by the next run
		marker("g", oplog.MarkerRun, "start"),
		exitMarker("g", oplog.LevelInfo, map[string]any{"reason": "shutdown"}), // 3: exited, then a crash while shutting down
		line("g", oplog.LevelFatal, "ServerError: boom"),
		marker("g", oplog.MarkerRun, "start"),
		stack(line("g", oplog.LevelError, "NullReferenceException")),
		exitMarker("g", oplog.LevelError, map[string]any{"exitCode": 1}), // 4: failing status right after it: the crash is the exception
		marker("g", oplog.MarkerRun, "start"),
		stack(line("g", oplog.LevelError, "handled")),
		exitMarker("g", oplog.LevelFatal, map[string]any{"signal": "SIGSEGV", "signalNumber": 11}), // 5: a signal is its own crash
		marker("g", oplog.MarkerRun, "start"),
		marker("g", oplog.MarkerEnd, "the import reached the end of its file"), // 6: ended, then read again: running
		line("g", oplog.LevelInfo, "still going"),
	)
	want := []string{
		fmt.Sprintf("1:crashed:%d:%d", a[1].ID, a[1].ID),
		fmt.Sprintf("2:ended:%d:0", a[6].ID),
		fmt.Sprintf("3:crashed:%d:%d", a[8].ID, a[8].ID),
		fmt.Sprintf("4:crashed:%d:%d", a[11].ID, a[10].ID),
		fmt.Sprintf("5:crashed:%d:%d", a[14].ID, a[14].ID),
		"6:running:0:0",
	}
	if got := outcomes(t, l, "g"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("outcomes:\n got %v\nwant %v", got, want)
	}
	b := MustAppend(t, l, marker("g", oplog.MarkerEnd, "the follower stopped"))
	if got := outcomes(t, l, "g")[5]; got != fmt.Sprintf("6:ended:%d:0", b[0].ID) {
		t.Fatalf("after an end marker: %s", got)
	}
}

// withTraceback is r with a Python traceback as its stack.
func withTraceback(r oplog.Record) oplog.Record {
	r.Stack = "Traceback (most recent call last):\n  File \"game.py\", line 3, in <module>\nValueError: x"
	return r
}

// secondsAfter returns a function that dates a record s seconds after t0.
func secondsAfter(t0 time.Time) func(r oplog.Record, s float64) oplog.Record {
	return func(r oplog.Record, s float64) oplog.Record {
		r.Time = t0.Add(time.Duration(s * float64(time.Second)))
		return r
	}
}

// testRunsOutcomesLastError: an error with a stack is a run's crash only
// when the run ends just after it: its last record, or nearly (a few
// records within two seconds: an exception's notes, an exit handler's
// line). A handled error every run prints at startup, with more output
// after it, is not the crash of a failing exit status; a traceback right
// before the next run's start is. An end marker says nothing of how the
// program ended. A signal is its own crash, but SIGINT after Python's
// KeyboardInterrupt.
func testRunsOutcomesLastError(t *testing.T, open Opener) {
	l := newLog(t, open)
	stack, at := withTraceback, secondsAfter(time.Now().Add(-time.Hour))
	a := MustAppend(t, l,
		at(marker("g", oplog.MarkerRun, "start"), 0),
		at(stack(line("g", oplog.LevelError, "missing texture")), 1),
		at(line("g", oplog.LevelInfo, "loading level"), 9),
		at(exitMarker("g", oplog.LevelError, map[string]any{"exitCode": 1}), 9), // 1: the handled error is not the crash: the exit is
		at(marker("g", oplog.MarkerRun, "start"), 10),
		at(line("g", oplog.LevelInfo, "playing"), 10),
		at(stack(line("g", oplog.LevelError, "ValueError: x")), 11), // 2: the next run began right after a traceback
		at(marker("g", oplog.MarkerRun, "start"), 20),
		at(stack(line("g", oplog.LevelError, "ValueError: printed")), 21),
		at(line("g", oplog.LevelInfo, "went on"), 30), // 3: ended after a printed traceback and more
		at(marker("g", oplog.MarkerRun, "start"), 40),
		at(stack(line("g", oplog.LevelError, "ValueError: y")), 41),
		at(marker("g", oplog.MarkerEnd, "the follower stopped"), 41), // 4: an end marker says nothing of the program: ended
		at(marker("g", oplog.MarkerRun, "start"), 50),
		at(stack(line("g", oplog.LevelError, "ValueError: z")), 51),
		at(marker("g", oplog.MarkerEnd, "the follower stopped"), 51), // 5: the same, and the game went on
		at(line("g", oplog.LevelInfo, "still going"), 52),
	)
	want := []string{
		fmt.Sprintf("1:crashed:%d:%d", a[3].ID, a[3].ID),
		fmt.Sprintf("2:crashed:%d:%d", a[7].ID, a[6].ID),
		fmt.Sprintf("3:ended:%d:0", a[10].ID),
		fmt.Sprintf("4:ended:%d:0", a[12].ID),
		"5:running:0:0",
	}
	if got := outcomes(t, l, "g"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("outcomes:\n got %v\nwant %v", got, want)
	}
	b := MustAppend(t, l, at(stack(line("g", oplog.LevelError, "ValueError: z")), 60),
		at(exitMarker("g", oplog.LevelInfo, map[string]any{"exitCode": 0}), 60))
	if got := outcomes(t, l, "g")[4]; got != fmt.Sprintf("5:exited:%d:0", b[1].ID) {
		t.Fatalf("a traceback then status 0: %s", got)
	}
	// An imported log read to its end: a traceback as its very last
	// record ended the program; an Unity-style exception, or a traceback
	// with a line after it (a handled one's "shutting down"), did not.
	importEnd := func(s float64) oplog.Record {
		r := marker("g", oplog.MarkerEnd, "run ended: the import reached the end of its input")
		r.Data = []byte(`{"reason":"` + oplog.ReasonImportEnded + `"}`)
		return at(r, s)
	}
	unity := func(r oplog.Record) oplog.Record { r.Stack = "Game.Update () (at Assets/Game.cs:3)"; return r }
	c := MustAppend(t, l,
		at(marker("g", oplog.MarkerRun, "start"), 70),
		at(stack(line("g", oplog.LevelError, "ValueError: last words")), 71),
		importEnd(71), // 6: crashed of the traceback
		at(marker("g", oplog.MarkerRun, "start"), 80),
		at(unity(line("g", oplog.LevelError, "NullReferenceException")), 81),
		importEnd(81), // 7: ended
		at(marker("g", oplog.MarkerRun, "start"), 90),
		at(stack(line("g", oplog.LevelError, "ValueError: printed")), 91),
		at(line("g", oplog.LevelInfo, "went on"), 99),
		importEnd(99), // 8: ended
		at(marker("g", oplog.MarkerRun, "start"), 100),
		at(stack(line("g", oplog.LevelError, "ValueError: logged")), 101),
		at(line("g", oplog.LevelInfo, "shutting down"), 101),
		importEnd(101), // 9: a line after it, however soon: ended
	)
	want = []string{
		fmt.Sprintf("6:crashed:%d:%d", c[2].ID, c[1].ID),
		fmt.Sprintf("7:ended:%d:0", c[5].ID),
		fmt.Sprintf("8:ended:%d:0", c[9].ID),
		fmt.Sprintf("9:ended:%d:0", c[13].ID),
	}
	if got := outcomes(t, l, "g")[5:]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("imports' ends:\n got %v\nwant %v", got, want)
	}
}

// testRunsOutcomesJustAfterError: an error with a stack is the crash of a
// run that ends just after it: a few lines within two seconds, then a
// failing status or the next run's start; four lines, or lines seconds
// later, are more. SIGINT after Python's KeyboardInterrupt is that
// exception's, as SIGABRT is the error's it follows (a program's abort()
// after saying why); another signal its own. A thread's traceback ("Exception in
// thread X:"), a destructor's ("Exception ignored in: …"), an asyncio
// task's nothing awaited ("future: <Task …>") are not the end's: the
// program went on after them.
func testRunsOutcomesJustAfterError(t *testing.T, open Opener) {
	l := newLog(t, open)
	stack, at := withTraceback, secondsAfter(time.Now().Add(-time.Hour))
	c := MustAppend(t, l,
		at(marker("g", oplog.MarkerRun, "start"), 70),
		at(stack(line("g", oplog.LevelError, "FileNotFoundError: level missing")), 71), // 1: its notes, then the status
		at(line("g", oplog.LevelInfo, "hint: build the levels"), 71),
		at(line("g", oplog.LevelInfo, "searched: levels/"), 71),
		at(exitMarker("g", oplog.LevelError, map[string]any{"exitCode": 1}), 71.5),
		at(marker("g", oplog.MarkerRun, "start"), 80),
		at(stack(line("g", oplog.LevelError, "IndexError: x")), 81), // 2: an exit handler's line, then the next run
		at(line("g", oplog.LevelInfo, "settings saved"), 81),
		at(marker("g", oplog.MarkerRun, "start"), 90),
		at(stack(line("g", oplog.LevelError, "KeyError: x")), 91), // 3: four lines, then the status
		at(line("g", oplog.LevelInfo, "a"), 91), at(line("g", oplog.LevelInfo, "b"), 91),
		at(line("g", oplog.LevelInfo, "c"), 91), at(line("g", oplog.LevelInfo, "d"), 91),
		at(exitMarker("g", oplog.LevelError, map[string]any{"exitCode": 1}), 91),
		at(marker("g", oplog.MarkerRun, "start"), 100),
		at(stack(line("g", oplog.LevelError, "KeyError: y")), 101), // 4: a line, then the status, three seconds on
		at(line("g", oplog.LevelInfo, "a"), 101),
		at(exitMarker("g", oplog.LevelError, map[string]any{"exitCode": 1}), 104),
		at(marker("g", oplog.MarkerRun, "start"), 110),
		at(stack(line("g", oplog.LevelError, "KeyboardInterrupt")), 111), // 5: SIGINT after it
		at(exitMarker("g", oplog.LevelError, map[string]any{"signal": "SIGINT", "signalNumber": 2}), 111),
		at(marker("g", oplog.MarkerRun, "start"), 120),
		at(stack(line("g", oplog.LevelError, "ValueError: w")), 121), // 6: SIGSEGV after it
		at(exitMarker("g", oplog.LevelError, map[string]any{"signal": "SIGSEGV", "signalNumber": 11}), 121),
		at(marker("g", oplog.MarkerRun, "start"), 130),
		at(stack(line("g", oplog.LevelError, "Exception in thread asset-loader:")), 131), // 7: a thread died, the program went on
		at(line("g", oplog.LevelInfo, "assets loaded: 1"), 131),
		at(line("g", oplog.LevelInfo, "bye"), 131),
		at(marker("g", oplog.MarkerRun, "start"), 132),
		at(stack(line("g", oplog.LevelError, "Exception ignored in: <function Sound.__del__ at 0x7f3a>")), 133), // 8: a destructor's
		at(line("g", oplog.LevelInfo, "bye"), 133),
		at(marker("g", oplog.MarkerRun, "start"), 134),
		at(stack(line("g", oplog.LevelError, "stderr: future: <Task finished name='Task-2' exception=ConnectionResetError()>")), 135), // 9: a task's
		at(line("g", oplog.LevelInfo, "bye"), 135),
		at(marker("g", oplog.MarkerRun, "start"), 136),
		at(stack(line("g", oplog.LevelError, "ASSERT FAILED: count < 8 at game.cpp:8")), 137), // 10: SIGABRT after it: the program's own abort()
		at(exitMarker("g", oplog.LevelFatal, map[string]any{"signal": "SIGABRT", "signalNumber": 6}), 137),
		at(marker("g", oplog.MarkerRun, "start"), 140),
		at(stack(line("g", oplog.LevelError, "ThreadSanitizer: data race (pid=7)")), 141), // 11: the status names its cause, long after
		at(line("g", oplog.LevelInfo, "a"), 142), at(line("g", oplog.LevelInfo, "b"), 143),
		at(line("g", oplog.LevelInfo, "c"), 144), at(line("g", oplog.LevelInfo, "ThreadSanitizer: reported 1 warnings"), 150),
	)
	c = append(c, MustAppend(t, l,
		at(exitMarker("g", oplog.LevelError, map[string]any{"exitCode": 66, "cause": c[39].ID}), 150),
		at(marker("g", oplog.MarkerRun, "start"), 160),
		at(line("g", oplog.LevelInfo, "a"), 161), // 12: a cause not of its run is no cause
		at(exitMarker("g", oplog.LevelError, map[string]any{"exitCode": 66, "cause": c[39].ID}), 162),
		at(marker("g", oplog.MarkerRun, "start"), 170),
	)...)
	want := []string{
		fmt.Sprintf("1:crashed:%d:%d", c[4].ID, c[1].ID),
		fmt.Sprintf("2:crashed:%d:%d", c[8].ID, c[6].ID),
		fmt.Sprintf("3:crashed:%d:%d", c[14].ID, c[14].ID),
		fmt.Sprintf("4:crashed:%d:%d", c[18].ID, c[18].ID),
		fmt.Sprintf("5:crashed:%d:%d", c[21].ID, c[20].ID),
		fmt.Sprintf("6:crashed:%d:%d", c[24].ID, c[24].ID),
		fmt.Sprintf("7:ended:%d:0", c[29].ID),
		fmt.Sprintf("8:ended:%d:0", c[32].ID),
		fmt.Sprintf("9:ended:%d:0", c[35].ID),
		fmt.Sprintf("10:crashed:%d:%d", c[37].ID, c[36].ID),
		fmt.Sprintf("11:crashed:%d:%d", c[44].ID, c[39].ID),
		fmt.Sprintf("12:crashed:%d:%d", c[47].ID, c[47].ID),
		"13:running:0:0",
	}
	if got := outcomes(t, l, "g"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("outcomes just after an error:\n got %v\nwant %v", got, want)
	}
}

// testRunsOutcomesQuitOnError: an engine's error with a stack (a Unity
// exception, a Godot script error) never stops the game, so a run whose
// last record is one, then the next run's start, ended: the player quit
// while it repeated every frame. With a call to the game unanswered then,
// the game died of it: crashed, the error its crash. A call answered
// before it is no sign.
func testRunsOutcomesQuitOnError(t *testing.T, open Opener) {
	l := newLog(t, open)
	stack := func(r oplog.Record) oplog.Record { r.Stack = "Enemy.Update () (at Assets/Enemy.cs:12)"; return r }
	call := func(st oplog.Status) oplog.Record {
		return oplog.Record{Source: "g", Kind: oplog.KindOp, Tool: "spawn_enemy", Arguments: []byte(`{"count":5}`), Status: st}
	}
	a := MustAppend(t, l,
		marker("g", oplog.MarkerRun, "start"),
		stack(line("g", oplog.LevelError, "NullReferenceException: enemy")),
		stack(line("g", oplog.LevelError, "NullReferenceException: enemy")), // 1: quit while it repeats
		marker("g", oplog.MarkerRun, "start"),
		call(oplog.StatusSuccess),
		stack(line("g", oplog.LevelError, "NullReferenceException: enemy")), // 2: a call answered before it
		marker("g", oplog.MarkerRun, "start"),
		call(oplog.StatusPending),
		stack(line("g", oplog.LevelError, "NullReferenceException: pool")), // 3: a call unanswered
		marker("g", oplog.MarkerRun, "start"),
	)
	want := []string{
		fmt.Sprintf("1:ended:%d:0", a[3].ID),
		fmt.Sprintf("2:ended:%d:0", a[6].ID),
		fmt.Sprintf("3:crashed:%d:%d", a[9].ID, a[8].ID),
		"4:running:0:0",
	}
	if got := outcomes(t, l, "g"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("outcomes after an engine's error:\n got %v\nwant %v", got, want)
	}
	if r, err := l.Get(t.Context(), a[7].ID); err != nil || r.Status != oplog.StatusCrashed {
		t.Fatalf("the call unanswered: %v, %v; want crashed", r.Status, err)
	}
}

// testResolveRunByTime: current and previous, and the offsets 0, -1, -2,
// are the runs that started last, whatever their numbers (an old log
// imported into a source late).
func testResolveRunByTime(t *testing.T, open Opener) {
	l := newLog(t, open)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(r oplog.Record, d time.Duration) oplog.Record { r.Time = t0.Add(d); return r }
	MustAppend(t, l, at(marker("g", oplog.MarkerRun, "today"), 0), at(line("g", oplog.LevelInfo, "a"), time.Second),
		at(marker("g", oplog.MarkerRun, "imported, yesterday"), -24*time.Hour), at(line("g", oplog.LevelInfo, "b"), -23*time.Hour),
		at(marker("g", oplog.MarkerRun, "imported, two days ago"), -48*time.Hour))
	for sel, want := range map[string]uint64{"current": 1, "previous": 2, "0": 1, "-1": 2, "-2": 3} {
		got, err := l.ResolveRun(t.Context(), "g", sel)
		if err != nil || got["g"] != want {
			t.Errorf("ResolveRun(%s): %v, %v; want run %d", sel, got, err, want)
		}
	}
}
