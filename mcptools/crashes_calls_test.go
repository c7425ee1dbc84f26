package mcptools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestFindCrashes_Limit1_InFlight: an error with a stack strikes while a
// call of its run is pending: find_crashes {limit: 1} names it in flight
// with its arguments and start; a call still pending from the source's
// previous run and one of another source are not in its story.
func TestFindCrashes_Limit1_InFlight(t *testing.T) {
	at := func(ms int) time.Time { return crashT0.Add(time.Duration(ms) * time.Millisecond) }
	op := func(source, args string, ms int) oplog.Record {
		return oplog.Record{Kind: oplog.KindOp, Tool: "spawn_enemy", Source: source, Arguments: json.RawMessage(args), Time: at(ms)}
	}
	marker := func(ms int) oplog.Record {
		return oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "unity", Text: "run started", Time: at(ms)}
	}
	long := `{"count":250,"note":"` + strings.Repeat("x", 200) + `"}`
	cs, recs := crashSession(t,
		marker(0),
		op("unity", `{"count": 500}`, 1000), // run 1, never answered
		marker(2000),
		op("unity", long, 3000),
		op("editor", `{"count": 9}`, 3500),
		oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "Game", Text: "wave 3", Time: at(4000)},
		crashRecord(unityCrash, 42, 5, "unity"),
	)
	text, sc, size := callTool(t, cs, "find_crashes", map[string]any{"limit": 1})
	var out struct {
		Groups []struct {
			InFlight []string `json:"inFlight"`
			Calls    []string `json:"calls"`
			Before   []string `json:"before"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(sc, &out); err != nil || len(out.Groups) != 1 {
		t.Fatalf("%v: %s", err, sc)
	}
	g := out.Groups[0]
	want := fmt.Sprintf(`#%d spawn_enemy {"count":250,"note":"%s… started −2.0s, pending`, recs[3].ID, strings.Repeat("x", 80-len(`{"count":250,"note":"`)-len("…")))
	if len(g.InFlight) != 1 || g.InFlight[0] != want || len(g.Calls) != 0 {
		t.Errorf("inFlight %q, calls %q; want only\n%q", g.InFlight, g.Calls, want)
	}
	if !strings.Contains(text, "in flight: "+want) || !strings.Contains(text, "before: #") || !strings.Contains(text, "wave 3 (−1.0s)") {
		t.Errorf("text:\n%s", text)
	}
	if strings.Contains(text, `"count":500`) || strings.Contains(text, `"count":9`) {
		t.Errorf("a call of another run or source is in the story:\n%s", text)
	}
	if size > 4<<10 {
		t.Errorf("%d bytes, want ≤ 4096", size)
	}
}

// TestFindCrashes_Limit1_InFlightEarlyClock: a followed log's clock says
// only the second, and the traceback that crashed the game joined the
// warning line before it, so the crash's time (05:00:05.000) is before the
// start of the call it struck under (05:00:05.900). The call was pending
// when the crash was recorded, and the exit after it completed it
// crashed: it is in flight in the crash's story, and in its recurrence.
func TestFindCrashes_Limit1_InFlightEarlyClock(t *testing.T) {
	at := func(ms int) time.Time { return crashT0.Add(time.Duration(ms) * time.Millisecond) }
	cs, recs := crashSession(t,
		oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "game", Text: "run started", Time: at(0)},
		oplog.Record{Kind: oplog.KindOp, Tool: "spawn_enemy", Source: "game", Arguments: json.RawMessage(`{"count":500}`), Time: at(5900)},
		oplog.Record{Level: oplog.LevelError, Source: "game", Name: "Game", Time: at(5000), Text: "EnemyPool growing to 500",
			Stack: "Traceback (most recent call last):\n  File \"/g/game.py\", line 48, in grow\nOverflowError: enemy pool overflow"},
		oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: oplog.LevelError, Source: "game", Text: "python3 exited with status 1",
			Data: json.RawMessage(`{"exitCode":1}`), Time: at(6300)},
	)
	_, sc, _ := callTool(t, cs, "find_crashes", map[string]any{"limit": 1})
	var out struct {
		Groups []struct {
			InFlight   []string `json:"inFlight"`
			Recurrence []string `json:"recurrence"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(sc, &out); err != nil || len(out.Groups) != 1 {
		t.Fatalf("%v: %s", err, sc)
	}
	g := out.Groups[0]
	want := fmt.Sprintf(`#%d spawn_enemy {"count":500} started +0.9s, crashed`, recs[1].ID)
	if len(g.InFlight) != 1 || g.InFlight[0] != want {
		t.Errorf("inFlight %q; want %q", g.InFlight, want)
	}
	if len(g.Recurrence) == 0 || !strings.HasPrefix(g.Recurrence[0], "spawn_enemy {count} in flight in 1 of 1 crashed runs") {
		t.Errorf("recurrence %q", g.Recurrence)
	}
}

// TestFindCrashes_Limit1_InFlightMore: five calls in flight when the crash
// struck: the three newest are shown, and how many more there were.
func TestFindCrashes_Limit1_InFlightMore(t *testing.T) {
	at := func(ms int) time.Time { return crashT0.Add(time.Duration(ms) * time.Millisecond) }
	recs := []oplog.Record{{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "unity", Text: "run started", Time: at(0)}}
	for i := range 5 {
		recs = append(recs, oplog.Record{Kind: oplog.KindOp, Tool: "spawn_enemy", Source: "unity", Arguments: json.RawMessage(fmt.Sprintf(`{"count":%d}`, i)), Time: at(1000 + i)})
	}
	cs, _ := crashSession(t, append(recs, crashRecord(unityCrash, 42, 5, "unity"))...)
	text, sc, _ := callTool(t, cs, "find_crashes", map[string]any{"limit": 1})
	var out struct {
		Groups []struct {
			InFlight []string `json:"inFlight"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(sc, &out); err != nil || len(out.Groups) != 1 {
		t.Fatalf("%v: %s", err, sc)
	}
	f := out.Groups[0].InFlight
	if len(f) != 4 || !strings.Contains(f[0], `{"count":2}`) || !strings.Contains(f[2], `{"count":4}`) || f[3] != "and 2 more, older" {
		t.Errorf("inFlight %q", f)
	}
	if !strings.Contains(text, "in flight: and 2 more, older") {
		t.Errorf("text:\n%s", text)
	}
}

// TestFindCrashes_Limit1_FirstRun: the story says in which run the crash
// first came (run 2 after a clean run 1), beside the runs since the last.
func TestFindCrashes_Limit1_FirstRun(t *testing.T) {
	at := func(s int) time.Time { return crashT0.Add(time.Duration(s) * time.Second) }
	run := func(s int) oplog.Record {
		return oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "unity", Text: "run started", Time: at(s)}
	}
	line := oplog.Record{Level: oplog.LevelInfo, Source: "unity", Text: "level loaded", Time: at(1)}
	cs, _ := crashSession(t, line, run(10), crashRecord(unityCrash, 42, 11, "unity"), run(20), crashRecord(unityCrash, 42, 21, "unity"), run(30))
	text, _, _ := callTool(t, cs, "find_crashes", map[string]any{"limit": 1})
	if !strings.Contains(text, "first in run 2 of unity, none in run 1; ") || !strings.Contains(text, "1 run of unity since, none crashed") {
		t.Errorf("text:\n%s", text)
	}
}

// TestFindCrashes_Limit1_Recursion: a stack of one frame repeated 150
// times (a recursion's) shows it once and how many more times it came,
// and the frames after it.
func TestFindCrashes_Limit1_Recursion(t *testing.T) {
	stack := "java.lang.StackOverflowError\n" + strings.Repeat("\tat Deep.walk(Deep.java:4)\n", 150) + "\tat Deep.main(Deep.java:9)"
	rec := oplog.Record{Time: crashT0, Level: oplog.LevelFatal, Name: "Game", Source: "game", Text: "java.lang.StackOverflowError", Stack: stack}
	cs, _ := crashSession(t, rec)
	text, _, _ := callTool(t, cs, "find_crashes", map[string]any{"limit": 1})
	if strings.Count(text, "Deep.walk(Deep.java:4)") != 2 || !strings.Contains(text, "the line above 149 more times") || !strings.Contains(text, "Deep.main(Deep.java:9)") {
		t.Errorf("text:\n%s", text)
	}
}

// TestFindCrashes_Limit1_GivesUp: the game's own fatal line after the
// exception it gave up on: the answer is titled by the exception and shows
// its stack, of its record.
func TestFindCrashes_Limit1_GivesUp(t *testing.T) {
	run := oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "game", Text: "run started", Time: crashT0}
	npe := oplog.Record{Time: crashT0.Add(time.Second), Level: oplog.LevelError, Source: "game", Text: "java.lang.NullPointerException: data is null",
		Stack: "java.lang.NullPointerException: data is null\n\tat Game.loadChunk(Game.java:8)\n\tat java.base/java.lang.Thread.run(Thread.java:833)"}
	fatal := oplog.Record{Time: crashT0.Add(time.Second + time.Millisecond), Level: oplog.LevelFatal, Source: "game", Text: "world generation failed, exiting"}
	cs, recs := crashSession(t, run, npe, fatal)
	text, _, _ := callTool(t, cs, "find_crashes", map[string]any{"limit": 1})
	if !strings.Contains(text, "crash ×1 java.lang.NullPointerException: data is null in Game.loadChunk(Game.java:8)") ||
		!strings.Contains(text, fmt.Sprintf("stack of #%d", recs[1].ID)) || !strings.Contains(text, "world generation failed, exiting") {
		t.Errorf("text:\n%s", text)
	}
}
