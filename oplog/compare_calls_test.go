package oplog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// callRun is a run of source game for appendCallRuns: the calls pending
// when it ends (in flight), the calls that ended before, and how it ends.
type callRun struct {
	pending, done []string // "tool args"
	failed        string   // a call that ended in an error, "" for none
	outcome       string   // crashed (a fatal line with stack), exited, or running
	stack         string   // the crash's frame, for its signature
}

// appendCallRuns appends runs, each a run marker, its ended calls, its
// pending calls, then its end, 10 s apart from t0, and returns the log.
func appendCallRuns(t *testing.T, runs ...callRun) (*oplog.Log, time.Time) {
	t.Helper()
	l, _ := logtest.MustOpenLog(t, nil)
	l.SetCrashes(crash.New(l, &crash.Options{Lazy: true}))
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	for i, r := range runs {
		base := t0.Add(time.Duration(i) * 10 * time.Second)
		at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
		op := func(call string, ms int) oplog.Record {
			var tool, args string
			fmt.Sscan(call, &tool, &args)
			return oplog.Record{Kind: oplog.KindOp, Source: "game", Tool: tool, Arguments: json.RawMessage(args), Time: at(ms)}
		}
		recs := []oplog.Record{{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "game", Text: "run", Time: at(0)}}
		for j, c := range r.done {
			rec := op(c, 100+j*10)
			rec.Status, rec.EndTime = oplog.StatusSuccess, at(105+j*10)
			recs = append(recs, rec)
		}
		if r.failed != "" {
			rec := op(r.failed, 300)
			rec.Status, rec.Error, rec.EndTime = oplog.StatusError, "no such level", at(310)
			recs = append(recs, rec)
		}
		for j, c := range r.pending {
			recs = append(recs, op(c, 500+j*10))
		}
		switch r.outcome {
		case oplog.OutcomeCrashed:
			recs = append(recs, oplog.Record{Source: "game", Level: oplog.LevelFatal, Text: "Crash!", Time: at(900),
				Stack: "Crash!\n  at " + r.stack + " (Assets/Game.cs:12)\n  at Game.Main.Update () (Assets/Main.cs:3)"})
		case oplog.OutcomeExited:
			recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: oplog.LevelInfo, Source: "game", Text: "exit status 0", Time: at(900)})
		}
		logtest.MustAppend(t, l, recs...)
	}
	return l, t0
}

// fiveRuns: spawn_enemy is in flight at both crashes and at neither clean
// end; save_game at one crash of two; ping in flight at every end alike;
// run 5, still running, counts for neither.
var fiveRuns = []callRun{
	{pending: []string{`spawn_enemy {"count":500}`, `ping {}`}, done: []string{`get_state {}`}, outcome: oplog.OutcomeCrashed, stack: "Game.Spawner.Spawn ()"},
	{pending: []string{`ping {}`}, done: []string{`spawn_enemy {"count":5}`}, failed: `load_level {"name":"Arena"}`, outcome: oplog.OutcomeExited},
	{pending: []string{`spawn_enemy {"count":250}`, `ping {}`, `save_game {"slot":1}`}, outcome: oplog.OutcomeCrashed, stack: "Game.Saver.Save ()"},
	{pending: []string{`ping {}`}, outcome: oplog.OutcomeExited},
	{pending: []string{`spawn_enemy {"count":9}`}, outcome: oplog.OutcomeRunning},
}

