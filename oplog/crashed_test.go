package oplog_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// crashedRun appends, for source game: a call completed before the crash,
// a call in flight, a call of another source, a Python traceback as the
// crash and the failing exit marker, and returns their IDs.
func crashedRun(t *testing.T, l *oplog.Log) (done, inFlight, other, crash uint64) {
	t.Helper()
	ctx := context.Background()
	recs := []oplog.Record{
		{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Text: "run started: python3 game.py"},
		{Kind: oplog.KindOp, Source: "game", Tool: "ping", Status: oplog.StatusSuccess},
		{Kind: oplog.KindOp, Source: "game", Tool: "spawn_enemy", Arguments: []byte(`{"count":500}`)},
		{Kind: oplog.KindOp, Source: "editor", Tool: "spawn_enemy"},
	}
	oplogtest.MustAppend(t, l, recs...)
	done, inFlight, other = recs[1].ID, recs[2].ID, recs[3].ID
	tb := []oplog.Record{{Kind: oplog.KindLine, Source: "game", Level: oplog.LevelError, Text: "KeyError: 'boss'",
		Stack: "Traceback (most recent call last):\n  File \"game.py\", line 3, in spawn\nKeyError: 'boss'"}}
	if err := l.Append(ctx, tb); err != nil {
		t.Fatal(err)
	}
	crash = tb[0].ID
	if r, _ := l.Get(ctx, inFlight); r.Status != oplog.StatusPending {
		t.Fatalf("before the exit: %s, want pending (a traceback alone ends no run)", r.Status)
	}
	exit := []oplog.Record{{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Source: "game", Level: oplog.LevelError,
		Text: "python3 exited with status 1", Data: []byte(`{"exitCode":1}`)}}
	if err := l.Append(ctx, exit); err != nil {
		t.Fatal(err)
	}
	return done, inFlight, other, crash
}

// TestLog_Append_CrashedExitSettlesCallsInFlight: the exit marker of a run
// that ended crashed completes its pending call as crashed, naming the
// crash, its record and the exit; a call completed before the crash and a
// call of another source stay as they were.
func TestLog_Append_CrashedExitSettlesCallsInFlight(t *testing.T) {
	l := oplog.New(oplogtest.NewMemory(), nil)
	defer l.Close()
	ctx := context.Background()
	done, inFlight, other, crash := crashedRun(t, l)

	r, err := l.Get(ctx, inFlight)
	if err != nil {
		t.Fatal(err)
	}
	want := "the game crashed during this call: KeyError: 'boss' (record #" + itoa(crash) + "); python3 exited with status 1"
	if r.Status != oplog.StatusCrashed || r.Error != want || r.Level != oplog.LevelError || !r.IsComplete() {
		t.Fatalf("the call in flight: status %s, level %s, error %q; want crashed, error, %q", r.Status, r.Level, r.Error, want)
	}
	if r, _ := l.Get(ctx, done); r.Status != oplog.StatusSuccess || r.Error != "" {
		t.Fatalf("the call completed before the crash: %s %q, want success untouched", r.Status, r.Error)
	}
	if r, _ := l.Get(ctx, other); r.Status != oplog.StatusPending {
		t.Fatalf("the other source's call: %s, want pending", r.Status)
	}
	// Settling again finds nothing left in flight.
	if got, err := l.SettleCrashed(ctx, "game", r.Run); err != nil || len(got) != 0 {
		t.Fatalf("SettleCrashed again: %d records, %v; want none", len(got), err)
	}
	// An operation completes once: crashed is final, as any outcome is.
	if _, err := l.Complete(ctx, inFlight, oplog.Completion{Status: oplog.StatusCrashed, Error: "again"}); oplog.ErrorCode(err) != oplog.ECONFLICT {
		t.Fatalf("crashed twice: %v, want ECONFLICT", err)
	}
	if _, err := l.Complete(ctx, inFlight, oplog.Completion{Error: "the game answered after all"}); oplog.ErrorCode(err) != oplog.ECONFLICT {
		t.Fatalf("completed after crashed: %v, want ECONFLICT", err)
	}
}

