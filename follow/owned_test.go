package follow

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestFollower_RunsOwned: a follower whose runs another writer owns (the
// game's process) writes no run marker for the engine's banner nor for a
// rewrite of the file, no exit marker for its shutdown line and no end
// marker at Close; one that owns them writes each.
func TestFollower_RunsOwned(t *testing.T) {
	for _, owned := range []bool{false, true} {
		l := mustLog(t)
		path := filepath.Join(t.TempDir(), "godot.log")
		appendFile(t, path, "Godot Engine v4.2.1.stable.official.b09f793f5 - https://godotengine.org\nready\n")
		f := mustStart(t, l, Options{Name: testSource, Path: path, Parser: "godot", Poll: 10 * time.Millisecond, Quiet: 50 * time.Millisecond, RunsOwned: owned})
		waitStored(t, l, map[bool]int{false: 3, true: 2}[owned])
		mustClose(t, f)
		markers := 0
		for _, r := range ofSource(t, l, testSource) {
			if r.Kind == oplog.KindMarker {
				markers++
			}
		}
		if want := map[bool]int{false: 2, true: 0}[owned]; markers != want { // the run's start and the end at Close
			t.Errorf("RunsOwned %v: %d markers, want %d: %q", owned, markers, want, texts(ofSource(t, l, testSource)))
		}
	}
}

// TestFollower_Sync: Sync returns once the lines written before it are
// stored, the held last entry of a traceback too, without waiting for
// the quiet time.
func TestFollower_Sync(t *testing.T) {
	l := mustLog(t)
	path := filepath.Join(t.TempDir(), "game.log")
	appendFile(t, path, "start\n")
	opts := testOptions(path)
	opts.Quiet = time.Hour // only Sync flushes what the parser holds
	opts.makeParser = nil
	f := mustStart(t, l, opts)
	appendFile(t, path, "Traceback (most recent call last):\n  File \"game.py\", line 3, in spawn\nOverflowError: enemy pool overflow\n")
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := f.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(texts(ofSource(t, l, testSource)), "\n")
	if !strings.Contains(got, "OverflowError") {
		t.Fatalf("after Sync: %q, want the traceback stored", got)
	}
	mustClose(t, f)
	if err := f.Sync(ctx); err != nil {
		t.Errorf("Sync after Close: %v, want nil", err)
	}
}
