package oplogtest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

func testList(t *testing.T, open Opener) {
	l := newLog(t, open)
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var recs []oplog.Record
	for i := range 40 {
		r := oplog.Record{Level: oplog.Levels[i%5], Name: fmt.Sprint("n", i%4), Source: fmt.Sprint("s", i%2),
			Text: fmt.Sprint(i), Time: base.Add(time.Duration(i) * time.Minute)}
		recs = append(recs, r)
	}
	recs = append(recs, oplog.Record{Tool: "run_lua", Time: base.Add(time.Hour)})
	MustAppend(t, l, recs...)
	for _, tc := range []struct {
		name      string
		q         oplog.Query
		want      []string
		wantTotal int64
		more      bool
	}{
		{"Newest", oplog.Query{Count: 3}, []string{"run_lua", "39", "38"}, 41, true},
		{"Offset", oplog.Query{Count: 2, Offset: 2}, []string{"38", "37"}, 41, true},
		{"Before", oplog.Query{Count: 2, Before: 39}, []string{"37", "36"}, 41, true},
		{"KindOp", oplog.Query{Filter: oplog.Filter{Kind: oplog.KindOp}}, []string{"run_lua"}, 1, false},
		{"LevelFatal", oplog.Query{Filter: oplog.Filter{MinLevel: oplog.LevelFatal, Kind: oplog.KindLine}, Count: 3}, []string{"39", "34", "29"}, 8, true},
		{"LevelError", oplog.Query{Filter: oplog.Filter{MinLevel: oplog.LevelError}, Count: 2}, []string{"39", "38"}, 16, true},
		{"NameSource", oplog.Query{Filter: oplog.Filter{Name: "n1", Source: "s1"}, Count: 3}, []string{"37", "33", "29"}, 10, true},
		{"SinceUntil", oplog.Query{Filter: oplog.Filter{Since: base.Add(10 * time.Minute), Until: base.Add(13 * time.Minute)}}, []string{"12", "11", "10"}, 3, false},
		{"NoMatch", oplog.Query{Filter: oplog.Filter{Name: "nope"}}, nil, 0, false},
		{"NameLevelKind", oplog.Query{Filter: oplog.Filter{Name: "run_lua", Kind: oplog.KindOp, MinLevel: oplog.LevelInfo}}, []string{"run_lua"}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := l.List(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got := texts(p.Records)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || p.Total != tc.wantTotal || p.More != tc.more {
				t.Fatalf("got %v total %d more %v; want %v total %d more %v", got, p.Total, p.More, tc.want, tc.wantTotal, tc.more)
			}
		})
	}
	if _, err := l.List(context.Background(), oplog.Query{Count: -1}); oplog.ErrorCode(err) != oplog.EINVALID || !containsAll(err.Error(), "count") {
		t.Fatalf("negative count: %v", err)
	}
}