// TestLog_Append_NextRunSettlesCallsInFlight: a run that ends crashed by
// the next run's start (its last record an error with a stack, no exit
// marker: a followed log) settles its calls in flight at that start,
// saying the game came back; a clean exit settles nothing.
func TestLog_Append_NextRunSettlesCallsInFlight(t *testing.T) {
	l := oplog.New(oplogtest.NewMemory(), nil)
	defer l.Close()
	ctx := context.Background()
	call := []oplog.Record{{Kind: oplog.KindOp, Source: "game", Tool: "spawn_enemy"}}
	oplogtest.MustAppend(t, l, oplog.Record{Kind: oplog.KindLine, Source: "game", Level: oplog.LevelInfo, Text: "ready"})
	if err := l.Append(ctx, call); err != nil {
		t.Fatal(err)
	}
	oplogtest.MustAppend(t, l, oplog.Record{Kind: oplog.KindLine, Source: "game", Level: oplog.LevelError,
		Text: "NullReferenceException: boss", Stack: "at Boss.Spawn () in Assets/Boss.cs:12"})
	next := []oplog.Record{{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Text: "run started"}}
	if err := l.Append(ctx, next); err != nil {
		t.Fatal(err)
	}
	r, _ := l.Get(ctx, call[0].ID)
	if r.Status != oplog.StatusCrashed || !strings.Contains(r.Error, "NullReferenceException: boss") ||
		!strings.Contains(r.Error, "game came back as run 2 (record #"+itoa(next[0].ID)+")") {
		t.Fatalf("the call in flight: %s %q", r.Status, r.Error)
	}

	clean := []oplog.Record{{Kind: oplog.KindOp, Source: "game", Tool: "ping"}}
	if err := l.Append(ctx, clean); err != nil {
		t.Fatal(err)
	}
	oplogtest.MustAppend(t, l, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Source: "game", Text: "game exited with status 0"})
	if r, _ := l.Get(ctx, clean[0].ID); r.Status != oplog.StatusPending {
		t.Fatalf("a call of a run that exited cleanly: %s, want pending", r.Status)
	}
}

// TestLog_Append_LateCallsOfACrashedRun: calls a bridge records after the
// crash's record are in flight too when still pending as the run ends: one
// recorded between the crash and the exit marker is settled by the
// marker, one posted after the exit with a start before it at once; one
// started after the exit went to a game that was gone and stays pending.
func TestLog_Append_LateCallsOfACrashedRun(t *testing.T) {
	l := oplog.New(oplogtest.NewMemory(), nil)
	defer l.Close()
	ctx := context.Background()
	t0 := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	recs := []oplog.Record{
		{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Time: at(0), Text: "run started: ./game"},
		{Kind: oplog.KindLine, Source: "game", Level: oplog.LevelFatal, Time: at(1), Text: "Received signal SIGSEGV",
			Stack: "0x00007f3a2b1c (game) EnemyPool::Grow(int)"},
		{Kind: oplog.KindOp, Source: "game", Tool: "spawn_enemy", Time: at(0.9), Arguments: []byte(`{"count":500}`)},
	}
	oplogtest.MustAppend(t, l, recs...)
	between := recs[2].ID
	if r, _ := l.Get(ctx, between); r.Status != oplog.StatusPending {
		t.Fatalf("before the exit: %s, want pending", r.Status)
	}
	oplogtest.MustAppend(t, l, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Source: "game", Level: oplog.LevelFatal,
		Time: at(1.2), Text: "game killed by SIGSEGV", Data: []byte(`{"signal":"SIGSEGV"}`)})
	if r, _ := l.Get(ctx, between); r.Status != oplog.StatusCrashed || !strings.Contains(r.Error, "SIGSEGV") {
		t.Fatalf("a call recorded between the crash and the exit: %s %q, want crashed", r.Status, r.Error)
	}
	late := []oplog.Record{
		{Kind: oplog.KindOp, Source: "game", Tool: "get_state", Time: at(1.1)},
		{Kind: oplog.KindOp, Source: "game", Tool: "ping", Time: at(5)},
	}
	oplogtest.MustAppend(t, l, late...)
	if r, _ := l.Get(ctx, late[0].ID); r.Status != oplog.StatusCrashed || r.Run != 1 || !strings.Contains(r.Error, "the game crashed during this call") {
		t.Fatalf("a call posted after the exit, started before it: %s run %d %q, want crashed", r.Status, r.Run, r.Error)
	}
	if r, _ := l.Get(ctx, late[1].ID); r.Status != oplog.StatusPending {
		t.Fatalf("a call started after the exit: %s, want pending", r.Status)
	}
}

