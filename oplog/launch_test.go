package oplog_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// TestLog_LaunchOwnsItsRun: a game started by `mcplogd run` whose log a
// server follows is one run per launch. The follower's run start (the log
// rewritten at launch, its banner) joins the launch's run while it runs,
// or after a launch too short for the follower to have read its file;
// a relaunch outside run (the follower read the launch's file before),
// a start with no launch before it, and every launch start runs as before.
func TestLog_LaunchOwnsItsRun(t *testing.T) {
	const file = "/games/demo/game.log"
	launch := func(cmd string) oplog.Record {
		return oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "Game", Text: "run started: " + cmd,
			Data: []byte(fmt.Sprintf(`{"reason":"launch","command":%q,"pid":7}`, cmd))}
	}
	exit := func(level oplog.Level) oplog.Record {
		return oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Source: "Game", Level: level, Text: "game exited"}
	}
	rewritten := oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "Game", Level: oplog.LevelWarn,
		Text: "run started: the log file was truncated", Data: []byte(`{"reason":"truncated","file":"` + file + `","offset":0}`)}
	mirrored := oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "Game", Text: "run started: game restarted (reset)",
		Data: []byte(`{"upstreamRun":2,"reason":"reset"}`)}
	imported := oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "Game", Text: "run started: the import of /games/demo/old.log",
		Data: []byte(`{"reason":"import"}`)}
	stdout := oplog.Record{Source: "Game", Level: oplog.LevelInfo, Text: "frame 1"}
	older := func(r oplog.Record, by time.Duration) oplog.Record { r.Time = time.Now().Add(-by); return r }
	fileLine := oplog.Record{Source: "Game", Level: oplog.LevelInfo, Text: "frame 1", Data: []byte(`{"file":"` + file + `","offset":40}`)}
	for _, tc := range []struct {
		name string
		recs []oplog.Record
		runs int // the runs of Game at the end
		line bool
	}{
		{"follower while the launch runs", []oplog.Record{launch("game"), stdout, rewritten, fileLine}, 1, true},
		{"mirror while the launch runs", []oplog.Record{launch("game"), stdout, mirrored}, 1, true},
		{"follower after a short launch", []oplog.Record{launch("game"), stdout, exit(oplog.LevelInfo), rewritten, fileLine}, 1, true},
		{"follower after a short crash", []oplog.Record{launch("game"), exit(oplog.LevelError), rewritten}, 1, true},
		{"a relaunch outside run", []oplog.Record{launch("game"), fileLine, exit(oplog.LevelInfo), rewritten, fileLine}, 2, false},
		{"mirror after the launch exited", []oplog.Record{launch("game"), exit(oplog.LevelInfo), mirrored}, 2, false},
		{"no launch", []oplog.Record{rewritten, fileLine, rewritten}, 2, false},
		{"launch after launch", []oplog.Record{launch("game"), stdout, launch("game"), stdout}, 2, false},
		{"an older log imported while the launch runs", []oplog.Record{launch("game"), stdout, older(rewritten, 24*time.Hour)}, 2, false},
		{"the log's own time, to the second", []oplog.Record{launch("game"), stdout, older(rewritten, time.Second)}, 1, true},
		{"another log imported while the launch runs", []oplog.Record{launch("game"), stdout, imported}, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := oplog.New(oplogtest.NewMemory(), nil)
			defer l.Close()
			for _, r := range tc.recs {
				oplogtest.MustAppend(t, l, r) // one append each, as the writers do
			}
			runs, err := l.Runs(context.Background(), "Game")
			if err != nil || len(runs) != tc.runs {
				t.Fatalf("%d runs (%v), want %d: %+v", len(runs), err, tc.runs, runs)
			}
			p, err := l.List(context.Background(), oplog.Query{Filter: oplog.Filter{Source: "Game"}, Count: 100})
			if err != nil {
				t.Fatal(err)
			}
			joined := 0
			for _, r := range p.Records {
				if r.Kind == oplog.KindLine && (r.Text == "the log file was truncated" || r.Text == "game restarted (reset)") {
					joined++
					if r.Level != oplog.LevelInfo || r.Run != 1 {
						t.Errorf("the joined start: level %v, run %d; want info, run 1", r.Level, r.Run)
					}
				}
			}
			if want := map[bool]int{true: 1}[tc.line]; joined != want {
				t.Errorf("%d run starts joined the launch's run as lines, want %d", joined, want)
			}
		})
	}
}