func testClear(t *testing.T, open Opener) {
	l := newLog(t, open)
	MustAppend(t, l, Lines(10, "old")...)
	before := l.Stats()
	s, err := l.Clear(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.Revision == before.Revision || s.Records != 0 || s.GenStart != 11 || s.LastID != 10 || l.Stats() != s {
		t.Fatalf("stats after clear %+v (before %+v)", s, before)
	}
	if names, _ := l.Names(context.Background(), ""); len(names) != 0 {
		t.Fatalf("names after clear: %+v", names)
	}
	if _, err := l.Get(context.Background(), 5); oplog.ErrorCode(err) != oplog.ENOTFOUND || !strings.Contains(err.Error(), "cleared") {
		t.Fatalf("get a cleared record: %v", err)
	}
	next := MustAppend(t, l, Lines(3, "new")...)
	if next[0].ID != 11 {
		t.Fatalf("first ID after clear %d, want 11: IDs never go back", next[0].ID)
	}
	tail, err := l.Tail(context.Background(), oplog.TailQuery{SinceID: 10, HasSince: true, Revision: before.Revision})
	if err != nil || !tail.Reset || len(tail.Lines) != 3 || tail.Lines[0].Text != "new-0" || tail.Dropped != 0 {
		t.Fatalf("tail with the old revision: %+v, %v; want reset and the 3 new lines", tail, err)
	}
}

func testNeighbors(t *testing.T, open Opener) {
	l := newLog(t, open)
	MustAppend(t, l, Lines(3, "n")...)
	for id, want := range map[uint64][2]uint64{1: {0, 2}, 2: {1, 3}, 3: {2, 0}} {
		prev, next, err := l.Neighbors(context.Background(), id)
		if err != nil || prev != want[0] || next != want[1] {
			t.Errorf("Neighbors(%d) = %d, %d, %v; want %v", id, prev, next, err, want)
		}
	}
	if _, _, err := l.Neighbors(context.Background(), 9); oplog.ErrorCode(err) != oplog.ENOTFOUND {
		t.Fatalf("Neighbors(9): %v", err)
	}
}

func testGet(t *testing.T, open Opener) {
	l := newLog(t, open)
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 123, time.FixedZone("CEST", 2*3600))
	recs := MustAppend(t, l,
		oplog.Record{Level: oplog.LevelWarn, Source: "unity", Name: "Player", Text: "hi", Stack: "at x", Data: json.RawMessage(`{"a":1}`), Time: t0},
		oplog.Record{Tool: "run_lua", Arguments: json.RawMessage(`{"code":"return 1"}`), Status: oplog.StatusSuccess, Result: json.RawMessage(`1`), Time: t0},
	)
	t.Run("OK", func(t *testing.T) {
		for _, want := range recs {
			got, err := l.Get(context.Background(), want.ID)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("Get(%d):\n got %+v, %v\nwant %+v", want.ID, got, err, want)
			}
		}
		if !recs[0].Time.Equal(t0) || recs[0].Time.Location() != time.UTC {
			t.Fatalf("stored time %v; want %v in UTC", recs[0].Time, t0)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := l.Get(context.Background(), 99); oplog.ErrorCode(err) != oplog.ENOTFOUND || !containsAll(err.Error(), "99", "newest ID is 2") {
			t.Fatalf("Get(99): %v; want ENOTFOUND naming the newest ID", err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		if _, err := l.Get(context.Background(), 0); oplog.ErrorCode(err) != oplog.EINVALID {
			t.Fatalf("Get(0): %v; want EINVALID", err)
		}
	})
}

// testNames checks the per-name counters, including a name first seen in
// 1972, whose Unix nanoseconds a unit-guessing conversion takes for
// microseconds.
func testNames(t *testing.T, open Opener) {
	l := newLog(t, open)
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	d1972 := time.Date(1972, 6, 1, 0, 0, 0, 0, time.UTC)
	MustAppend(t, l,
		oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "Player", Text: "a", Time: t0},
		oplog.Record{Level: oplog.LevelError, Source: "unity", Name: "Player", Text: "b", Time: t0.Add(time.Minute)},
		oplog.Record{Level: oplog.LevelWarn, Source: "tecs", Name: "Player", Text: "c", Time: t0.Add(2 * time.Minute)},
		oplog.Record{Tool: "run_lua", Source: "tecs", Time: t0.Add(3 * time.Minute)},
		oplog.Record{Level: oplog.LevelInfo, Source: "old", Name: "clock", Text: "d", Time: d1972},
		oplog.Record{Level: oplog.LevelInfo, Source: "old", Name: "clock", Text: "e", Time: d1972.Add(time.Hour)},
	)
	names, err := l.Names(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(len(names))
	for _, n := range names {
		got += fmt.Sprintf(" %s/%s:%d", n.Source, n.Name, n.Total)
	}
	if got != "4 old/clock:2 tecs/Player:1 tecs/run_lua:1 unity/Player:2" {
		t.Fatalf("names: %s", got)
	}
	unity, _ := l.Names(context.Background(), "unity")
	if len(unity) != 1 || unity[0].Counts[oplog.KindLine][oplog.LevelError] != 1 || unity[0].Count(0, oplog.LevelWarn) != 1 ||
		!unity[0].FirstSeen.Equal(t0) || !unity[0].LastSeen.Equal(t0.Add(time.Minute)) {
		t.Fatalf("unity names: %+v", unity)
	}
	old, _ := l.Names(context.Background(), "old")
	if len(old) != 1 || !old[0].FirstSeen.Equal(d1972) || !old[0].LastSeen.Equal(d1972.Add(time.Hour)) {
		t.Fatalf("names dated 1972: %+v; want first seen %s, last seen %s", old, d1972, d1972.Add(time.Hour))
	}
	p, err := l.List(context.Background(), oplog.Query{Filter: oplog.Filter{Name: "Player", MinLevel: oplog.LevelWarn}})
	if err != nil || p.Total != 2 {
		t.Fatalf("total of Player at warn and above: %d, %v", p.Total, err)
	}
	// Completing the op moves its count to the error level.
	if _, err := l.Complete(context.Background(), 4, oplog.Completion{Error: "x"}); err != nil {
		t.Fatal(err)
	}
	tecs, _ := l.Names(context.Background(), "tecs")
	if tecs[1].Name != "run_lua" || tecs[1].Counts[oplog.KindOp][oplog.LevelError] != 1 || tecs[1].Counts[oplog.KindOp][oplog.LevelInfo] != 0 {
		t.Fatalf("run_lua after completion: %+v", tecs[1])
	}
}

func testStats(t *testing.T, open Opener) {
	l := newLog(t, open)
	s := l.Stats()
	if s.Revision == 0 || s.Revision >= 1<<53 || s.GenStart != 1 || s.LastID != 0 || s.FirstID != 0 || s.Records != 0 || s.Bytes != 0 {
		t.Fatalf("stats of a new store %+v", s)
	}
	MustAppend(t, l, Lines(3, "s")...)
	op := MustAppend(t, l, oplog.Record{Tool: "run_lua"})[0]
	s = l.Stats()
	if s.FirstID != 1 || s.LastID != 4 || s.Records != 4 || s.Bytes == 0 || s.Trimmed != 0 ||
		s.Counts[oplog.KindLine][oplog.LevelInfo] != 3 || s.Counts[oplog.KindOp][oplog.LevelInfo] != 1 || s.Count(0, 0) != 4 {
		t.Fatalf("stats after 3 lines and an op %+v", s)
	}
	if _, err := l.Complete(context.Background(), op.ID, oplog.Completion{Error: "boom"}); err != nil {
		t.Fatal(err)
	}
	if s = l.Stats(); s.Counts[oplog.KindOp][oplog.LevelInfo] != 0 || s.Counts[oplog.KindOp][oplog.LevelError] != 1 || s.Records != 4 {
		t.Fatalf("stats after the op failed %+v", s)
	}
}

// testGetMany: a store that reads many records at once (oplog.ManyGetter)
// gives them in the order asked, whole, leaving out IDs it does not hold.
func testGetMany(t *testing.T, open Opener) {
	st := open(t)
	l := oplog.New(st, nil)
	t.Cleanup(func() { _ = l.Close() })
	g, ok := st.(oplog.ManyGetter)
	if !ok {
		t.Skip("the store reads records one at a time")
	}
	recs := MustAppend(t, l, Lines(5, "m")...)
	got, err := g.GetMany([]uint64{recs[3].ID, recs[0].ID, 999, recs[4].ID, recs[3].ID})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"m-3", "m-0", "m-4", "m-3"}
	if len(got) != len(want) {
		t.Fatalf("GetMany: %d records, want %d", len(got), len(want))
	}
	for i, r := range got {
		one, err := l.Get(context.Background(), r.ID)
		if err != nil || r.Text != want[i] || !reflect.DeepEqual(r, one) {
			t.Errorf("GetMany record %d: %+v, want %s as Get gives it (%+v, %v)", i, r, want[i], one, err)
		}
	}
}
