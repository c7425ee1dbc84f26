package studio_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/studio"
)

const nre = "NullReferenceException: Object reference not set to an instance of an object"

// crashRows are machine's crashes: n occurrences of the same stack (lines
// differ, as builds do), from second t0 on, IDs from id0.
func crashRows(machine string, id0, seq0 uint64, t0, n int, text, stack string) []map[string]any {
	var rows []map[string]any
	for i := range n {
		st := fmt.Sprintf(stack, 40+i)
		r := oplog.Record{ID: id0 + uint64(i), Kind: oplog.KindLine, Level: oplog.LevelError, Source: "unity",
			Time: base.Add(time.Duration(t0+i) * time.Second), Text: text, Stack: st}
		sig := crash.Parse(st).WithHead(text).Signature()
		rows = append(rows, studiotest.Row("game", machine, 1, seq0+uint64(i), &r, sig))
	}
	return rows
}

func mustStudio(t *testing.T, url string) *studio.Client {
	t.Helper()
	c, err := studio.NewClient(studio.ClientOptions{URL: url, Project: "game"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClient_FindCrashes_TwoMachines: the same crash on two machines is one
// group with the total count, first and last seen over both, and each
// machine with its count; another project's crash is not in it.
func TestClient_FindCrashes_TwoMachines(t *testing.T) {
	t.Run("SingleNode", func(t *testing.T) { testFindCrashesTwoMachines(t, studiotest.Start(t)) })
	t.Run("Cluster", func(t *testing.T) { testFindCrashesTwoMachines(t, studiotest.StartCluster(t)) })
}

func testFindCrashesTwoMachines(t *testing.T, url string) {
	player := "NullReferenceException\n  at Player.Update () in Assets/Player.cs:%d"
	rows := crashRows("alice-pc", 10, 1, 0, 3, nre, player)
	rows = append(rows, crashRows("ci-7", 500, 1, 10, 2, nre, player)...)
	rows = append(rows, crashRows("ci-7", 600, 3, 20, 1, "IndexOutOfRangeException", "IndexOutOfRangeException\n  at Inventory.Get () in Inv.cs:%d")...)
	other := crashRows("alice-pc", 900, 9, 30, 4, nre, player)
	for _, r := range other {
		r["project"] = "other-game"
	}
	studiotest.Ingest(t, url, append(rows, other...))
	c := mustStudio(t, url)

	p, err := c.FindCrashes(context.Background(), oplog.StudioCrashQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 2 || len(p.Groups) != 2 {
		t.Fatalf("got %d groups (total %d), want 2: %+v", len(p.Groups), p.Total, p.Groups)
	}
	idx, npe := p.Groups[0], p.Groups[1] // newest first
	if npe.Count != 5 || !slices.Equal(npe.Machines, []oplog.MachineCount{{Machine: "alice-pc", Count: 3}, {Machine: "ci-7", Count: 2}}) {
		t.Errorf("NullReferenceException: count %d, machines %+v; want 5 over alice-pc ×3 and ci-7 ×2", npe.Count, npe.Machines)
	}
	if !npe.FirstSeen.Equal(base) || !npe.LastSeen.Equal(base.Add(11*time.Second)) ||
		npe.FirstMachine != "alice-pc" || npe.ExampleID != 10 || npe.LastMachine != "ci-7" || npe.LastID != 501 {
		t.Errorf("NullReferenceException: first %v on %s #%d, last %v on %s #%d", npe.FirstSeen, npe.FirstMachine, npe.ExampleID,
			npe.LastSeen, npe.LastMachine, npe.LastID)
	}
	if npe.Title == "" || len(npe.Frames) == 0 || !slices.Equal(npe.Sources, []string{"unity"}) {
		t.Errorf("NullReferenceException: title %q, frames %v, sources %v", npe.Title, npe.Frames, npe.Sources)
	}
	if idx.Count != 1 || len(idx.Machines) != 1 || idx.Machines[0].Machine != "ci-7" {
		t.Errorf("IndexOutOfRangeException: %+v", idx)
	}

	// machine and time narrow the groups.
	p, err = c.FindCrashes(context.Background(), oplog.StudioCrashQuery{Machine: "alice-pc"})
	if err != nil || len(p.Groups) != 1 || p.Groups[0].Count != 3 {
		t.Errorf("machine alice-pc: %+v, %v; want one group of 3", p.Groups, err)
	}
	p, err = c.FindCrashes(context.Background(), oplog.StudioCrashQuery{Since: base.Add(10 * time.Second), Limit: 1})
	if err != nil || p.Total != 2 || len(p.Groups) != 1 || p.Groups[0].Count != 1 {
		t.Errorf("since 10 s, limit 1: %+v (total %d), %v; want the newest group of the two", p.Groups, p.Total, err)
	}
}

// TestClient_NewestRowWins: an operation forwarded as started and then as
// completed shows once, as completed, in lists, searches, details and
// names; the same ID on two machines (or two revisions) are two records.
func TestClient_NewestRowWins(t *testing.T) {
	url := studiotest.Start(t)
	op := oplog.Record{ID: 7, Kind: oplog.KindOp, Level: oplog.LevelInfo, Source: "agent", Name: "build", Tool: "build",
		Status: oplog.StatusPending, Time: base, Text: "build player"}
	done := op
	done.Status, done.Level = oplog.StatusError, oplog.LevelError
	line := oplog.Record{ID: 7, Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "unity", Time: base.Add(time.Second), Text: "other machine"}
	old := line
	old.Text = "before the log was cleared"
	studiotest.Ingest(t, url, []map[string]any{
		studiotest.Row("game", "m1", 1, 1, &op, ""), studiotest.Row("game", "m1", 1, 2, &done, ""),
		studiotest.Row("game", "m2", 1, 1, &line, ""), studiotest.Row("game", "m2", 0, 1, &old, ""),
	})
	c := mustStudio(t, url)
	ctx := context.Background()

	page, err := c.List(ctx, oplog.StudioListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range page.Records {
		got = append(got, fmt.Sprintf("%s/%d/%d:%s", r.Machine, r.Revision, r.ID, r.Status))
	}
	if want := []string{"m2/1/7:", "m2/0/7:", "m1/1/7:error"}; !slices.Equal(got, want) {
		t.Errorf("list: %v, want %v", got, want)
	}
	for status, want := range map[oplog.Status]int{oplog.StatusPending: 0, oplog.StatusError: 1} {
		p, err := c.Search(ctx, oplog.StudioSearchQuery{SearchQuery: oplog.SearchQuery{Status: status}})
		if err != nil || len(p.Hits) != want {
			t.Errorf("status %s: %d hits (%v), want %d", status, len(p.Hits), err, want)
		}
	}
	r, err := c.Get(ctx, "m1", 7)
	if err != nil || r.Status != oplog.StatusError || r.Machine != "m1" {
		t.Errorf("get m1 #7: %+v, %v; want the completed row", r, err)
	}
	if r, err := c.Get(ctx, "m2", 7); err != nil || r.Text != "other machine" {
		t.Errorf("get m2 #7: %q, %v; want the newest revision's", r.Text, err)
	}
	if _, err := c.Get(ctx, "m3", 7); oplog.ErrorCode(err) != oplog.ENOTFOUND {
		t.Errorf("get m3 #7: %v, want ENOTFOUND", err)
	}
	names, err := c.Names(ctx, "agent", "")
	if err != nil || len(names) != 1 || names[0].Total != 1 || names[0].Count(oplog.KindOp, oplog.LevelError) != 1 {
		t.Errorf("names of agent: %+v, %v; want build once, at error", names, err)
	}
	if n := studiotest.Count(t, url, `{project="game"}`); n != 4 {
		t.Errorf("VictoriaLogs holds %d rows, want 4", n)
	}
}

// TestClient_Unreachable: VictoriaLogs down is EUNAVAILABLE naming it.
func TestClient_Unreachable(t *testing.T) {
	c := mustStudio(t, "http://127.0.0.1:1")
	_, err := c.FindCrashes(context.Background(), oplog.StudioCrashQuery{})
	if oplog.ErrorCode(err) != oplog.EUNAVAILABLE {
		t.Errorf("got %v, want EUNAVAILABLE", err)
	}
	if _, err := studio.NewClient(studio.ClientOptions{URL: "victoria:9428", Project: "g"}); oplog.ErrorCode(err) != oplog.EINVALID {
		t.Errorf("bad url: %v, want EINVALID", err)
	}
}

// TestClient_FindCrashes_Classes: across machines as on one, a group with
// a fatal occurrence is a crash and comes first with the runs it ended,
// errors next; compile diagnostics only when asked for; level fatal keeps
// the crashes.
func TestClient_FindCrashes_Classes(t *testing.T) {
	url := studiotest.Start(t)
	row := func(id uint64, level oplog.Level, name, text, stack string) map[string]any {
		r := oplog.Record{ID: id, Kind: oplog.KindLine, Level: level, Source: "unity", Name: name,
			Time: base.Add(time.Duration(id) * time.Second), Text: text, Stack: stack, Run: 1}
		sig, ok := crash.RecordSignature(&r)
		if !ok {
			t.Fatalf("record %d is no crash", id)
		}
		return studiotest.Row("game", "alice-pc", 1, id, &r, sig)
	}
	studiotest.Ingest(t, url, []map[string]any{
		row(1, oplog.LevelFatal, "", "Received signal SIGSEGV", "at Player.Update () in Assets/Player.cs:42"),
		row(2, oplog.LevelError, "", nre, "at Inventory.Sort () in Assets/Inventory.cs:17"),
		row(3, oplog.LevelError, "compiler", "Assets/A.cs(3,1): error CS1002: ; expected", "Assets/A.cs(3,1)"),
	})
	c, err := studio.NewClient(studio.ClientOptions{URL: url, Project: "game"})
	if err != nil {
		t.Fatal(err)
	}
	classes := func(q oplog.StudioCrashQuery) string {
		t.Helper()
		p, err := c.FindCrashes(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range p.Groups {
			out = append(out, fmt.Sprintf("%s/%s/%d#%d", g.Class, g.Level, g.RunsEnded, g.LastID))
		}
		return fmt.Sprint(out)
	}
	for _, tc := range []struct {
		q    oplog.StudioCrashQuery
		want string
	}{
		{oplog.StudioCrashQuery{}, "[crash/fatal/1#1 error/error/0#2]"},
		{oplog.StudioCrashQuery{Classes: []string{oplog.ClassCompile}}, "[compile/error/0#3]"},
		{oplog.StudioCrashQuery{MinLevel: oplog.LevelFatal}, "[crash/fatal/1#1]"},
		{oplog.StudioCrashQuery{Classes: oplog.CrashClasses}, "[crash/fatal/1#1 error/error/0#2 compile/error/0#3]"},
	} {
		if got := classes(tc.q); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.q, got, tc.want)
		}
	}
	if _, err := c.FindCrashes(context.Background(), oplog.StudioCrashQuery{Classes: []string{"bugs"}}); oplog.ErrorCode(err) != oplog.EINVALID {
		t.Errorf("class bugs: %v", err)
	}
}
