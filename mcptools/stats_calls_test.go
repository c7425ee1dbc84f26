package mcptools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// crashedCallRuns serves a store where a game crashes in the middle of
// spawn_enemy in runs 1 and 3 and exits cleanly in run 2, where
// spawn_enemy completed and load_level failed; get_state is called in
// every run; another source's crashed run calls spawn_enemy too. It
// returns the session and the time of the first record.
func crashedCallRuns(t *testing.T) (*mcp.ClientSession, time.Time) {
	t.Helper()
	at := func(ms int) time.Time { return crashT0.Add(time.Duration(ms) * time.Millisecond) }
	op := func(source, tool, args string, start, end int, status oplog.Status) oplog.Record {
		r := oplog.Record{Kind: oplog.KindOp, Tool: tool, Source: source, Arguments: json.RawMessage(args), Time: at(start)}
		if end > 0 {
			r.Status, r.EndTime = status, at(end)
		}
		return r
	}
	marker := func(source, name string, lv oplog.Level, text string, ms int) oplog.Record {
		return oplog.Record{Kind: oplog.KindMarker, Name: name, Level: lv, Source: source, Text: text, Time: at(ms)}
	}
	var recs []oplog.Record
	run := func(source string, base int, crashes bool, count int) {
		recs = append(recs, marker(source, oplog.MarkerRun, oplog.LevelInfo, "run started: python3 game.py", base),
			op(source, "get_state", `{}`, base+100, base+200, oplog.StatusSuccess))
		if !crashes {
			recs = append(recs, op(source, "load_level", `{"name":"Arena"}`, base+250, base+280, oplog.StatusError),
				op(source, "spawn_enemy", fmt.Sprintf(`{"count":%d}`, count), base+300, base+400, oplog.StatusSuccess),
				marker(source, oplog.MarkerExit, oplog.LevelInfo, "python3 exited with status 0", base+500))
			return
		}
		recs = append(recs, op(source, "spawn_enemy", fmt.Sprintf(`{"count":%d}`, count), base+300, 0, 0), // in flight
			oplog.Record{Level: oplog.LevelError, Source: source, Text: "KeyError: 'boss'", Time: at(base + 400),
				Stack: "Traceback (most recent call last):\n  File \"game.py\", line 12, in spawn\n    return wave[\"boss\"].hp\nKeyError: 'boss'"},
			marker(source, oplog.MarkerExit, oplog.LevelError, "python3 exited with status 1", base+500))
	}
	run("game", 0, true, 500)
	run("editor", 500, true, 9) // another source: never counted for game
	run("game", 1000, false, 5)
	run("game", 2000, true, 250)
	cs, _ := crashSession(t, recs...)
	return cs, crashT0
}

// TestCompareRuns_CallsInCrashedRuns: compare_runs names the call shape
// over-represented in the game's crashed runs against its clean one
// (spawn_enemy, in flight at both crashes and at no clean end), with the
// same counts find_crashes says for the crash, and not get_state, called
// in every run alike, nor load_level, which only the clean run made.
func TestCompareRuns_CallsInCrashedRuns(t *testing.T) {
	cs, _ := crashedCallRuns(t)
	var cmp struct {
		Sources []struct {
			Source  string   `json:"source"`
			Verdict string   `json:"verdict"`
			Calls   []string `json:"calls"`
		} `json:"sources"`
	}
	text := callSummary(t, cs, "compare_runs", map[string]any{"source": "game"}, &cmp)
	if len(cmp.Sources) != 1 || !strings.HasPrefix(cmp.Sources[0].Verdict, "regression") {
		t.Fatalf("compare_runs {source: game}: want run 3 against run 2, a regression\n%s", text)
	}
	want := "spawn_enemy {count} in flight in 2 of 2 crashed runs, 0 of 1 clean; among the last calls in 0 of 2 crashed, 1 of 1 clean"
	if calls := cmp.Sources[0].Calls; len(calls) != 1 || calls[0] != want {
		t.Errorf("calls = %q, want only %q\n%s", calls, want, text)
	}
	if !strings.Contains(text, "\n  calls in crashed runs: "+want) {
		t.Errorf("the text lacks the calls line:\n%s", text)
	}
	// find_crashes says the same of the crash: one count for both tools.
	_, sc, _ := callTool(t, cs, "find_crashes", map[string]any{"limit": 1, "source": "game"})
	var fc struct {
		Groups []struct {
			Recurrence []string `json:"recurrence"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(sc, &fc); err != nil || len(fc.Groups) != 1 || len(fc.Groups[0].Recurrence) == 0 || fc.Groups[0].Recurrence[0] != want {
		t.Errorf("find_crashes' recurrence: %s (%v), want first %q", sc, err, want)
	}
	// All sources: editor has one run, nothing to compare; game's calls
	// are only game's.
	text = callSummary(t, cs, "compare_runs", nil, &cmp)
	if len(cmp.Sources) != 1 || cmp.Sources[0].Source != "game" || len(cmp.Sources[0].Calls) != 1 || cmp.Sources[0].Calls[0] != want {
		t.Errorf("compare_runs {}: %+v\n%s", cmp.Sources, text)
	}
	t.Logf("compare_runs:\n%s", text)
}

// TestLogStats_Calls: log_stats names the call shapes of the records it
// covers, the most made first, each with how many of its calls the crash
// ended and how many failed: in the current run, and over every run of a
// time range; another source's calls are not the game's.
func TestLogStats_Calls(t *testing.T) {
	cs, t0 := crashedCallRuns(t)
	var stats struct {
		Runs  []string `json:"runs"`
		Calls []string `json:"calls"`
	}
	text := callSummary(t, cs, "log_stats", map[string]any{"source": "game"}, &stats)
	want := []string{"spawn_enemy {count} ×1 (1 crashed)", "get_state {} ×1"}
	if fmt.Sprint(stats.Runs) != "[game#3 crashed]" || fmt.Sprint(stats.Calls) != fmt.Sprint(want) {
		t.Errorf("current run: runs %q, calls %q; want %q", stats.Runs, stats.Calls, want)
	}
	if !strings.Contains(text, "\ncalls: "+strings.Join(want, ", ")) {
		t.Errorf("the text lacks the calls line:\n%s", text)
	}
	text = callSummary(t, cs, "log_stats", map[string]any{"source": "game", "since": t0.Format(time.RFC3339)}, &stats)
	want = []string{"spawn_enemy {count} ×3 (2 crashed)", "get_state {} ×3", "load_level {name} ×1 (1 failed)"}
	if fmt.Sprint(stats.Calls) != fmt.Sprint(want) {
		t.Errorf("every run: calls %q, want %q\n%s", stats.Calls, want, text)
	}
	t.Logf("log_stats {since}:\n%s", text)
}
