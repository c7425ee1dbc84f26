package oplogtest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Runs and markers (oplog's marker.go): every store that keeps runs.

func line(source string, level oplog.Level, text string) oplog.Record {
	return oplog.Record{Source: source, Level: level, Text: text}
}

func marker(source, name, text string) oplog.Record {
	return oplog.Record{Source: source, Kind: oplog.KindMarker, Name: name, Text: text}
}

func runs(t *testing.T, l *oplog.Log, source string) []oplog.RunInfo {
	t.Helper()
	rs, err := l.Runs(t.Context(), source)
	if err != nil {
		t.Fatalf("Runs(%q): %v", source, err)
	}
	return rs
}

func runNumbers(recs []oplog.Record) []uint64 {
	var out []uint64
	for _, r := range recs {
		out = append(out, r.Run)
	}
	return out
}

func testRunsNumberedPerSource(t *testing.T, open Opener) {
	st := open(t)
	l := oplog.New(st, nil)
	t.Cleanup(func() { _ = l.Close() })
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(r oplog.Record, s int) oplog.Record { r.Time = t0.Add(time.Duration(s) * time.Second); return r }
	first := MustAppend(t, l, at(line("unity", oplog.LevelInfo, "a"), 0), at(line("godot", oplog.LevelError, "b"), 1),
		at(oplog.Record{Source: "unity", Level: oplog.LevelInfo, Text: "run is the store's", Run: 99}, 2))
	second := MustAppend(t, l, at(marker("unity", oplog.MarkerRun, "Unity started"), 3), at(line("unity", oplog.LevelError, "c"), 4),
		at(marker("godot", oplog.MarkerCompileStart, "reload"), 5), at(marker("mc", oplog.MarkerRun, "Minecraft started"), 6),
		at(line("mc", oplog.LevelFatal, "d"), 7))
	third := MustAppend(t, l, at(marker("unity", oplog.MarkerRun, "again"), 8), at(line("unity", oplog.LevelWarn, "e"), 9))
	if got := fmt.Sprint(runNumbers(first), runNumbers(second), runNumbers(third)); got != "[1 1 1] [2 2 1 1 1] [3 3]" {
		t.Fatalf("runs of the records: %s; want [1 1 1] [2 2 1 1 1] [3 3]", got)
	}
	if r, err := l.Get(t.Context(), second[1].ID); err != nil || r.Run != 2 {
		t.Fatalf("stored run of %d: %+v, %v", second[1].ID, r, err)
	}
	all := runs(t, l, "")
	want := []oplog.RunInfo{
		{Source: "godot", Run: 1, Start: t0.Add(time.Second), FirstID: first[1].ID, LastID: second[2].ID, Records: 2, Errors: 1},
		{Source: "mc", Run: 1, Start: t0.Add(6 * time.Second), FirstID: second[3].ID, LastID: second[4].ID, Records: 2, Errors: 1},
		{Source: "unity", Run: 1, Start: t0, FirstID: first[0].ID, LastID: first[2].ID, Records: 2},
		{Source: "unity", Run: 2, Start: t0.Add(3 * time.Second), FirstID: second[0].ID, LastID: second[1].ID, Records: 2, Errors: 1},
		{Source: "unity", Run: 3, Start: t0.Add(8 * time.Second), FirstID: third[0].ID, LastID: third[1].ID, Records: 2},
	}
	if !equalRuns(all, want) {
		t.Fatalf("Runs(\"\"):\n got %+v\nwant %+v", all, want)
	}
	if u := runs(t, l, "unity"); !equalRuns(u, want[2:]) {
		t.Fatalf("Runs(unity): %+v", u)
	}
	if none := runs(t, l, "nobody"); len(none) != 0 {
		t.Fatalf("Runs(nobody): %+v", none)
	}
	rs := st.(oplog.RunStore)
	for _, c := range []struct {
		source string
		run    uint64
		want   []oplog.RunInfo
	}{{"unity", 0, want[4:]}, {"unity", 2, want[3:4]}, {"unity", 4, nil}, {"godot", 0, want[:1]}, {"mc", 1, want[1:2]},
		{"unit", 0, nil}, {"nobody", 0, nil}} {
		got, ok, err := rs.Run(c.source, c.run)
		if err != nil || ok != (c.want != nil) || ok && !equalRuns([]oplog.RunInfo{got}, c.want) {
			t.Errorf("Run(%q, %d) = %+v, %v, %v; want %+v", c.source, c.run, got, ok, err, c.want)
		}
	}
}

func equalRuns(got, want []oplog.RunInfo) bool {
	return slices.EqualFunc(got, want, func(a, b oplog.RunInfo) bool {
		return a.Source == b.Source && a.Run == b.Run && a.Start.Equal(b.Start) && a.FirstID == b.FirstID &&
			a.LastID == b.LastID && a.Records == b.Records && a.Errors == b.Errors
	})
}

func testMarkersValidatedAndCounted(t *testing.T, open Opener) {
	l := newLog(t, open)
	recs := MustAppend(t, l, marker("unity", oplog.MarkerCompileStart, "compiling"), marker("unity", oplog.MarkerCompileFailed, "CS0103"),
		marker("unity", oplog.MarkerCompileOK, "compiled"), oplog.Record{Source: "unity", Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelWarn, Text: "truncated"})
	if got := fmt.Sprint(recs[0].Level, recs[1].Level, recs[2].Level, recs[3].Level); got != "info error info warn" {
		t.Fatalf("marker levels %s; want info error info warn", got)
	}
	st := l.Stats()
	if st.Counts[oplog.KindMarker][oplog.LevelInfo] != 2 || st.Count(oplog.KindMarker, 0) != 4 || st.Count(oplog.KindLine, 0) != 0 ||
		st.Counts.Map()["marker"]["error"] != 1 || st.Counts.ByLevel()["error"] != 1 {
		t.Fatalf("marker counts %v", st.Counts.Map())
	}
	names, err := l.Names(t.Context(), "unity")
	if err != nil || len(names) != 4 || names[0].Name != oplog.MarkerCompileFailed || names[0].Counts[oplog.KindMarker][oplog.LevelError] != 1 {
		t.Fatalf("names of markers: %+v, %v", names, err)
	}
	for name, bad := range map[string]oplog.Record{
		"UnknownName": marker("unity", "compile.maybe", "x"),
		"NoName":      marker("unity", "", "x"),
		"NoText":      marker("unity", oplog.MarkerRun, ""),
		"OpFields":    {Source: "unity", Kind: oplog.KindMarker, Name: oplog.MarkerRun, Text: "x", Status: oplog.StatusSuccess},
		"BadLevel":    {Source: "unity", Kind: oplog.KindMarker, Name: oplog.MarkerRun, Text: "x", Level: 9},
	} {
		err := l.Append(t.Context(), []oplog.Record{line("unity", oplog.LevelInfo, "ok"), bad})
		if oplog.ErrorCode(err) != oplog.EINVALID {
			t.Errorf("%s: %v; want EINVALID", name, err)
		}
		if name == "UnknownName" && !containsAll(oplog.ErrorMessage(err), strings.Join(oplog.Markers, ", ")) {
			t.Errorf("%s: %q does not name the markers", name, oplog.ErrorMessage(err))
		}
	}
	if n := l.Stats().Records; n != 4 {
		t.Fatalf("%d records after rejected batches; want 4", n)
	}
}

func testRunsFilter(t *testing.T, open Opener) {
	l := newLog(t, open)
	MustAppend(t, l, line("unity", oplog.LevelInfo, "u1-a"), line("godot", oplog.LevelInfo, "g1-a"), line("unity", oplog.LevelError, "u1-b"))
	MustAppend(t, l, marker("unity", oplog.MarkerRun, "u2-start"), line("unity", oplog.LevelInfo, "u2-a"), line("godot", oplog.LevelInfo, "g1-b"),
		marker("unity", oplog.MarkerCompileFailed, "u2-failed"), line("unity", oplog.LevelError, "u2-b"))
	list := func(f oplog.Filter) oplog.Page {
		t.Helper()
		p, err := l.List(t.Context(), oplog.Query{Filter: f, Count: 2})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := list(oplog.Filter{Runs: map[string]uint64{"unity": 1}}); fmt.Sprint(texts(p.Records)) != "[u1-b u1-a]" || p.Total != 2 || p.More {
		t.Fatalf("unity run 1: %v total %d more %v", texts(p.Records), p.Total, p.More)
	}
	older, err := l.List(t.Context(), oplog.Query{Filter: oplog.Filter{Runs: map[string]uint64{"unity": 1}}, Before: 3})
	if err != nil || fmt.Sprint(texts(older.Records)) != "[u1-a]" || older.Total != 2 {
		t.Fatalf("unity run 1 before 3: %v total %d, %v", texts(older.Records), older.Total, err)
	}
	p := list(oplog.Filter{Runs: map[string]uint64{"unity": 2, "godot": 1}, MinLevel: oplog.LevelError})
	if fmt.Sprint(texts(p.Records)) != "[u2-b u2-failed]" || p.Total != 2 {
		t.Fatalf("errors of unity 2 and godot 1: %v total %d", texts(p.Records), p.Total)
	}
	if p := list(oplog.Filter{Runs: map[string]uint64{}}); len(p.Records) != 0 || p.Total != 0 {
		t.Fatalf("empty Runs matched %v", texts(p.Records))
	}
	if p := list(oplog.Filter{Runs: map[string]uint64{"godot": 1}, Source: "unity"}); len(p.Records) != 0 || p.Total != 0 {
		t.Fatalf("godot's run with source unity matched %v", texts(p.Records))
	}
	lines := oplog.Filter{Kind: oplog.KindLine, WithMarkers: true, Runs: map[string]uint64{"unity": 2}}
	tail, err := l.Tail(t.Context(), oplog.TailQuery{Filter: lines, HasSince: true})
	if err != nil || fmt.Sprint(texts(tail.Lines)) != "[u2-start u2-a u2-failed u2-b]" {
		t.Fatalf("tail of unity run 2 with markers: %v, %v", texts(tail.Lines), err)
	}
	lines.WithMarkers = false
	tail, err = l.Tail(t.Context(), oplog.TailQuery{Filter: lines, Limit: 1})
	if err != nil || fmt.Sprint(texts(tail.Lines)) != "[u2-b]" {
		t.Fatalf("newest line of unity run 2: %v, %v", texts(tail.Lines), err)
	}
	p, err = l.List(t.Context(), oplog.Query{Filter: oplog.Filter{Kind: oplog.KindLine, WithMarkers: true, Source: "unity"}})
	if err != nil || len(p.Records) != 6 || p.Total != 6 {
		t.Fatalf("unity lines with markers: %v total %d, %v", texts(p.Records), p.Total, err)
	}
}

func testResolveRunAndLastMarker(t *testing.T, open Opener) {
	l := newLog(t, open)
	resolve := func(source, sel string) string {
		t.Helper()
		m, err := l.ResolveRun(t.Context(), source, sel)
		if err != nil {
			return oplog.ErrorCode(err)
		}
		return fmt.Sprint(m)
	}
	if got := resolve("", "current"); got != oplog.ENOTFOUND {
		t.Fatalf("current of an empty log: %s", got)
	}
	MustAppend(t, l, line("unity", oplog.LevelInfo, "u1"), line("godot", oplog.LevelInfo, "g1"), marker("unity", oplog.MarkerRun, "u2"),
		marker("unity", oplog.MarkerCompileStart, "c1"), marker("unity", oplog.MarkerCompileFailed, "f1"))
	for _, c := range []struct{ source, sel, want string }{
		{"", "", "map[]"}, {"unity", "current", "map[unity:2]"}, {"", "Current", "map[godot:1 unity:2]"},
		{"unity", "previous", "map[unity:1]"}, {"", "previous", "map[unity:1]"}, {"godot", "previous", oplog.ENOTFOUND},
		{"", "2", "map[unity:2]"}, {"", "1", "map[godot:1 unity:1]"}, {"unity", "3", oplog.ENOTFOUND},
		{"nobody", "current", oplog.ENOTFOUND}, {"", "last", oplog.EINVALID},
		{"", "0", "map[godot:1 unity:2]"}, {"unity", "-1", "map[unity:1]"}, {"", "-1", "map[unity:1]"},
		{"godot", "-1", oplog.ENOTFOUND}, {"", "-2", oplog.ENOTFOUND}, {"nobody", "0", oplog.ENOTFOUND},
		{"", "-x", oplog.EINVALID}, {"", "--1", oplog.EINVALID}, {"", "-+1", oplog.EINVALID},
	} {
		if got := resolve(c.source, c.sel); got != c.want && !(c.sel == "" && got == "map[]") {
			t.Errorf("ResolveRun(%q, %q) = %s; want %s", c.source, c.sel, got, c.want)
		}
	}
	if m, err := l.ResolveRun(t.Context(), "", ""); m != nil || err != nil {
		t.Errorf("ResolveRun of \"\": %v, %v; want nil (any run)", m, err)
	}
	ok := MustAppend(t, l, marker("unity", oplog.MarkerCompileOK, "ok1"), marker("godot", oplog.MarkerCompileFailed, "gf"))
	r, found, err := l.LastMarker(t.Context(), "unity", oplog.MarkerCompileOK, oplog.MarkerCompileFailed)
	if err != nil || !found || r.ID != ok[0].ID || r.Run != 2 {
		t.Fatalf("last compile outcome of unity: %+v, %v, %v", r, found, err)
	}
	if r, found, _ := l.LastMarker(t.Context(), "", oplog.MarkerCompileOK, oplog.MarkerCompileFailed); !found || r.ID != ok[1].ID {
		t.Fatalf("last compile outcome of any source: %+v", r)
	}
	if _, found, err := l.LastMarker(t.Context(), "godot", oplog.MarkerRun); found || err != nil {
		t.Fatalf("godot has no run marker: %v, %v", found, err)
	}
}

func testRunsCompleteAndClear(t *testing.T, open Opener) {
	l := newLog(t, open)
	op := MustAppend(t, l, oplog.Record{Source: "tecs", Tool: "run_lua"})
	if _, err := l.Complete(t.Context(), op[0].ID, oplog.Completion{Error: "boom"}); err != nil {
		t.Fatal(err)
	}
	if rs := runs(t, l, "tecs"); len(rs) != 1 || rs[0].Errors != 1 || rs[0].Records != 1 {
		t.Fatalf("run after a failed operation: %+v", rs)
	}
	MustAppend(t, l, marker("tecs", oplog.MarkerRun, "restart"))
	if _, err := l.Clear(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Clear keeps the runs: numbers never repeat, and the running game's
	// next records stay in its run.
	after := MustAppend(t, l, line("tecs", oplog.LevelInfo, "after clear"), marker("tecs", oplog.MarkerRun, "next"))
	if got := runNumbers(after); fmt.Sprint(got) != "[2 3]" {
		t.Fatalf("runs after Clear: %v; want [2 3]", got)
	}
	if rs := runs(t, l, "tecs"); len(rs) != 3 || rs[1].Records != 2 || rs[1].LastID != after[0].ID || rs[2].FirstID != after[1].ID {
		t.Fatalf("RunInfos after Clear: %+v", rs)
	}
}
