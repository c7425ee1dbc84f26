package oplogtest_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/querytest"
	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// querytestStudio returns a studio of opts holding querytest's records as
// machine m1 forwarded them once a log had them (IDs, levels and runs
// assigned), record i at seq i.
func querytestStudio(t *testing.T, opts *oplogtest.StudioOptions) *oplogtest.Studio {
	t.Helper()
	l := oplog.New(oplogtest.NewMemory(), nil)
	recs := oplogtest.MustAppend(t, l, querytest.Records()...)
	s := oplogtest.NewStudio("game", opts)
	for i, r := range recs {
		if r.ID != uint64(i+1) {
			t.Fatalf("record %d got ID %d; the cases name records by their place", i+1, r.ID)
		}
		s.Add(oplogtest.StudioRow{Machine: "m1", Revision: l.Stats().Revision, Seq: r.ID, Record: r})
	}
	return s
}

// TestStudio_Search_Semantics: every tree of the query language
// (querytest.Cases, one for each of ql.Samples) finds in the in-memory
// studio exactly the records written out for it, as the local index and
// VictoriaLogs do (search's TestIndex_Search_Semantics, studio's
// TestClient_Search_Semantics). As studio.Client, it refuses what LogsQL
// cannot say, naming it; with EveryNode it answers those too, as the
// local index does. The none case's empty list of runs, a machine's, is
// refused in the studio: its tree, None, is searched instead.
func TestStudio_Search_Semantics(t *testing.T) {
	lq, every := querytestStudio(t, nil), querytestStudio(t, &oplogtest.StudioOptions{EveryNode: true})
	for _, tc := range querytest.Cases(t) {
		got, err := searchAll(lq, tc.Query)
		switch {
		case tc.NoLogsQL != "" && (oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(err.Error(), tc.NoLogsQL)):
			t.Errorf("LogsQL's: %s as %q: %v (%v), want EINVALID saying %q", tc.Sample, tc.Query.Query, got, err, tc.NoLogsQL)
		case tc.NoLogsQL == "" && (err != nil || !slices.Equal(got, tc.Want)):
			t.Errorf("LogsQL's: %s as %q: %v (%v), want %v", tc.Sample, tc.Query.Query, got, err, tc.Want)
		}
		q := tc.Query
		if q.Runs != nil {
			q = oplog.SearchQuery{Tree: &ql.None{}}
		}
		if got, err := searchAll(every, q); err != nil || !slices.Equal(got, tc.Want) {
			t.Errorf("every node: %s as %q: %v (%v), want %v", tc.Sample, tc.Query.Query, got, err, tc.Want)
		}
	}
}

// TestStudio_Search_UnknownNode: a tree holding a node the matcher has no
// case for is an error, never a match.
func TestStudio_Search_UnknownNode(t *testing.T) {
	s := querytestStudio(t, &oplogtest.StudioOptions{EveryNode: true})
	for _, tree := range []ql.Node{&ql.And{Nodes: []ql.Node{nil}}, &ql.Or{Nodes: []ql.Node{&ql.All{}, nil}}, &ql.Not{}} {
		got, err := searchAll(s, oplog.SearchQuery{Tree: tree})
		if err == nil || oplog.ErrorCode(err) != oplog.EINTERNAL {
			t.Errorf("%s: %v (%v), want EINTERNAL", ql.String(tree), got, err)
		}
	}
}

// TestStudio_List_NewestRow: an operation shows once, as its row of the
// highest seq says it is now, whichever order its rows came in; a filter
// that only an older row passes keeps it out; Get answers the newest row
// of the newest revision. Both implementations answer it.
func TestStudio_List_NewestRow(t *testing.T) {
	for _, impl := range studiotest.Impls {
		t.Run(impl.Name, func(t *testing.T) { testListNewestRow(t, impl) })
	}
}

func testListNewestRow(t *testing.T, impl studiotest.Impl) {
	ctx := context.Background()
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	op := oplog.Record{ID: 7, Kind: oplog.KindOp, Source: "agent", Tool: "build", Text: "build {}", Time: t0, Status: oplog.StatusPending, Level: oplog.LevelInfo}
	done := op
	done.Status, done.Level, done.EndTime = oplog.StatusError, oplog.LevelError, t0.Add(time.Second)
	again := op
	again.Time = t0.Add(time.Minute)
	s := impl.Open(t, "game", []oplogtest.StudioRow{{Machine: "m1", Revision: 1, Seq: 9, Record: done},
		{Machine: "m1", Revision: 1, Seq: 3, Record: op}, {Machine: "m1", Revision: 2, Seq: 1, Record: again}})
	p, err := s.List(ctx, oplog.StudioListQuery{})
	if err != nil || len(p.Records) != 2 || p.Records[0].Revision != 2 || p.Records[1].Status != oplog.StatusError ||
		!p.Records[1].EndTime.Equal(done.EndTime) || string(p.Records[1].Arguments) != "{}" {
		t.Fatalf("list: %+v (%v)", p, err)
	}
	sq := oplog.StudioSearchQuery{SearchQuery: oplog.SearchQuery{Status: oplog.StatusPending}}
	if p, err := s.Search(ctx, sq); err != nil || len(p.Hits) != 1 || p.Hits[0].Revision != 2 {
		t.Errorf("status pending finds the completed operation: %+v (%v)", p, err)
	}
	if r, err := s.Get(ctx, "m1", 7); err != nil || r.Revision != 2 || r.Status != oplog.StatusPending {
		t.Errorf("get: %+v (%v), want revision 2's pending row", r, err)
	}
	if _, err := s.Get(ctx, "m2", 7); oplog.ErrorCode(err) != oplog.ENOTFOUND {
		t.Errorf("get of another machine: %v, want ENOTFOUND", err)
	}
}

