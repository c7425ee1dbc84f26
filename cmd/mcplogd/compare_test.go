//go:build !windows

package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompare_Outcomes: the runs mcplogd run records are judged by how
// they ended: a crash after a run that exited cleanly is a regression, not
// "crashed too"; a run that exited cleanly after a crash is over, never
// "too soon to tell". mcplogd compare and compare_runs say the same.
func TestCompare_Outcomes(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	game := func(script string, status int) {
		t.Helper()
		_, err := run(t, data, "run", "--name", "Game", "--", "sh", "-c", script)
		var code exitStatus
		if status == 0 && err != nil || status != 0 && (!errors.As(err, &code) || int(code) != status) {
			t.Fatalf("run %q: %v; want exit status %d", script, err, status)
		}
	}
	game("echo 'Loading level 1'; exit 0", 0)
	game("echo 'Loading level 1'; kill -SEGV $$", 128+11)
	regression := "regression: run 1 exited cleanly, run 2 crashed (record "
	out, err := run(t, data, "compare")
	if err != nil || !strings.Contains(out, "Game: run 2 (crashed) against run 1 (exited)\n"+regression) || strings.Contains(out, "crashed too") {
		t.Errorf("compare after a clean exit, then a crash: %v\n%s", err, out)
	}
	game("echo 'Loading level 1'; exit 0", 0)
	out, err = run(t, data, "compare")
	if err != nil || !strings.Contains(out, "Game: run 3 (exited) against run 2 (crashed)\nrun 3 exited cleanly") || strings.Contains(out, "too soon") {
		t.Errorf("compare after a crash, then a clean exit: %v\n%s", err, out)
	}

	// An uncaught exception's line is a template and a crash group: gone,
	// it is listed once, as the crash. The fixed run printed what came
	// before it, and its exit where the traceback was: past the point.
	game(`echo 'Loading level 1'; printf 'Traceback (most recent call last):\n  File "game.py", line 7, in lookup\nKeyError: %s\n' "'sword'" >&2; exit 1`, 1)
	game("echo 'Loading level 1'; exit 0", 0)
	out, err = run(t, data, "compare")
	if err != nil || strings.Count(out, "KeyError") != 1 || !strings.Contains(out, "crash 1 → 0") ||
		!strings.Contains(out, "run 5 exited cleanly, past the point where run 4 crashed") {
		t.Errorf("compare after a traceback, then a clean exit: %v\n%s", err, out)
	}

	cs := startStdio(t, data, "--in-process")
	if text, isErr := toolText(t, cs, "compare_runs", map[string]any{"run": "2"}); isErr || !strings.Contains(text, regression) || strings.Contains(text, "crashed too") {
		t.Errorf("compare_runs {run: 2}: %s", text)
	}
	if text, isErr := toolText(t, cs, "compare_runs", map[string]any{"run": "3"}); isErr || !strings.Contains(text, ": run 3 exited cleanly") || strings.Contains(text, "too soon") {
		t.Errorf("compare_runs: %s", text)
	}
}
