package follow

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// The real crash reports of testdata/minecraft, by the name they are
// written under.
var crashFixtures = []string{
	"crash-2020-05-15_22.03.56-server.txt",
	"crash-2023-12-28_13.21.22-client.txt",
	"crash-2026-08-20_19.29.12-client.txt",
}

func dirOptions(dir string) DirOptions {
	return DirOptions{Name: testSource, Dir: dir, Glob: McCrashGlob, Parser: "mccrash",
		Poll: 10 * time.Millisecond, Quiet: 50 * time.Millisecond, Done: 100 * time.Millisecond}
}

func mustStartDir(tb testing.TB, l *oplog.Log, opts DirOptions) *DirFollower {
	tb.Helper()
	d, err := StartDir(l, opts)
	if err != nil {
		tb.Fatalf("StartDir: %v", err)
	}
	tb.Cleanup(func() { _ = d.Close() })
	return d
}

// writeCrash writes the fixture i into dir under its own name, whole.
func writeCrash(tb testing.TB, dir string, i int) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, crashFixtures[i]), readSample(tb, "minecraft/"+crashFixtures[i]), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// crashTexts is what a one-shot parse of fixtures gives: one text each.
func crashTexts(tb testing.TB, which ...int) []string {
	tb.Helper()
	var out []string
	for _, i := range which {
		es := feed(mustParser(tb, "mccrash"), readSample(tb, "minecraft/"+crashFixtures[i]))
		if len(es) != 1 {
			tb.Fatalf("%s: %d entries", crashFixtures[i], len(es))
		}
		out = append(out, es[0].Record.Text)
	}
	return out
}

// checkCrashes fails unless the stored records are exactly the reports
// which, in any order (files are read at once), each fatal and whole.
func checkCrashes(tb testing.TB, l *oplog.Log, which ...int) {
	tb.Helper()
	recs := stored(tb, l)
	got, want := texts(recs), crashTexts(tb, which...)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		tb.Fatalf("stored %d records, want %d:\n got  %q\n want %q", len(got), len(want), got, want)
	}
	for _, r := range recs {
		if r.Level != oplog.LevelFatal || r.Stack == "" || r.Time.Year() < 2020 {
			tb.Errorf("record %q: level %s, time %s, stack %d bytes", r.Text, r.Level, r.Time, len(r.Stack))
		}
	}
}

// waitIdle waits until no file of d is followed: each was read to its end.
func waitIdle(tb testing.TB, d *DirFollower) {
	tb.Helper()
	logtest.Eventually(tb, waitFor, "every file done", func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return len(d.files) == 0 && len(d.finished) > 0
	})
}

// TestDirFollower_NewFiles: the directory appears after start; a report
// written into it, then two at once, are each stored as one fatal record,
// and their followers stop once the files are done.
func TestDirFollower_NewFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crash-reports")
	l := mustLog(t)
	d := mustStartDir(t, l, dirOptions(dir))
	logtest.Eventually(t, waitFor, "waiting", func() bool { return d.Status().State == StateWaiting })

	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(dir, "latest.log"), "not a crash report\n") // not matched
	writeCrash(t, dir, 0)
	waitStored(t, l, 1)
	waitIdle(t, d)
	writeCrash(t, dir, 1)
	writeCrash(t, dir, 2)
	waitStored(t, l, 3)
	waitIdle(t, d)
	if err := os.Remove(filepath.Join(dir, crashFixtures[0])); err != nil {
		t.Fatal(err)
	}
	logtest.Eventually(t, waitFor, "removed file forgotten", func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return len(d.finished) == 2
	})
	st := d.Status()
	if st.State != StateFollowing || st.Stored != 3 || st.Parser != "mccrash" || st.Path != filepath.Join(dir, McCrashGlob) {
		t.Errorf("status %+v", st)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	checkCrashes(t, l, 0, 1, 2)
}

// TestDirFollower_Restart: a report present before the first start is
// imported once; a restart imports only the new one and starts no
// follower for the files read whole before.
func TestDirFollower_Restart(t *testing.T) {
	dir := t.TempDir()
	l := mustLog(t)
	writeCrash(t, dir, 1)
	d := mustStartDir(t, l, dirOptions(dir))
	waitStored(t, l, 1)
	waitIdle(t, d)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	d = mustStartDir(t, l, dirOptions(dir))
	waitIdle(t, d) // the old file is found read whole: no follower
	if st := d.Status(); st.Lines != 0 {
		t.Errorf("restart read %d lines of a file read before", st.Lines)
	}
	writeCrash(t, dir, 0)
	waitStored(t, l, 2)
	logtest.Eventually(t, waitFor, "both done", func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return len(d.finished) == 2
	})
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d = mustStartDir(t, l, dirOptions(dir))
	waitIdle(t, d)
	time.Sleep(50 * time.Millisecond) // a few scans
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	checkCrashes(t, l, 1, 0)
}

// TestDirFollower_KillHalfWritten: mcplogd dies while a report is half
// written (the parser holds it): the restart reads it again from its
// start, once the writer finished, and stores it once, whole.
func TestDirFollower_KillHalfWritten(t *testing.T) {
	dir := t.TempDir()
	l := mustLog(t)
	whole := string(readSample(t, "minecraft/"+crashFixtures[2]))
	path := filepath.Join(dir, crashFixtures[2])
	appendFile(t, path, whole[:len(whole)/2])
	held := dirOptions(dir)
	held.Quiet = time.Hour // nothing is flushed before the kill
	d := mustStartDir(t, l, held)
	logtest.Eventually(t, waitFor, "lines read", func() bool { return d.Status().Lines > 10 })
	d.kill()
	if n := len(stored(t, l)); n != 0 {
		t.Fatalf("%d records stored before the kill", n)
	}

	appendFile(t, path, whole[len(whole)/2:])
	writeCrash(t, dir, 0)
	d = mustStartDir(t, l, dirOptions(dir))
	waitStored(t, l, 2)
	waitIdle(t, d)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	checkCrashes(t, l, 2, 0)
}

// TestDirFollower_OwnPosition: a new file of the directory resumes only
// from its own position, not from another file's record of the same
// source (the Follower's fallback for stores without positions), which
// would make it read the rest of that file too: here the second report
// of a file, half written at a kill, would be stored twice.
func TestDirFollower_OwnPosition(t *testing.T) {
	dir := t.TempDir()
	l := mustLog(t)
	second := string(readSample(t, "minecraft/"+crashFixtures[2]))
	path := filepath.Join(dir, crashFixtures[0])
	appendFile(t, path, string(readSample(t, "minecraft/"+crashFixtures[0]))+second[:len(second)/2])
	held := dirOptions(dir)
	held.Quiet = time.Hour
	d := mustStartDir(t, l, held)
	waitStored(t, l, 1) // the first report: the banner of the second ended it
	d.kill()

	appendFile(t, path, second[len(second)/2:])
	writeCrash(t, dir, 1)
	d = mustStartDir(t, l, dirOptions(dir))
	waitStored(t, l, 3)
	waitIdle(t, d)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	checkCrashes(t, l, 0, 2, 1)
}

func TestStartDir_Errors(t *testing.T) {
	l := mustLog(t)
	for _, opts := range []DirOptions{
		{Name: "", Dir: "x"},
		{Name: "a", Dir: ""},
		{Name: "a", Dir: "x", Glob: "["},
		{Name: "a", Dir: "x", Parser: "nope"},
	} {
		if d, err := StartDir(l, opts); err == nil {
			d.Close()
			t.Errorf("%+v: no error", opts)
		}
	}
}
