package oplog_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// runEnd is how a run of appendRun ends.
type runEnd struct {
	outcome string // the outcome the run's records give it
	lines   int    // its info lines, a second apart
}

// appendRun appends a run of source game starting at start: a run marker
// (none for the source's first run), e.lines info lines a second apart,
// then a second later what gives it e.outcome: a fatal line (crashed), an
// exit marker at level info (exited), an end marker (ended), nothing
// (running). It returns the run's last record.
func appendRun(t *testing.T, l *oplog.Log, start time.Time, first bool, e runEnd) oplog.Record {
	t.Helper()
	var recs []oplog.Record
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	if !first {
		recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "game", Text: "run", Time: at(0)})
	}
	for i := range e.lines {
		recs = append(recs, oplog.Record{Source: "game", Level: oplog.LevelInfo, Text: fmt.Sprintf("Loaded scene Main in %d ms", i), Time: at(i + 1)})
	}
	end := at(e.lines + 1)
	switch e.outcome {
	case oplog.OutcomeCrashed:
		recs = append(recs, oplog.Record{Source: "game", Level: oplog.LevelFatal, Text: "Crash: access violation", Time: end})
	case oplog.OutcomeExited:
		recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: oplog.LevelInfo, Source: "game", Text: "exit status 0", Time: end})
	case oplog.OutcomeEnded:
		recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerEnd, Level: oplog.LevelInfo, Source: "game", Text: "end", Time: end})
	}
	recs = logtest.MustAppend(t, l, recs...)
	return recs[len(recs)-1]
}

// TestLog_CompareRuns_Verdicts is the table of compare's verdicts: every
// outcome of the previous run against every outcome of the current one
// (and, after a crash, a current run shorter or longer than the point
// where the previous one crashed). A run that is over (exited, ended) is
// never too soon to tell; a crash after a run over without one is a
// regression, not "crashed too".
//
// The previous run crashed after 12 s and 13 records (12 lines, then the
// fatal line); a short current run has 3 lines, a long one 30. A running
// previous run is the later one, compared against with Previous: a
// source's earlier run is never running once a later one began, so
// running against running cannot happen.
func TestLog_CompareRuns_Verdicts(t *testing.T) {
	const (
		crashed = oplog.OutcomeCrashed
		exited  = oplog.OutcomeExited
		ended   = oplog.OutcomeEnded
		running = oplog.OutcomeRunning
		short   = 3
		long    = 30
	)
	for _, c := range []struct {
		prev, cur string
		curLines  int
		want      string // {cur} and {prev} are the runs' crash records
		notYet    bool
	}{
		{crashed, crashed, long, "run 2 crashed too (record {cur}), as run 1 did (record {prev})", false},
		{crashed, exited, long, "run 2 exited cleanly, past the point where run 1 crashed (12s, 13 records)", false},
		{crashed, exited, short, "run 2 exited cleanly after 4s and 5 records, before the point where run 1 crashed (12s, 13 records): it never got that far", false},
		{crashed, ended, long, "run 2 ended without crashing, past the point where run 1 crashed (12s, 13 records)", false},
		{crashed, ended, short, "run 2 ended without crashing after 4s and 5 records, before the point where run 1 crashed (12s, 13 records): it never got that far", false},
		{crashed, running, long, "run 2 got past the point where run 1 crashed (12s, 13 records) without crashing; it is still running", false},
		{crashed, running, short, "too soon to tell: run 1 crashed after 12s and 13 records; run 2 is at 3s and 4 records, still running", true},

		{exited, crashed, long, "regression: run 1 exited cleanly, run 2 crashed (record {cur})", false},
		{exited, exited, long, "neither run crashed: run 1 exited cleanly, run 2 exited cleanly", false},
		{exited, ended, short, "neither run crashed: run 1 exited cleanly, run 2 ended without crashing", false},
		{exited, running, short, "neither run crashed: run 1 exited cleanly, run 2 is still running", false},

		{ended, crashed, short, "regression: run 1 ended without crashing, run 2 crashed (record {cur})", false},
		{ended, exited, long, "neither run crashed: run 1 ended without crashing, run 2 exited cleanly", false},
		{ended, ended, long, "neither run crashed: run 1 ended without crashing, run 2 ended without crashing", false},
		{ended, running, short, "neither run crashed: run 1 ended without crashing, run 2 is still running", false},

		// The current run is run 1, the running one run 2.
		{running, crashed, short, "run 1 crashed (record {cur}); run 2 has not crashed, it is still running", false},
		{running, exited, short, "neither run crashed: run 2 is still running, run 1 exited cleanly", false},
		{running, ended, long, "neither run crashed: run 2 is still running, run 1 ended without crashing", false},
	} {
		name := fmt.Sprintf("%s/%s", c.prev, c.cur)
		if c.prev == crashed && c.cur != crashed {
			name += map[int]string{short: "/Short", long: "/Long"}[c.curLines]
		}
		t.Run(name, func(t *testing.T) {
			l, _ := logtest.MustOpenLog(t, nil)
			t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
			later := t0.Add(time.Minute)
			q := oplog.CompareQuery{Source: "game"}
			var prevLast, curLast oplog.Record
			if c.prev == running {
				// A run ended by the next one's start: no end marker.
				first := runEnd{c.cur, c.curLines}
				if c.cur == ended {
					first.outcome = ""
				}
				curLast = appendRun(t, l, t0, true, first)
				prevLast = appendRun(t, l, later, false, runEnd{running, 12})
				q.Current, q.Previous = map[string]uint64{"game": 1}, map[string]uint64{"game": 2}
			} else {
				prevLast = appendRun(t, l, t0, true, runEnd{c.prev, 12})
				curLast = appendRun(t, l, later, false, runEnd{c.cur, c.curLines})
			}
			cmp, err := l.CompareRuns(context.Background(), q)
			if err != nil || len(cmp.Sources) != 1 {
				t.Fatalf("CompareRuns: %+v, %v", cmp, err)
			}
			s := cmp.Sources[0]
			if s.Previous.Outcome != c.prev || s.Current.Outcome != c.cur {
				t.Fatalf("compared a %s run with a %s one; want %s with %s", s.Previous.Outcome, s.Current.Outcome, c.prev, c.cur)
			}
			want := strings.NewReplacer("{cur}", fmt.Sprint(curLast.ID), "{prev}", fmt.Sprint(prevLast.ID)).Replace(c.want)
			verdict := s.Verdict[:max(strings.LastIndex(s.Verdict, "; "), 0)] // less the counts of templates and groups
			if verdict != want || s.NotYet != c.notYet {
				t.Errorf("verdict %q (not yet %v)\nwant    %q (not yet %v)", s.Verdict, s.NotYet, want, c.notYet)
			}
		})
	}
}