// TestLog_Append_CrashedTextBounded: a crash whose exit is itself the
// crash (a signal) is told once, not twice; an exit text of 3,000
// characters is cut, marked, and leaves room for the run that came back
// within the 1 KB the error keeps.
func TestLog_Append_CrashedTextBounded(t *testing.T) {
	l := oplog.New(oplogtest.NewMemory(), nil)
	defer l.Close()
	ctx := context.Background()
	calls := []oplog.Record{{Kind: oplog.KindOp, Source: "game", Tool: "spawn_enemy"}}
	oplogtest.MustAppend(t, l, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Text: "run started"})
	if err := l.Append(ctx, calls); err != nil {
		t.Fatal(err)
	}
	exit := []oplog.Record{{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Source: "game", Level: oplog.LevelFatal,
		Text: "python3 killed by signal 11 (SIGSEGV)", Data: []byte(`{"signal":"SIGSEGV","signalNumber":11}`)}}
	if err := l.Append(ctx, exit); err != nil {
		t.Fatal(err)
	}
	want := "the game crashed during this call: python3 killed by signal 11 (SIGSEGV) (record #" + itoa(exit[0].ID) + ")"
	if r, _ := l.Get(ctx, calls[0].ID); r.Status != oplog.StatusCrashed || r.Error != want {
		t.Fatalf("the call under a signal: %s %q; want %q", r.Status, r.Error, want)
	}

	calls = []oplog.Record{{Kind: oplog.KindOp, Source: "game", Tool: "spawn_enemy"}}
	oplogtest.MustAppend(t, l, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Text: "run started"})
	if err := l.Append(ctx, calls); err != nil {
		t.Fatal(err)
	}
	oplogtest.MustAppend(t, l,
		oplog.Record{Kind: oplog.KindLine, Source: "game", Level: oplog.LevelFatal, Text: "Fatal error: " + strings.Repeat("é", 1000)},
		oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Source: "game", Level: oplog.LevelError,
			Text: "game exited with status 3: " + strings.Repeat("x", 3000), Data: []byte(`{"exitCode":3}`)},
		oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "game", Text: "run started"})
	r, _ := l.Get(ctx, calls[0].ID)
	oplog.AddComeback(ctx, l, &r)
	if r.Status != oplog.StatusCrashed || len(r.Error) > oplog.MaxCrashedErrorBytes || !strings.Contains(r.Error, "xxx…") ||
		!strings.HasSuffix(r.Error, "game came back as run 3 (record #"+itoa(r.ID+3)+")") {
		t.Fatalf("the call under a long exit text: %s, %d bytes: %q", r.Status, len(r.Error), r.Error)
	}
}

// TestStatus_Crashed: the status's name, spellings and level.
func TestStatus_Crashed(t *testing.T) {
	for _, s := range []string{"crashed", "CRASHED", "crash"} {
		if st, err := oplog.ParseStatus(s); err != nil || st != oplog.StatusCrashed {
			t.Errorf("ParseStatus(%q) = %v, %v", s, st, err)
		}
	}
	if oplog.StatusCrashed.String() != "crashed" || oplog.StatusCrashed.Level() != oplog.LevelError {
		t.Fatalf("crashed: %q at %s", oplog.StatusCrashed, oplog.StatusCrashed.Level())
	}
	// A call recorded after it ended may say it crashed.
	l := oplog.New(oplogtest.NewMemory(), nil)
	defer l.Close()
	recs := []oplog.Record{{Kind: oplog.KindOp, Source: "game", Tool: "spawn_enemy", Status: oplog.StatusCrashed, Error: "the game crashed"}}
	if err := l.Append(context.Background(), recs); err != nil || recs[0].Status != oplog.StatusCrashed || !recs[0].IsComplete() {
		t.Fatalf("append a crashed call: %v, %+v", err, recs[0])
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
