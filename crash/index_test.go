package crash_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// mustOpen opens a Log over a real store with an Index, both closed at cleanup.
func mustOpen(t *testing.T, opts *store.Options) (*oplog.Log, *crash.Index) {
	t.Helper()
	l, _ := logtest.MustOpenLog(t, opts)
	x := crash.New(l, nil)
	l.SetCrashes(x)
	return l, x
}

// lagging is a Source whose Changed never fires, so that the background
// reader only runs at start (and once an hour): every later record must be
// found by the query itself.
type lagging struct{ *oplog.Log }

func (lagging) Changed() <-chan struct{} { return nil }

func crashLine(stack string, seed int, at time.Time, source string) oplog.Record {
	return oplog.Record{Level: oplog.LevelError, Name: "Game", Source: source, Time: at,
		Text: fmt.Sprintf("frame %d failed", seed), Stack: fill(stack, seed)}
}

func find(t *testing.T, l *oplog.Log, q oplog.CrashQuery) oplog.CrashPage {
	t.Helper()
	p, err := l.FindCrashes(context.Background(), q)
	if err != nil {
		t.Fatalf("FindCrashes(%+v): %v", q, err)
	}
	return p
}

// TestIndex_FindCrashes_SameCrash500: one crash 500 times, from other lines
// and addresses, among other records, is one group with count 500.
func TestIndex_FindCrashes_SameCrash500(t *testing.T) {
	l, _ := mustOpen(t, nil)
	var recs []oplog.Record
	for i := range 500 {
		recs = append(recs, crashLine(goPanic, i, t0.Add(time.Duration(i)*time.Second), "game"))
		recs = append(recs, oplog.Record{Level: oplog.LevelInfo, Text: "tick", Time: t0.Add(time.Duration(i) * time.Second)})
		if i%50 == 0 { // a warning with a stack is not a crash
			recs = append(recs, oplog.Record{Level: oplog.LevelWarn, Text: "slow", Stack: fill(java, i), Time: t0})
		}
	}
	logtest.MustAppend(t, l, recs...)
	p := find(t, l, oplog.CrashQuery{})
	if len(p.Groups) != 1 || p.Total != 1 {
		t.Fatalf("%d groups (total %d), want 1: %+v", len(p.Groups), p.Total, p.Groups)
	}
	g := p.Groups[0]
	if g.Count != 500 || !g.FirstSeen.Equal(t0) || !g.LastSeen.Equal(t0.Add(499*time.Second)) ||
		g.ExampleID != recs[0].ID || g.LastID != recs[len(recs)-2].ID || len(g.Sources) != 1 || g.Sources[0] != "game" {
		t.Errorf("group %+v", g)
	}
	if !strings.HasPrefix(g.Title, "panic: runtime error: index out of range [") || !strings.Contains(g.Title, " in main.(*World).spawn(") {
		t.Errorf("title %q", g.Title)
	}
}