// TestLog_CompareRuns_FixAFewMillisFaster: a fixed run that exited cleanly
// with more records than the crash point, a little sooner than the crashed
// run took to crash (it printed no stack on its way out), got past that
// point; one of less than half that time did not.
func TestLog_CompareRuns_FixAFewMillisFaster(t *testing.T) {
	for _, c := range []struct {
		step time.Duration
		want string
	}{
		{800 * time.Millisecond, "run 2 exited cleanly, past the point where run 1 crashed (12s, 13 records)"},
		{400 * time.Millisecond, "run 2 exited cleanly after 5.6s and 15 records, before the point where run 1 crashed (12s, 13 records): it never got that far"},
	} {
		l, _ := logtest.MustOpenLog(t, nil)
		t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		appendRun(t, l, t0, true, runEnd{oplog.OutcomeCrashed, 12})
		start := t0.Add(time.Minute)
		recs := []oplog.Record{{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "game", Text: "run", Time: start}}
		for i := range 13 {
			recs = append(recs, oplog.Record{Source: "game", Level: oplog.LevelInfo, Text: fmt.Sprintf("Loaded scene Main in %d ms", i), Time: start.Add(time.Duration(i+1) * c.step)})
		}
		recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: oplog.LevelInfo, Source: "game", Text: "exit status 0", Time: start.Add(14 * c.step)})
		logtest.MustAppend(t, l, recs...)
		cmp, err := l.CompareRuns(context.Background(), oplog.CompareQuery{Source: "game"})
		if err != nil || len(cmp.Sources) != 1 {
			t.Fatalf("CompareRuns: %+v, %v", cmp, err)
		}
		if v := cmp.Sources[0].Verdict; !strings.HasPrefix(v, c.want+";") {
			t.Errorf("verdict %q\nwant    %q", v, c.want)
		}
	}
}

// TestLog_CompareRuns_ScriptOfMilliseconds: a script that crashed 10 ms
// in and, fixed, exited after as many records 4 ms in got past the point
// of the crash: at milliseconds the time is the start's noise, not how far
// the run got.
func TestLog_CompareRuns_ScriptOfMilliseconds(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	run := func(end time.Duration, last oplog.Record) {
		t.Helper()
		last.Source, last.Time = "game", start.Add(end)
		logtest.MustAppend(t, l,
			oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "game", Text: "run", Time: start},
			oplog.Record{Source: "game", Level: oplog.LevelInfo, Text: "Loading level 1", Time: start.Add(end / 2)},
			last)
		start = start.Add(time.Minute)
	}
	run(10*time.Millisecond, oplog.Record{Level: oplog.LevelFatal, Text: "Crash: access violation"})
	run(4*time.Millisecond, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: oplog.LevelInfo, Text: "exit status 0"})
	cmp, err := l.CompareRuns(context.Background(), oplog.CompareQuery{Source: "game"})
	if err != nil || len(cmp.Sources) != 1 {
		t.Fatalf("CompareRuns: %+v, %v", cmp, err)
	}
	if v, want := cmp.Sources[0].Verdict, "run 2 exited cleanly, past the point where run 1 crashed (10ms, "; !strings.HasPrefix(v, want) {
		t.Errorf("verdict %q\nwant    %q…", v, want)
	}
}