// TestStudio_List_Cursor: records at the same time page one by one
// without gaps or repeats, by machine then ID descending, a page ending
// among them. Both implementations answer it.
func TestStudio_List_Cursor(t *testing.T) {
	for _, impl := range studiotest.Impls {
		t.Run(impl.Name, func(t *testing.T) {
			got, err := listAll(impl.Open(t, "game", cursorRows()), nil)
			if want := []string{"a5", "b4", "a3", "b2", "a1"}; err != nil || !slices.Equal(got, want) {
				t.Errorf("pages: %v (%v), want %v", got, err, want)
			}
			if _, err := impl.Open(t, "game", nil).List(context.Background(), oplog.StudioListQuery{Cursor: "v3"}); oplog.ErrorCode(err) != oplog.EINVALID {
				t.Errorf("cursor v3: %v, want EINVALID", err)
			}
		})
	}
}

// TestStudio_List_CursorHolds: a cursor reads on where its page ended
// though newer rows came since.
func TestStudio_List_CursorHolds(t *testing.T) {
	s := oplogtest.NewStudio("game", nil)
	s.Add(cursorRows()...)
	got, err := listAll(s, func() {
		s.Add(oplogtest.StudioRow{Machine: "c", Revision: 1, Seq: 1, Record: oplog.Record{ID: 9, Source: "unity", Time: time.Now()}})
	})
	if want := []string{"a5", "b4", "a3", "b2", "a1"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("pages: %v (%v), want %v", got, err, want)
	}
}

// cursorRows are five lines of machines a and b, two at each second but
// the last.
func cursorRows() []oplogtest.StudioRow {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var rows []oplogtest.StudioRow
	for i, m := range []string{"a", "b", "a", "b", "a"} {
		rows = append(rows, oplogtest.StudioRow{Machine: m, Revision: 1, Seq: uint64(i + 1),
			Record: oplog.Record{ID: uint64(i + 1), Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "unity", Time: t0.Add(time.Duration(i/2) * time.Second)}})
	}
	return rows
}

// listAll lists s's every record two a page, calling between (when not
// nil) after each page, and returns them as machine and ID.
func listAll(s oplog.Studio, between func()) ([]string, error) {
	var got []string
	q := oplog.StudioListQuery{Count: 2}
	for pages := 0; pages < 10; pages++ {
		p, err := s.List(context.Background(), q)
		if err != nil {
			return got, err
		}
		for _, r := range p.Records {
			got = append(got, r.Machine+strconv.FormatUint(r.ID, 10))
		}
		if p.NextCursor == "" {
			return got, nil
		}
		if between != nil {
			between()
		}
		q.Cursor = p.NextCursor
	}
	return got, errors.New("no end of pages")
}

// searchAll pages through q's every hit in s and returns their IDs,
// oldest first.
func searchAll(s *oplogtest.Studio, q oplog.SearchQuery) ([]uint64, error) {
	var ids []uint64
	sq := oplog.StudioSearchQuery{SearchQuery: q}
	sq.Limit = 10
	for {
		p, err := s.Search(context.Background(), sq)
		if err != nil {
			return nil, err
		}
		for _, h := range p.Hits {
			ids = append(ids, h.ID)
		}
		if p.NextCursor == "" {
			slices.Reverse(ids) // newest first: reversed, the order of Want
			return ids, nil
		}
		sq.Cursor = p.NextCursor
	}
}

// TestStudio_FindCrashes: groups summed across machines, theirs most
// often first; the runs a group ended (a fatal row, or an exit marker at
// error) rank it first and make it a crash; then the newest group;
// compile errors only when asked for; level fatal keeps the fatal rows.
// Both implementations answer it (studiotest.Impls).
func TestStudio_FindCrashes(t *testing.T) {
	for _, impl := range studiotest.Impls {
		t.Run(impl.Name, func(t *testing.T) { testFindCrashes(t, impl) })
	}
}