// TestIndex_FindCrashes_Groups: different crashes are different groups,
// newest first, with the limit and total; failed operations count when
// their error is a stack.
func TestIndex_FindCrashes_Groups(t *testing.T) {
	l, _ := mustOpen(t, nil)
	logtest.MustAppend(t, l,
		crashLine(unityAt, 1, t0, "unity"),
		crashLine(lua, 1, t0.Add(1*time.Minute), "lua-ecs"),
		crashLine(unityAt, 2, t0.Add(2*time.Minute), "unity"),
		crashLine(java, 1, t0.Add(3*time.Minute), "mc"),
		crashLine(unityAt, 3, t0.Add(4*time.Minute), "editor"),
		oplog.Record{Tool: "run_lua", Arguments: json.RawMessage(`{"code":"x()"}`), Status: oplog.StatusError,
			Error: fill(luaOther, 1), Time: t0.Add(5 * time.Minute), Source: "lua-ecs"},
		// A failed operation with a one-line error is not a crash.
		oplog.Record{Tool: "run_lua", Status: oplog.StatusError, Error: "NullReferenceException: Object reference not set", Time: t0},
		// An error line without a stack is not a crash; a fatal one is,
		// and the crash of its run.
		oplog.Record{Level: oplog.LevelError, Text: "could not load texture", Time: t0},
		oplog.Record{Level: oplog.LevelFatal, Text: "out of memory", Time: t0},
	)
	p := find(t, l, oplog.CrashQuery{})
	var got []string
	for _, g := range p.Groups {
		got = append(got, fmt.Sprintf("%d %s/%d %s %v", g.Count, g.Class, g.RunsEnded, g.Title, g.Sources))
	}
	// The crash that ended a run first; then the others newest first, each
	// titled by its newest message and the game's own frame (the JDK's and
	// Lua's C frames passed over; Minecraft's own when nothing else is).
	want := []string{
		"1 crash/1 out of memory [default]",
		"1 error/0 game/systems/ai.lua:4759: attempt to call a nil value (method 'think') in game/systems/ai.lua:4828: in upvalue 'step' [lua-ecs]",
		"3 error/0 frame 3 failed in Player.Update () (at Assets/Scripts/Player.cs:4265) [editor unity]",
		"1 error/0 java.lang.NullPointerException: Cannot invoke \"net.minecraft.entity.Entity.getPos()\" because \"entity\" is null in net.minecraft.client.render.WorldRenderer.renderEntity(WorldRenderer.java:4759) [mc]",
		"1 error/0 game/systems/physics.lua:4759: attempt to index a nil value (field 'velocity') in game/systems/physics.lua:4828: in function <game/systems/physics.lua:4247> [lua-ecs]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || p.Total != 5 {
		t.Errorf("groups (total %d):\n%q, want\n%q", p.Total, got, want)
	}
	if p := find(t, l, oplog.CrashQuery{Limit: 2}); len(p.Groups) != 2 || p.Total != 5 {
		t.Errorf("limit 2: %d groups, total %d", len(p.Groups), p.Total)
	}
}

// TestIndex_FindCrashes_Filters: since, until and source select
// occurrences, and counts, first/last seen and example follow them.
func TestIndex_FindCrashes_Filters(t *testing.T) {
	l, _ := mustOpen(t, nil)
	var recs []oplog.Record
	for i := range 60 {
		src := "unity"
		if i%3 == 0 {
			src = "editor"
		}
		recs = append(recs, crashLine(unityMono, i, t0.Add(time.Duration(i)*time.Minute), src))
	}
	logtest.MustAppend(t, l, recs...)
	for _, tc := range []struct {
		name        string
		q           oplog.CrashQuery
		count       int
		first, last int // minutes after t0
	}{
		{"All", oplog.CrashQuery{}, 60, 0, 59},
		{"Since", oplog.CrashQuery{Since: t0.Add(50 * time.Minute)}, 10, 50, 59},
		{"Until", oplog.CrashQuery{Until: t0.Add(10 * time.Minute)}, 10, 0, 9},
		{"Range", oplog.CrashQuery{Since: t0.Add(10 * time.Minute), Until: t0.Add(20 * time.Minute)}, 10, 10, 19},
		{"Source", oplog.CrashQuery{Source: "editor"}, 20, 0, 57},
		{"SourceAndRange", oplog.CrashQuery{Source: "unity", Since: t0.Add(30 * time.Minute)}, 20, 31, 59},
		{"None", oplog.CrashQuery{Source: "nobody"}, 0, 0, 0},
		{"NoneInRange", oplog.CrashQuery{Since: t0.Add(time.Hour)}, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := find(t, l, tc.q)
			if tc.count == 0 {
				if len(p.Groups) != 0 || p.Total != 0 {
					t.Fatalf("groups %+v, want none", p.Groups)
				}
				return
			}
			if len(p.Groups) != 1 {
				t.Fatalf("%d groups, want 1", len(p.Groups))
			}
			g := p.Groups[0]
			if g.Count != tc.count || !g.FirstSeen.Equal(t0.Add(time.Duration(tc.first)*time.Minute)) ||
				!g.LastSeen.Equal(t0.Add(time.Duration(tc.last)*time.Minute)) || g.ExampleID != recs[tc.first].ID || g.LastID != recs[tc.last].ID {
				t.Errorf("group %+v, want count %d, minutes %d..%d", g, tc.count, tc.first, tc.last)
			}
		})
	}
}

