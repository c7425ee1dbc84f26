package follow

import (
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestClock_DatedLineGivesTheDay: times of day after a line that gave its
// date are on that day, not the file's, and on the next after midnight;
// without a dated line they stay on the file's date.
func TestClock_DatedLineGivesTheDay(t *testing.T) {
	day := func(d, h, m, s int) time.Time { return time.Date(2022, 8, d, h, m, s, 0, time.UTC) }
	for _, c := range []struct {
		name, parser, log string
		want              []time.Time
	}{
		{"generic", "generic", "2022-08-17 14:52:17 launcher started\n[23:59:58] [INFO] late\n[00:00:05] [INFO] past midnight\n[00:00:04] [INFO] a second back\n",
			[]time.Time{day(17, 14, 52, 17), day(17, 23, 59, 58), day(18, 0, 0, 5), day(18, 0, 0, 4)}},
		{"log4j", "log4j", "2022-08-17 14:52:17,268 main WARN Advanced terminal features are not available in this environment\n" +
			"[14:52:18] [main/INFO]: ModLauncher running\n[23:59:59] [Render thread/INFO]: late\n[00:01:00] [Render thread/INFO]: past midnight\n",
			[]time.Time{time.Date(2022, 8, 17, 14, 52, 17, 268e6, time.UTC), day(17, 14, 52, 18), day(17, 23, 59, 59), day(18, 0, 1, 0)}},
		{"undated", "log4j", "[14:52:18] [main/INFO]: ModLauncher running\n",
			[]time.Time{time.Date(fileDate.Year(), fileDate.Month(), fileDate.Day(), 14, 52, 18, 0, time.UTC)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			entries := feed(mustParser(t, c.parser), []byte(c.log))
			if len(entries) != len(c.want) {
				t.Fatalf("%d records, want %d: %+v", len(entries), len(c.want), entries)
			}
			for i, e := range entries {
				if !e.Record.Time.Equal(c.want[i]) {
					t.Errorf("%q at %v, want %v", e.Record.Text, e.Record.Time, c.want[i])
				}
			}
		})
	}
}

// TestImport_LauncherDatedPreamble: a launcher's log (PolyMC's), whose one
// dated line (log4j's status logger's) comes before the game's times of
// day, imported long after: the run is on the dated line's day and lasts
// what the game ran, not years.
func TestImport_LauncherDatedPreamble(t *testing.T) {
	l := mustLog(t)
	mustImport(t, l, readSample(t, "minecraft/codex/forge-polymc-1-19-2.log"), ImportOptions{Source: "game"})
	runs, err := l.Runs(t.Context(), "game")
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v (%v); want one", runs, err)
	}
	r := runs[0]
	if y, m, d := r.Last.Date(); y != 2022 || m != 8 || d != 17 || r.Last.Sub(r.Start) > 2*time.Minute || r.Outcome != oplog.OutcomeExited {
		t.Errorf("run from %v to %v, %s; want 2022-08-17, 75 s, exited", r.Start, r.Last, r.Outcome)
	}
}
