package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// appendToData opens the data directory at data (making it) in this
// process, appends recs, checks the store and closes it; it returns the
// records with their IDs.
func appendToData(t *testing.T, data string, recs ...oplog.Record) []oplog.Record {
	t.Helper()
	dir, err := datadir.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	o, err := openLog(dir, openOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	recs = logtest.MustAppend(t, o.log, recs...)
	logtest.MustCheck(t, o.db)
	return recs
}

// runRow is one line of `mcplogd runs`' table, the times left out.
type runRow struct {
	offset, source, run, duration, records, errors, outcome, crash string
}

// runRows reads the table `mcplogd runs` printed: its rows, oldest first,
// and the footer ("" when none).
func runRows(t *testing.T, out string) (rows []runRow, footer string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(strings.TrimSpace(lines[0]), "IDX") {
		t.Fatalf("runs: no header:\n%s", out)
	}
	for _, line := range lines[1:] {
		if strings.HasPrefix(line, "(") {
			footer = line
			continue
		}
		f := strings.Fields(line)
		if len(f) < 11 {
			t.Fatalf("runs: short row %q in\n%s", line, out)
		}
		rows = append(rows, runRow{offset: f[0], source: f[1], run: f[2], duration: f[7], records: f[8], errors: f[9], outcome: f[10],
			crash: strings.Join(f[11:], " ")})
	}
	return rows, footer
}

// TestRuns_Outcomes: `mcplogd runs` on a source whose runs crashed (a
// fatal line), exited (an exit marker), ended (the next run marker) and
// are running, beside a second source: directly on the file, then through
// the running server, where a fatal line posted over HTTP makes the other
// source's run crashed.
func TestRuns_Outcomes(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	at := func(s int) time.Time { return base.Add(time.Duration(s) * time.Second) }
	marker := func(name string, s int) oplog.Record {
		return oplog.Record{Kind: oplog.KindMarker, Name: name, Level: oplog.LevelInfo, Source: "game", Time: at(s), Text: "game " + name}
	}
	line := func(l oplog.Level, source, text string, s int) oplog.Record {
		return oplog.Record{Level: l, Source: source, Text: text, Time: at(s)}
	}
	crash := line(oplog.LevelFatal, "game", "NullReferenceException: boom\n  second line of the text", 4)
	crash.Stack = "Player.Update () (at Assets/Scripts/Player.cs:42)"
	recs := appendToData(t, data,
		// game's run 1 crashed: a fatal line.
		marker(oplog.MarkerRun, 0), line(oplog.LevelInfo, "game", "loading", 1), crash,
		// editor's only run is running.
		line(oplog.LevelInfo, "editor", "editor up", 5),
		// game's run 2 exited: an exit marker at level info.
		marker(oplog.MarkerRun, 10), line(oplog.LevelError, "game", "no stack here", 11), marker(oplog.MarkerExit, 20),
		// game's run 3 ended: run 4 began.
		marker(oplog.MarkerRun, 30), line(oplog.LevelInfo, "game", "three", 31),
		// game's run 4 is running.
		marker(oplog.MarkerRun, 40), line(oplog.LevelInfo, "game", "four", 42),
	)
	crashID := fmt.Sprint("#", recs[2].ID)
	want := []runRow{
		{"-3", "game", "1", "4s", "3", "1", "crashed", crashID + " NullReferenceException: boom"},
		{"0", "editor", "1", "0s", "1", "0", "running", ""},
		{"-2", "game", "2", "10s", "3", "1", "exited", ""},
		{"-1", "game", "3", "1s", "2", "0", "ended", ""},
		{"0", "game", "4", "2s", "2", "0", "running", ""},
	}
	check := func(t *testing.T, want []runRow) {
		t.Helper()
		out, err := run(t, data, "runs")
		if err != nil {
			t.Fatalf("runs: %v", err)
		}
		rows, footer := runRows(t, out)
		if fmt.Sprint(rows) != fmt.Sprint(want) || footer != "" {
			t.Fatalf("runs:\n%s\ngot  %v\nwant %v", out, rows, want)
		}
		t.Logf("mcplogd runs:\n%s", out)

		out, err = run(t, data, "runs", "--source", "game", "--limit", "2")
		if rows, footer := runRows(t, out); err != nil || fmt.Sprint(rows) != fmt.Sprint(want[3:]) ||
			footer != "(the newest 2 of 4 runs; --all shows every run)" {
			t.Fatalf("runs --source game --limit 2 (%v):\n%s", err, out)
		}

		out, err = run(t, data, "runs", "--json", "--all", "--source", "game")
		if err != nil {
			t.Fatalf("runs --json: %v", err)
		}
		var got []string
		for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
			var r struct {
				Offset    int    `json:"offset"`
				Run       uint64 `json:"run"`
				Outcome   string `json:"outcome"`
				CrashID   uint64 `json:"crashId"`
				CrashText string `json:"crashText"`
				EndID     uint64 `json:"endId"`
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("runs --json: %q: %v", l, err)
			}
			got = append(got, fmt.Sprintf("%d %d %s %d %q %t", r.Offset, r.Run, r.Outcome, r.CrashID, r.CrashText, r.EndID != 0))
		}
		wantJSON := []string{
			fmt.Sprintf("-3 1 crashed %d %q true", recs[2].ID, "NullReferenceException: boom"),
			`-2 2 exited 0 "" true`, `-1 3 ended 0 "" true`, `0 4 running 0 "" false`,
		}
		if fmt.Sprint(got) != fmt.Sprint(wantJSON) {
			t.Fatalf("runs --json:\n%s\ngot  %q\nwant %q", out, got, wantJSON)
		}
	}
	t.Run("Direct", func(t *testing.T) { check(t, want) })

	t.Run("BadFlags", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--limit", "0"}, "--limit: want at least 1, got 0"},
			{[]string{"--all", "--limit", "5"}, "--all and --limit: give one of the two"},
			{[]string{"--source", "gmae"}, `--source: no runs of "gmae"; the sources are editor, game`},
			{[]string{"--limit", "many"}, `invalid value "many" for --limit`},
		} {
			if _, err := run(t, data, append([]string{"runs"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("runs %v: %v; want an error with %q", c.args, err, c.want)
			}
		}
		if _, err := run(t, data, "runs", "extra"); !errors.Is(err, errUsage) {
			t.Errorf("runs extra: %v; want a usage error", err)
		}
		if _, err := run(t, filepath.Join(t.TempDir(), "none"), "runs"); err == nil {
			t.Error("runs on a missing data directory: no error")
		}
	})

	t.Run("Server", func(t *testing.T) {
		addr, _, stop := startServe(t, data, "--addr", "127.0.0.1:0")
		check(t, want) // serve holds the file: the command can only have asked the server
		body := `{"level":"fatal","source":"editor","text":"Segmentation fault","stack":"#0 0x00007f in EditorLoop::Tick (Editor.cpp:12)"}`
		code, answer := post(t, addr+"/api/v1/logs", readToken(t, data), body)
		var ids struct{ IDs []uint64 }
		if code != 200 || json.Unmarshal([]byte(answer), &ids) != nil || len(ids.IDs) != 1 {
			t.Fatalf("ingest: %d %s", code, answer)
		}
		out, err := run(t, data, "runs", "--source", "editor")
		rows, _ := runRows(t, out)
		wantEditor := runRow{"0", "editor", "1", "", "2", "1", "crashed", fmt.Sprintf("#%d Segmentation fault", ids.IDs[0])}
		if len(rows) == 1 {
			wantEditor.duration = rows[0].duration // about an hour: the line arrived now
		}
		if err != nil || len(rows) != 1 || rows[0] != wantEditor {
			t.Fatalf("runs --source editor through the server (%v):\n%s\nwant %v", err, out, wantEditor)
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestRuns_CrashTextIsTheTitles: a run that crashed of an exception a
// logger announced (Python's logging.exception, then a failing exit) shows
// the exception, as the crash's group is titled, not the logger's words.
func TestRuns_CrashTextIsTheTitles(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	announced := oplog.Record{Level: oplog.LevelError, Source: "game", Text: "fatal error while spawning",
		Stack: "Traceback (most recent call last):\n  File \"/g/game.py\", line 7, in spawn\n    return wave[\"dragon\"]\nKeyError: 'dragon'"}
	appendToData(t, data,
		oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "game", Text: "run started: python3 game.py"},
		announced,
		oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: oplog.LevelError, Source: "game", Text: "python3 exited with status 1"})
	out, err := run(t, data, "runs", "--json")
	if err != nil || !strings.Contains(out, `"outcome":"crashed"`) || !strings.Contains(out, `"crashText":"KeyError: 'dragon'"`) {
		t.Fatalf("runs --json (%v):\n%s", err, out)
	}
}
