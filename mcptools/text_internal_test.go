package mcptools

import (
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestEntryLine_SourceAndName: a line shows source/name, a line without a
// name its source alone (not "unity/"), an operation source/op and a
// marker source/marker.
func TestEntryLine_SourceAndName(t *testing.T) {
	at := time.Date(2026, 12, 2, 9, 26, 58, 0, time.UTC)
	for _, tc := range []struct {
		r    oplog.Record
		want string
	}{
		{oplog.Record{ID: 7, Time: at, Level: oplog.LevelInfo, Source: "unity", Name: "Player"}, "#7 09:26:58.000 INFO unity/Player frame"},
		{oplog.Record{ID: 8, Time: at, Level: oplog.LevelWarn, Source: "unity"}, "#8 09:26:58.000 WARN unity frame"},
		{oplog.Record{ID: 9, Time: at, Level: oplog.LevelInfo, Source: "agent", Kind: oplog.KindMarker, Name: "before"}, "#9 09:26:58.000 INFO agent/marker before frame"},
		{oplog.Record{ID: 10, Time: at, Level: oplog.LevelInfo, Source: "agent", Kind: oplog.KindOp, Tool: "run_code", Status: oplog.StatusPending}, "#10 09:26:58.000 INFO agent/op run_code pending: frame"},
	} {
		if got := entryLine(&tc.r, "frame", 0, 1, 0); got != tc.want {
			t.Errorf("entryLine(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

// TestRepeats_Templates: lines in a row that differ only in the values a
// template blanks form one run with their template; a different stack,
// level, kind, data or second line, or another template, starts a new
// run; exact repeats form a run without a template.
func TestRepeats_Templates(t *testing.T) {
	line := func(text string) oplog.Record {
		return oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "unity", Name: "Net", Text: text}
	}
	withStack := func(r oplog.Record, s string) oplog.Record { r.Stack = s; return r }
	withLevel := func(r oplog.Record, l oplog.Level) oplog.Record { r.Level = l; return r }
	withData := func(r oplog.Record, d string) oplog.Record { r.Data = []byte(d); return r }
	op := line("Snapshot 4 sent to peer 10.0.0.4:7777")
	op.Kind = oplog.KindOp
	recs := []oplog.Record{
		line("Snapshot 1 sent to peer 10.0.0.1:7777"), // 0: three of a template: too few to fold
		line("Snapshot 2 sent to peer 10.0.0.2:7777"),
		line("Snapshot 3 sent to peer 10.0.0.3:7777"),
		op, // 3: an operation never joins
		line("Snapshot 5 sent to peer 10.0.0.5:7777"),                             // 4
		withLevel(line("Snapshot 6 sent to peer 10.0.0.6:7777"), oplog.LevelWarn), // 5: another level
		withStack(line("boom 1"), "at A.cs:1"),                                    // 6: errors with different stacks
		withStack(line("boom 2"), "at A.cs:2"),                                    // 7
		withStack(line("boom 3"), "at A.cs:2"),                                    // 8: same stack: joins 7
		line("tick 1\nphase a"),                                                   // 9: different second lines
		line("tick 2\nphase b"),                                                   // 10
		withData(line("hp 1"), `{"a":1}`),                                         // 11: different data
		withData(line("hp 2"), `{"a":2}`),                                         // 12
		line("same"), line("same"),                                                // 13, 14: exact repeats
		line("other 7"), // 15: another template
	}
	got := repeats(recs, true)
	// Runs of two and three with a template are shown line by line: their
	// values are what tells them apart, for about the same room.
	want := []run{{0, 1, ""}, {1, 2, ""}, {2, 3, ""}, {3, 4, ""}, {4, 5, ""}, {5, 6, ""}, {6, 7, ""}, {7, 8, ""}, {8, 9, ""},
		{9, 10, ""}, {10, 11, ""}, {11, 12, ""}, {12, 13, ""}, {13, 15, ""}, {15, 16, ""}}
	if len(got) != len(want) {
		t.Fatalf("repeats = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("run %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	four := []oplog.Record{recs[0], recs[1], recs[2], line("Snapshot 9 sent to peer 10.0.0.9:7777")}
	if got := repeats(four, true); len(got) != 1 || got[0] != (run{0, 4, "Snapshot <N> sent to peer <IP>"}) {
		t.Errorf("four of a template: %+v, want one run", got)
	}
	if got := repeats(recs[:3], false); len(got) != 3 {
		t.Errorf("without collapse: %d runs, want 3", len(got))
	}
}