// TestCallRecurrence_OverRepresented: the shapes of the ended runs'
// calls, crashed against clean, most tied to the crashes first; only
// those whose share of the crashed runs is clearly larger are
// over-represented (in flight, not only among the last calls: get_state
// before run 1's crash); Runs reads only the newest; a Signature leaves out
// the runs another crash ended.
func TestCallRecurrence_OverRepresented(t *testing.T) {
	l, _ := appendCallRuns(t, fiveRuns...)
	ctx := context.Background()
	rec, err := oplog.CallRecurrence(ctx, l, oplog.RecurrenceQuery{Source: "game"})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range rec.OverRepresented(oplog.RecurTop) {
		lines = append(lines, rec.Line(&s))
	}
	want := []string{
		"spawn_enemy {count} in flight in 2 of 2 crashed runs, 0 of 2 clean; among the last calls in 0 of 2 crashed, 1 of 2 clean",
		"save_game {slot} in flight in 1 of 2 crashed runs, 0 of 2 clean",
	}
	if rec.Crashed != 2 || rec.Clean != 2 || fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("%d crashed, %d clean, over-represented:\n%q\nwant\n%q\nall: %+v", rec.Crashed, rec.Clean, lines, want, rec.Shapes)
	}
	if len(rec.Shapes) != 5 || rec.Shapes[0].Shape != "spawn_enemy {count}" { // ping, get_state and load_level too
		t.Errorf("shapes: %+v", rec.Shapes)
	}
	if over := rec.OverRepresented(1); len(over) != 1 || over[0].Shape != "spawn_enemy {count}" {
		t.Errorf("OverRepresented(1) = %+v", over)
	}

	// The newest two ended runs: run 3 crashed, run 4 clean.
	if rec, err = oplog.CallRecurrence(ctx, l, oplog.RecurrenceQuery{Source: "game", Runs: 2}); err != nil || rec.Crashed != 1 || rec.Clean != 1 {
		t.Errorf("Runs 2: %d crashed, %d clean (%v), want 1 and 1", rec.Crashed, rec.Clean, err)
	}

	// Run 1's crash alone: run 3 crashed of another.
	p, err := l.FindCrashes(ctx, oplog.CrashQuery{Runs: map[string]uint64{"game": 1}, Limit: 1})
	if err != nil || len(p.Groups) != 1 {
		t.Fatalf("run 1's crash: %+v, %v", p.Groups, err)
	}
	rec, err = oplog.CallRecurrence(ctx, l, oplog.RecurrenceQuery{Source: "game", Signature: p.Groups[0].Signature})
	if err != nil || rec.Crashed != 1 || rec.Clean != 2 {
		t.Fatalf("signature: %d crashed, %d clean (%v), want 1 and 2", rec.Crashed, rec.Clean, err)
	}
	if over := rec.OverRepresented(oplog.RecurTop); len(over) != 1 || over[0].Shape != "spawn_enemy {count}" {
		t.Errorf("signature: over-represented %+v, want spawn_enemy alone (save_game was in run 3)", over)
	}
	if _, err := oplog.CallRecurrence(ctx, l, oplog.RecurrenceQuery{}); oplog.ErrorCode(err) != oplog.EINVALID {
		t.Errorf("no source: %v, want EINVALID", err)
	}
}

// TestLog_CompareRuns_Calls: a comparison names the call shapes
// over-represented in the source's crashed runs, whichever two runs it
// compares; none when no run crashed.
func TestLog_CompareRuns_Calls(t *testing.T) {
	l, _ := appendCallRuns(t, fiveRuns...)
	c, err := l.CompareRuns(context.Background(), oplog.CompareQuery{Source: "game"})
	if err != nil || len(c.Sources) != 1 {
		t.Fatalf("%+v, %v", c, err)
	}
	calls := c.Sources[0].Calls
	if calls == nil || calls.Crashed != 2 || calls.Clean != 2 || len(calls.Shapes) != 2 ||
		calls.Shapes[0].Shape != "spawn_enemy {count}" || calls.Shapes[1].Shape != "save_game {slot}" {
		t.Errorf("calls = %+v, want spawn_enemy then save_game of 2 crashed and 2 clean runs", calls)
	}
	b, _ := json.Marshal(c.Sources[0])
	t.Logf("%s", b)

	clean, _ := appendCallRuns(t, fiveRuns[1], fiveRuns[3])
	c, err = clean.CompareRuns(context.Background(), oplog.CompareQuery{Source: "game"})
	if err != nil || len(c.Sources) != 1 || c.Sources[0].Calls != nil {
		t.Errorf("no crashed run: %+v, %v; want no calls", c.Sources, err)
	}
}

// TestCountCalls: the calls of a range by shape, the most made first,
// then those more of which crashed (in flight when their run crashed) or
// failed; FirstID and LastID bound the range, Top the shapes.
func TestCountCalls(t *testing.T) {
	l, _ := appendCallRuns(t, fiveRuns...)
	ctx := context.Background()
	c, err := oplog.CountCalls(ctx, l, oplog.CallCountQuery{Filter: oplog.Filter{Source: "game"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range c.Shapes {
		got = append(got, fmt.Sprintf("%s ×%d %d crashed %d failed", s.Shape, s.Count, s.Crashed, s.Failed))
	}
	want := []string{
		"ping {} ×4 2 crashed 0 failed",
		"spawn_enemy {count} ×4 2 crashed 0 failed", // run 5's is still pending
		"save_game {slot} ×1 1 crashed 0 failed",
		"load_level {name} ×1 0 crashed 1 failed",
		"get_state {} ×1 0 crashed 0 failed",
	}
	if c.Calls != 11 || c.Capped || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%d calls (capped %v):\n%q\nwant\n%q", c.Calls, c.Capped, got, want)
	}

	// Run 2's records alone, by ID; the top one.
	runs, err := l.Runs(ctx, "game")
	if err != nil {
		t.Fatal(err)
	}
	r2 := runs[1]
	c, err = oplog.CountCalls(ctx, l, oplog.CallCountQuery{FirstID: r2.FirstID, LastID: r2.LastID, Top: 1})
	if err != nil || c.Calls != 3 || len(c.Shapes) != 1 || c.Shapes[0].Shape != "load_level {name}" || c.Shapes[0].Failed != 1 {
		t.Errorf("run 2: %+v, %v; want 3 calls, load_level (failed) first", c, err)
	}
}