func testFindCrashes(t *testing.T, impl studiotest.Impl) {
	ctx := context.Background()
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var rows []oplogtest.StudioRow
	add := func(machine, sig string, sec int, level oplog.Level, kind oplog.Kind, name string, run uint64) {
		rows = append(rows, oplogtest.StudioRow{Machine: machine, Revision: 1, Seq: uint64(sec + 1), Signature: sig, Record: oplog.Record{
			ID: uint64(100 + sec), Kind: kind, Level: level, Source: "unity", Name: name, Run: run, Text: sig + " happened\nsecond line",
			Time: t0.Add(time.Duration(sec) * time.Second)}})
	}
	add("a", "s1", 0, oplog.LevelError, oplog.KindLine, "Game", 1)
	add("b", "s2", 1, oplog.LevelFatal, oplog.KindLine, "Game", 2)
	add("b", "s1", 2, oplog.LevelError, oplog.KindLine, "Game", 2)
	add("b", "s1", 3, oplog.LevelError, oplog.KindLine, "Game", 2)
	add("a", "s4", 4, oplog.LevelError, oplog.KindLine, "Game", 1)
	add("c", "s5", 5, oplog.LevelError, oplog.KindMarker, "exit", 3)
	add("a", "s3", 6, oplog.LevelError, oplog.KindLine, "compiler", 1)
	s := impl.Open(t, "game", rows)
	p, err := s.FindCrashes(ctx, oplog.StudioCrashQuery{})
	var got []string
	for _, g := range p.Groups {
		got = append(got, g.Signature+" "+g.Class)
	}
	if want := []string{"s5 crash", "s2 crash", "s4 error", "s1 error"}; err != nil || !slices.Equal(got, want) || p.Total != 4 {
		t.Fatalf("groups %v (total %d, %v), want %v", got, p.Total, err, want)
	}
	s1, s5 := p.Groups[3], p.Groups[0]
	if s1.Count != 3 || !slices.Equal(s1.Machines, []oplog.MachineCount{{Machine: "b", Count: 2}, {Machine: "a", Count: 1}}) ||
		s1.FirstMachine != "a" || s1.ExampleID != 100 || s1.LastMachine != "b" || s1.LastID != 103 || s1.Title != "s1 happened" ||
		s1.RunsEnded != 0 || s5.RunsEnded != 1 || p.Groups[1].RunsEnded != 1 || p.Groups[1].Level != oplog.LevelFatal {
		t.Errorf("groups: %+v", p.Groups)
	}
	if p, err := s.FindCrashes(ctx, oplog.StudioCrashQuery{Classes: []string{oplog.ClassCompile}}); err != nil || len(p.Groups) != 1 || p.Groups[0].Signature != "s3" {
		t.Errorf("compile: %+v (%v)", p, err)
	}
	if p, err := s.FindCrashes(ctx, oplog.StudioCrashQuery{MinLevel: oplog.LevelFatal, Limit: 1}); err != nil || p.Total != 1 || p.Groups[0].Signature != "s2" {
		t.Errorf("level fatal: %+v (%v)", p, err)
	}
	if _, err := s.FindCrashes(ctx, oplog.StudioCrashQuery{MinLevel: oplog.LevelWarn}); oplog.ErrorCode(err) != oplog.EINVALID {
		t.Errorf("level warn: %v, want EINVALID", err)
	}
}

// TestStudio_Compare: each window's rows are counted, every machine's; a
// warn or error template of one window only is new or gone, with its
// newest row as the example; info rows are no template of it. Both
// implementations answer it (studiotest.Impls).
func TestStudio_Compare(t *testing.T) {
	for _, impl := range studiotest.Impls {
		t.Run(impl.Name, func(t *testing.T) { testCompare(t, impl) })
	}
}

func testCompare(t *testing.T, impl studiotest.Impl) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var rows []oplogtest.StudioRow
	for i, r := range []struct {
		machine string
		min     int
		level   oplog.Level
		text    string
	}{{"a", -50, oplog.LevelWarn, "disk low 5"}, {"b", -40, oplog.LevelInfo, "tick 1"},
		{"a", 10, oplog.LevelError, "socket closed 3"}, {"b", 20, oplog.LevelError, "socket closed 4"}, {"a", 30, oplog.LevelInfo, "tick 2"}} {
		rows = append(rows, oplogtest.StudioRow{Machine: r.machine, Revision: 1, Seq: uint64(i + 1), Record: oplog.Record{ID: uint64(i + 1), Kind: oplog.KindLine,
			Level: r.level, Source: "unity", Text: r.text, Time: t0.Add(time.Duration(r.min) * time.Minute)}})
	}
	c, err := impl.Open(t, "game", rows).Compare(context.Background(), oplog.StudioCompareQuery{Since: t0, Until: t0.Add(time.Hour)})
	if err != nil || c.Before != 2 || c.After != 3 || len(c.New) != 1 || len(c.Gone) != 1 || len(c.Changed) != 0 ||
		c.New[0].After != 2 || c.New[0].ExampleID != 4 || c.New[0].Machine != "b" || c.Gone[0].Before != 1 || c.Gone[0].Machine != "a" {
		t.Errorf("compare: %+v (%v)", c, err)
	}
}
