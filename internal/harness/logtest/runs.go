package logtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TwoRuns is what AppendTwoRuns wrote: a fix that worked.
type TwoRuns struct {
	Source string
	// A is the error template of run 1 that run 2 no longer prints, and
	// AID its newest record; Crash is the fatal record that ended run 1.
	A     string
	AID   uint64
	Crash uint64
	// B is the error template new in run 2 (with a stack: a new crash
	// group, ClassError), BID its newest record.
	B   string
	BID uint64
	// Noisy is run 2's most frequent template.
	Noisy string
	// End is the time of the last record.
	End time.Time
}

// AppendTwoRuns appends two runs of source "game" from 10:00 UTC on 2 Jan
// 2026: run 1 prints error A ("Null ref in Enemy_12 at 3") four times and
// crashes 10 s in, after 12 records; run 2 (a run marker, then 20 s and 26
// records, still running) prints no A but error B three times and the
// noisy "Loaded scene Main in <N> ms" 20 times.
func AppendTwoRuns(tb testing.TB, l *oplog.Log) TwoRuns {
	tb.Helper()
	t0 := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	line := func(ms int, lv oplog.Level, text, stack string) oplog.Record {
		return oplog.Record{Kind: oplog.KindLine, Time: at(ms), Source: "game", Name: "unity", Level: lv, Text: text, Stack: stack}
	}
	var recs []oplog.Record
	for i := range 5 {
		recs = append(recs, line(i*100, oplog.LevelInfo, fmt.Sprintf("Loaded scene Main in %d ms", 100+i), ""))
	}
	recs = append(recs, line(600, oplog.LevelWarn, "Shader Foo_3 fell back", ""), line(700, oplog.LevelWarn, "Shader Foo_4 fell back", ""))
	for i := range 4 {
		recs = append(recs, line(1000+i*2000, oplog.LevelError, "Null ref in Enemy_12 at 3",
			"at Enemy.Update () in Assets/Scripts/Enemy.cs:12"))
	}
	recs = append(recs, line(10000, oplog.LevelFatal, "Crash: access violation at 0x00007ff6a1b2",
		"at Boss.Die () in Assets/Scripts/Boss.cs:40"))
	recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Time: at(20000), Source: "game", Name: oplog.MarkerRun, Level: oplog.LevelInfo, Text: "run"})
	for i := range 20 {
		recs = append(recs, line(20100+i*1000, oplog.LevelInfo, fmt.Sprintf("Loaded scene Main in %d ms", 90+i), ""))
	}
	for i := range 3 {
		recs = append(recs, line(25000+i*5000, oplog.LevelError, "Texture missing for Tree_5",
			"at Forest.Paint () in Assets/Scripts/Forest.cs:7"))
	}
	recs = append(recs, line(39000, oplog.LevelWarn, "Shader Foo_5 fell back", ""), line(40000, oplog.LevelWarn, "Shader Foo_6 fell back", ""))
	recs = MustAppend(tb, l, recs...)
	return TwoRuns{Source: "game", A: "Null ref in Enemy_<N> at <N>", AID: recs[10].ID, Crash: recs[11].ID,
		B: "Texture missing for Tree_<N>", BID: recs[35].ID, Noisy: "Loaded scene Main in <N> ms", End: at(40000)}
}