func TestLog_FindCrashes_Invalid(t *testing.T) {
	l, _ := mustOpen(t, nil)
	for _, q := range []oplog.CrashQuery{{Limit: -1}, {Since: t0, Until: t0}} {
		if _, err := l.FindCrashes(context.Background(), q); oplog.ErrorCode(err) != oplog.EINVALID {
			t.Errorf("%+v: %v, want EINVALID", q, err)
		}
	}
	bare, _ := logtest.MustOpenLog(t, nil)
	if _, err := bare.FindCrashes(context.Background(), oplog.CrashQuery{}); oplog.ErrorCode(err) != oplog.EUNAVAILABLE {
		t.Errorf("without an index: %v, want EUNAVAILABLE", err)
	}
}

// TestIndex_FindCrashes_Lagging: with a background reader that never
// wakes, appends are found by the query at once, and the reader's own
// progress is not needed.
func TestIndex_FindCrashes_Lagging(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l, crashLine(java, 1, t0, "mc"))
	x := crash.New(lagging{l}, &crash.Options{Interval: time.Hour})
	l.SetCrashes(x)
	for round := range 5 {
		var recs []oplog.Record
		for i := range 200 {
			recs = append(recs, crashLine(java, 1000*round+i, t0.Add(time.Duration(round)*time.Minute), "mc"))
			recs = append(recs, crashLine(goNil, i, t0, "go"))
		}
		logtest.MustAppend(t, l, recs...)
		p := find(t, l, oplog.CrashQuery{Source: "mc"})
		if len(p.Groups) != 1 || p.Groups[0].Count != 1+200*(round+1) || p.LastID != recs[len(recs)-1].ID {
			t.Fatalf("round %d: %+v (lastId %d)", round, p.Groups, p.LastID)
		}
	}
	if x.Covered() != l.Stats().LastID {
		t.Errorf("covered %d, want %d: the queries' reads count for the index", x.Covered(), l.Stats().LastID)
	}
}

// TestIndex_Background: the background reader catches up by itself (the
// initial build, then new records) without a query.
func TestIndex_Background(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	var recs []oplog.Record
	for i := range 3000 {
		recs = append(recs, crashLine(lua, i, t0, "lua"), oplog.Record{Level: oplog.LevelDebug, Text: "x"})
	}
	logtest.MustAppend(t, l, recs...)
	x := crash.New(l, nil)
	l.SetCrashes(x)
	logtest.Eventually(t, 10*time.Second, "the initial build", func() bool { return x.Covered() == l.Stats().LastID })
	logtest.MustAppend(t, l, crashLine(lua, 1, t0, "lua"))
	logtest.Eventually(t, 10*time.Second, "the new record", func() bool { return x.Covered() == l.Stats().LastID })
	if p := find(t, l, oplog.CrashQuery{}); len(p.Groups) != 1 || p.Groups[0].Count != 3001 {
		t.Errorf("%+v", p.Groups)
	}
}

// TestIndex_FindCrashes_PendingOperation: an operation read while pending
// and completed later with a stack is found.
func TestIndex_FindCrashes_PendingOperation(t *testing.T) {
	l, _ := mustOpen(t, nil)
	ops := logtest.MustAppend(t, l,
		oplog.Record{Tool: "execute_code", Arguments: json.RawMessage(`{"code":"x"}`), Time: t0},
		oplog.Record{Tool: "execute_code", Arguments: json.RawMessage(`{"code":"y"}`), Time: t0},
	)
	logtest.MustAppend(t, l, crashLine(javaOther, 1, t0, "mc"))
	if p := find(t, l, oplog.CrashQuery{}); p.Total != 1 {
		t.Fatalf("before completion: %+v", p.Groups)
	}
	ctx := context.Background()
	if _, err := l.Complete(ctx, ops[0].ID, oplog.Completion{Status: oplog.StatusError, Error: fill(unityMono, 5)}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Complete(ctx, ops[1].ID, oplog.Completion{Status: oplog.StatusSuccess}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // asking again finds it once
		p := find(t, l, oplog.CrashQuery{})
		if p.Total != 2 || p.Groups[1].ExampleID != ops[0].ID || p.Groups[1].Count != 1 ||
			p.Groups[1].Title != "NullReferenceException: Object reference not set to an instance of an object in Player.Update () in <9f3c2a1b0d4e4f6a8b7c6d5e4f3a2b1c>:0" {
			t.Errorf("after completion: %+v", p.Groups)
		}
	}
}

// TestIndex_FindCrashes_Retention: occurrences that retention removed are
// no longer counted; a cleared log has no crashes.
func TestIndex_FindCrashes_Retention(t *testing.T) {
	l, _ := mustOpen(t, &store.Options{MaxRecords: 100, TrimBatch: 50})
	first := logtest.MustAppend(t, l, crashLine(gdb, 1, t0, "server"), crashLine(python, 1, t0, "tools"))
	if p := find(t, l, oplog.CrashQuery{}); p.Total != 2 {
		t.Fatalf("before: %+v", p.Groups)
	}
	var recs []oplog.Record
	for i := range 150 {
		recs = append(recs, crashLine(gdb, i, t0.Add(time.Second), "server"))
	}
	logtest.MustAppend(t, l, recs...)
	logtest.Eventually(t, 10*time.Second, "retention", func() bool { return l.Stats().Records <= 100 })
	p := find(t, l, oplog.CrashQuery{})
	st := l.Stats()
	if p.Total != 1 || p.Groups[0].Count != int(st.Records) || p.Groups[0].ExampleID != st.FirstID || p.Groups[0].ExampleID <= first[1].ID {
		t.Errorf("after retention (first ID %d, %d records): %+v", st.FirstID, st.Records, p.Groups)
	}
	if _, err := l.Clear(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := find(t, l, oplog.CrashQuery{}); p.Total != 0 {
		t.Errorf("after clear: %+v", p.Groups)
	}
	logtest.MustAppend(t, l, crashLine(python, 9, t0, "tools"))
	if p := find(t, l, oplog.CrashQuery{}); p.Total != 1 || p.Groups[0].Count != 1 {
		t.Errorf("after clear and one crash: %+v", p.Groups)
	}
}

func TestIndex_Close(t *testing.T) {
	l, x := mustOpen(t, nil)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := x.FindCrashes(context.Background(), oplog.CrashQuery{Limit: 1}); err != oplog.ErrClosed {
		t.Errorf("after close: %v, want ErrClosed", err)
	}
	if _, err := l.FindCrashes(context.Background(), oplog.CrashQuery{}); err != oplog.ErrClosed {
		t.Errorf("log after close: %v, want ErrClosed", err)
	}
}

// TestIndex_Lazy: with no background reader, queries read what they need,
// and nothing is read before the first one.
func TestIndex_Lazy(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l, crashLine(java, 1, t0, "mc"), crashLine(java, 2, t0, "mc"))
	x := crash.New(l, &crash.Options{Lazy: true})
	l.SetCrashes(x)
	if c := x.Covered(); c != 0 {
		t.Fatalf("a lazy index read %d records before any query", c)
	}
	p := find(t, l, oplog.CrashQuery{})
	if len(p.Groups) != 1 || p.Groups[0].Count != 2 {
		t.Fatalf("lazy index: %+v", p.Groups)
	}
}
