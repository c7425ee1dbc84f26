package follow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

const (
	testSource = "game"
	waitFor    = 10 * time.Second
)

// openLog opens a Log over a bbolt file at dir/log.db; the caller closes it
// (tests that simulate a crash close it themselves and open it again).
func openLog(tb testing.TB, dir string) *oplog.Log {
	tb.Helper()
	db, err := store.Open(filepath.Join(dir, "log.db"), nil)
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	return oplog.New(db, nil)
}

// mustLog opens a Log in a new temporary directory, closed at cleanup.
func mustLog(tb testing.TB) *oplog.Log {
	tb.Helper()
	l := openLog(tb, tb.TempDir())
	tb.Cleanup(func() { _ = l.Close() })
	return l
}

// testOptions follows path with the plain parser, polling fast.
func testOptions(path string) Options {
	return Options{Name: testSource, Path: path, Poll: 10 * time.Millisecond, Quiet: 50 * time.Millisecond, makeParser: plainParser}
}

func mustStart(tb testing.TB, l *oplog.Log, opts Options) *Follower {
	tb.Helper()
	f, err := Start(l, opts)
	if err != nil {
		tb.Fatalf("Start: %v", err)
	}
	tb.Cleanup(func() { _ = f.Close() })
	return f
}

// stored returns the records of the test source, oldest first, but the end
// markers a follower adds when it stops.
func stored(tb testing.TB, l *oplog.Log) []oplog.Record {
	recs := tailAll(tb, l, oplog.Filter{Source: testSource})
	return slices.DeleteFunc(recs, func(r oplog.Record) bool { return r.Kind == oplog.KindMarker && r.Name == oplog.MarkerEnd })
}

// all returns every record of the test source, markers too, oldest first.
func all(tb testing.TB, l *oplog.Log) []oplog.Record { return ofSource(tb, l, testSource) }

// ofSource returns every record of source, markers too, oldest first.
func ofSource(tb testing.TB, l *oplog.Log, source string) []oplog.Record {
	return tailAll(tb, l, oplog.Filter{Source: source, Kind: oplog.KindLine, WithMarkers: true})
}

// tailAll returns every record f keeps, oldest first, page by page.
func tailAll(tb testing.TB, l *oplog.Log, f oplog.Filter) []oplog.Record {
	tb.Helper()
	var out []oplog.Record
	q := oplog.TailQuery{Filter: f, HasSince: true, Limit: oplog.MaxTailLimit}
	for {
		t, err := l.Tail(context.Background(), q)
		if err != nil {
			tb.Fatalf("tail: %v", err)
		}
		out = append(out, t.Lines...)
		if !t.More {
			return out
		}
		q.SinceID = t.LastID
	}
}

func texts(recs []oplog.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Text
	}
	return out
}

// waitStored waits until at least n records of the test source are stored.
func waitStored(tb testing.TB, l *oplog.Log, n int) {
	tb.Helper()
	logtest.Eventually(tb, waitFor, fmt.Sprintf("%d records stored", n), func() bool { return len(stored(tb, l)) >= n })
}

// checkTexts fails unless the stored texts are exactly want, in order.
func checkTexts(tb testing.TB, l *oplog.Log, want []string) {
	tb.Helper()
	got := texts(stored(tb, l))
	if !slices.Equal(got, want) {
		tb.Fatalf("stored %d lines, want %d:\n got  %q\n want %q", len(got), len(want), clip(got), clip(want))
	}
}

func clip(s []string) []string {
	if len(s) > 40 {
		return append(slices.Clip(s[:20]), append([]string{"..."}, s[len(s)-20:]...)...)
	}
	return s
}

func lines(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s-%d", prefix, i))
	}
	return out
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// appendFile appends s to path, creating it.
func appendFile(tb testing.TB, path, s string) {
	tb.Helper()
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := fh.WriteString(s); err != nil {
		tb.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		tb.Fatal(err)
	}
}

func mustClose(tb testing.TB, f *Follower) {
	tb.Helper()
	if err := f.Close(); err != nil {
		tb.Fatalf("Close: %v", err)
	}
}

func TestFollower_Rotation(t *testing.T) {
	t.Run("RenameAndNewFile", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "app.log")
		l := mustLog(t)
		appendFile(t, path, joinLines(lines("a", 0, 100)))
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, 100)

		// A writer that holds the file open: lines written just before the
		// rename, and through its handle after it, belong to the old file.
		old := openWriter(t, path)
		defer old.Close()
		if _, err := old.WriteString(joinLines(lines("a", 100, 150))); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path, path+".1"); err != nil {
			t.Fatal(err)
		}
		if _, err := old.WriteString(joinLines(lines("a", 150, 160)) + "a-160-unterminated"); err != nil {
			t.Fatal(err)
		}
		appendFile(t, path, joinLines(lines("b", 0, 50)))

		want := slices.Concat(lines("a", 0, 160), []string{"a-160-unterminated"}, lines("b", 0, 50))
		waitStored(t, l, len(want))
		mustClose(t, f)
		checkTexts(t, l, want)
		recs := stored(t, l)
		if p := positionOf(recs[len(recs)-1].Data); p == nil || p.File != path || p.Offset != int64(len(joinLines(lines("b", 0, 50)))) {
			t.Fatalf("last position = %+v, want file %s at the end of the new file", p, path)
		}
		if p := positionOf(recs[0].Data); p == nil || p.FileID == positionOf(recs[len(recs)-1].Data).FileID {
			t.Fatalf("the old and the new file have the same fileId: %+v", p)
		}
	})

	t.Run("WrittenBetweenLastReadAndRename", func(t *testing.T) {
		// The writer adds lines after the follower read to the end and
		// before it sees the new file: they are read from the old one.
		path := filepath.Join(t.TempDir(), "app.log")
		l := mustLog(t)
		appendFile(t, path, "a-0\n")
		old := openWriter(t, path)
		defer old.Close()
		var armed atomic.Bool
		opts := testOptions(path)
		opts.atEOF = func() {
			if !armed.CompareAndSwap(true, false) {
				return
			}
			if _, err := old.WriteString("a-1\n"); err != nil {
				t.Error(err)
			}
			if err := os.Rename(path, path+".1"); err != nil {
				t.Error(err)
			}
			appendFile(t, path, "b-0\n")
		}
		f := mustStart(t, l, opts)
		waitStored(t, l, 1)
		armed.Store(true)
		waitStored(t, l, 3)
		mustClose(t, f)
		checkTexts(t, l, []string{"a-0", "a-1", "b-0"})
	})

	t.Run("HeldEntry", func(t *testing.T) {
		// The parser holds the old file's last entry: it is stored before
		// the new file is read, not lost with the old parser.
		path := filepath.Join(t.TempDir(), "app.log")
		l := mustLog(t)
		opts := testOptions(path)
		opts.Quiet = time.Hour
		opts.makeParser = func() Parser { return &stackParser{} }
		appendFile(t, path, "boom\n\tat a()\n")
		f := mustStart(t, l, opts)
		logtest.Eventually(t, waitFor, "2 lines read", func() bool { return f.Status().Lines == 2 })
		if err := os.Rename(path, path+".1"); err != nil {
			t.Fatal(err)
		}
		appendFile(t, path, "next\n")
		waitStored(t, l, 1)
		// Close stores what the parser holds, not what is still unread.
		logtest.Eventually(t, waitFor, "the new file read", func() bool { return f.Status().Lines == 3 })
		mustClose(t, f)
		checkTexts(t, l, []string{"boom", "next"})
		if recs := stored(t, l); recs[0].Stack != "\tat a()" {
			t.Fatalf("stack = %q", recs[0].Stack)
		}
	})

	t.Run("RemovedThenRecreated", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "app.log")
		l := mustLog(t)
		appendFile(t, path, joinLines(lines("a", 0, 10)))
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, 10)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		appendFile(t, path, joinLines(lines("b", 0, 10)))
		waitStored(t, l, 20)
		mustClose(t, f)
		checkTexts(t, l, slices.Concat(lines("a", 0, 10), lines("b", 0, 10)))
	})
}

func TestFollower_Truncation(t *testing.T) {
	t.Run("Shorter", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "Editor.log")
		l := mustLog(t)
		appendFile(t, path, joinLines(lines("run1", 0, 50)))
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, 50)
		// The editor rewrites its log at start: same inode, shorter.
		if err := os.WriteFile(path, []byte(joinLines(lines("run2", 0, 5))), 0o644); err != nil {
			t.Fatal(err)
		}
		// The new content has no banner: the follower's marker starts the run.
		want := slices.Concat(lines("run1", 0, 50), []string{"run started: the log file was truncated"}, lines("run2", 0, 5))
		waitStored(t, l, len(want))
		appendFile(t, path, joinLines(lines("run2", 5, 8)))
		want = append(want, lines("run2", 5, 8)...)
		waitStored(t, l, len(want))
		mustClose(t, f)
		checkTexts(t, l, want)
	})

	t.Run("ShorterSameBeginning", func(t *testing.T) {
		// The first headSize bytes are the same (a banner): only the size tells.
		path := filepath.Join(t.TempDir(), "Editor.log")
		l := mustLog(t)
		banner := strings.Repeat("=", 300)
		appendFile(t, path, banner+"\n"+joinLines(lines("run1", 0, 50)))
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, 51)
		if err := os.WriteFile(path, []byte(banner+"\n"+joinLines(lines("run2", 0, 5))), 0o644); err != nil {
			t.Fatal(err)
		}
		want := slices.Concat([]string{banner}, lines("run1", 0, 50),
			[]string{"run started: the log file was truncated", banner}, lines("run2", 0, 5))
		waitStored(t, l, len(want))
		mustClose(t, f)
		checkTexts(t, l, want)
	})

	t.Run("SameLengthOtherContent", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "Editor.log")
		l := mustLog(t)
		appendFile(t, path, "old-1\nold-2\n")
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, 2)
		// Overwrite in place without truncating: the size never shrinks, only
		// the first bytes tell.
		overwrite(t, path, "new-1\nnew-2\n")
		waitStored(t, l, 5)
		mustClose(t, f)
		checkTexts(t, l, []string{"old-1", "old-2", "run started: the log file was rewritten", "new-1", "new-2"})
	})

	t.Run("LongerOtherContent", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "Editor.log")
		l := mustLog(t)
		appendFile(t, path, "old-1\n")
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, 1)
		// Rewritten and grown past the old size before the next look.
		overwrite(t, path, "new-1\nnew-2\nnew-3\n")
		waitStored(t, l, 5)
		mustClose(t, f)
		checkTexts(t, l, []string{"old-1", "run started: the log file was rewritten", "new-1", "new-2", "new-3"})
	})
}

func TestFollower_Restart(t *testing.T) {
	t.Run("Close", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "app.log")
		l := mustLog(t)
		appendFile(t, path, joinLines(lines("x", 0, 100)))
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, 100)
		mustClose(t, f)

		appendFile(t, path, joinLines(lines("x", 100, 150))+"x-150")
		f = mustStart(t, l, testOptions(path))
		waitStored(t, l, 150)
		mustClose(t, f) // with "x-150" still partial: not stored

		appendFile(t, path, "-end\n")
		f = mustStart(t, l, testOptions(path))
		waitStored(t, l, 151)
		mustClose(t, f)
		checkTexts(t, l, append(lines("x", 0, 150), "x-150-end"))
	})

	t.Run("Kill", func(t *testing.T) {
		// A kill -9 at any moment: the records a follower appended are
		// durable, what it held is lost. Kill it while a writer is busy,
		// several times, and restart.
		path := filepath.Join(t.TempDir(), "app.log")
		l := mustLog(t)
		n := 0
		for round := range 5 {
			f := mustStart(t, l, testOptions(path))
			stop := n + 2000
			for ; n < stop; n += 50 {
				appendFile(t, path, joinLines(lines("k", n, n+50)))
			}
			if round%2 == 0 {
				waitStored(t, l, n/2) // kill in the middle of the file
			}
			f.kill()
		}
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, n)
		mustClose(t, f)
		checkTexts(t, l, lines("k", 0, n))
	})

	t.Run("KillWithHeldEntry", func(t *testing.T) {
		// The parser holds a stack trace when the follower dies: the
		// restarted one reads its lines again and stores it whole.
		path := filepath.Join(t.TempDir(), "app.log")
		l := mustLog(t)
		opts := testOptions(path)
		opts.Quiet = time.Hour
		opts.makeParser = func() Parser { return &stackParser{} }
		appendFile(t, path, "start\nboom\n\tat a()\n")
		f := mustStart(t, l, opts)
		waitStored(t, l, 1)
		logtest.Eventually(t, waitFor, "3 lines read", func() bool { return f.Status().Lines == 3 })
		f.kill()

		appendFile(t, path, "\tat b()\nnext\n")
		f = mustStart(t, l, opts)
		waitStored(t, l, 2)
		mustClose(t, f)
		recs := stored(t, l)
		checkTexts(t, l, []string{"start", "boom", "next"})
		if recs[1].Stack != "\tat a()\n\tat b()" {
			t.Fatalf("stack = %q, want both frames", recs[1].Stack)
		}
	})

	t.Run("LogClosedUnderIt", func(t *testing.T) {
		// The store closes while the follower appends (the process dies):
		// reopen it and start again.
		dir := t.TempDir()
		path := filepath.Join(dir, "app.log")
		l := openLog(t, dir)
		appendFile(t, path, joinLines(lines("c", 0, 3000)))
		f, err := Start(l, testOptions(path))
		if err != nil {
			t.Fatal(err)
		}
		logtest.Eventually(t, waitFor, "some records stored", func() bool { return f.Status().Stored > 0 })
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		// Lines the follower reads but can no longer store.
		appendFile(t, path, joinLines(lines("c", 3000, 3100)))
		logtest.Eventually(t, waitFor, "failing", func() bool { return f.Status().State == StateFailing })
		if err := f.Close(); !errors.Is(err, oplog.ErrClosed) {
			t.Fatalf("Close = %v, want ErrClosed", err)
		}

		l = openLog(t, dir)
		defer l.Close()
		f = mustStart(t, l, testOptions(path))
		waitStored(t, l, 3100)
		mustClose(t, f)
		checkTexts(t, l, lines("c", 0, 3100))
	})

	t.Run("RotatedWhileStopped", func(t *testing.T) {
		// Unity moves Editor.log to Editor-prev.log at start: the lines
		// written to it after the follower stopped are read from there.
		dir := t.TempDir()
		path := filepath.Join(dir, "Editor.log")
		l := mustLog(t)
		followOnce(t, l, path, lines("a", 0, 20))

		appendFile(t, path, joinLines(lines("a", 20, 30)))
		if err := os.Rename(path, filepath.Join(dir, "Editor-prev.log")); err != nil {
			t.Fatal(err)
		}
		appendFile(t, path, joinLines(lines("b", 0, 10)))
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, 40)
		mustClose(t, f)
		checkTexts(t, l, slices.Concat(lines("a", 0, 30), lines("b", 0, 10)))
	})

	t.Run("RotatedWhileStoppedNoNewFile", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "app.log")
		l := mustLog(t)
		followOnce(t, l, path, lines("a", 0, 20))

		appendFile(t, path, joinLines(lines("a", 20, 30)))
		if err := os.Rename(path, path+".1"); err != nil {
			t.Fatal(err)
		}
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, 30)
		appendFile(t, path, joinLines(lines("b", 0, 10)))
		waitStored(t, l, 40)
		mustClose(t, f)
		checkTexts(t, l, slices.Concat(lines("a", 0, 30), lines("b", 0, 10)))
	})

	t.Run("OtherFileWhileStopped", func(t *testing.T) {
		// The file was replaced by another (renamed over it: another
		// inode) and the old one is gone: the new one is read from its
		// start, as a rotated log's is.
		path := filepath.Join(t.TempDir(), "app.log")
		l := mustLog(t)
		followOnce(t, l, path, lines("a", 0, 20))

		// Longer than the old file, so that only the identity tells.
		appendFile(t, path+".new", joinLines(lines("b", 0, 30)))
		if err := os.Rename(path+".new", path); err != nil {
			t.Fatal(err)
		}
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, 50)
		mustClose(t, f)
		checkTexts(t, l, slices.Concat(lines("a", 0, 20), lines("b", 0, 30)))
	})

	t.Run("OtherWritersOfTheSource", func(t *testing.T) {
		// Records of the same source without a position (HTTP ingest) do not
		// hide where the follower stopped.
		path := filepath.Join(t.TempDir(), "app.log")
		l := mustLog(t)
		followOnce(t, l, path, lines("a", 0, 20))
		logtest.MustAppend(t, l, oplog.Record{Source: testSource, Level: oplog.LevelInfo, Text: "ingested"})
		appendFile(t, path, joinLines(lines("a", 20, 25)))
		f := mustStart(t, l, testOptions(path))
		waitStored(t, l, 26)
		mustClose(t, f)
		checkTexts(t, l, slices.Concat(lines("a", 0, 20), []string{"ingested"}, lines("a", 20, 25)))
	})
}

func TestFollower_FileAppearsLater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "later.log")
	l := mustLog(t)
	f := mustStart(t, l, testOptions(path))
	if st := f.Status(); st.State != StateWaiting {
		t.Fatalf("state = %q, want waiting", st.State)
	}
	if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, joinLines(lines("l", 0, 10)))
	waitStored(t, l, 10)
	if st := f.Status(); st.State != StateFollowing {
		t.Fatalf("state = %q, want following", st.State)
	}
	mustClose(t, f)
	checkTexts(t, l, lines("l", 0, 10))
}

func TestFollower_PartialLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.log")
	l := mustLog(t)
	content := "first\r\nsecond-part"
	appendFile(t, path, content)
	f := mustStart(t, l, testOptions(path))
	// Once the follower has read every byte and the file has been quiet
	// past Options.Quiet, only the complete line is stored.
	logtest.Eventually(t, waitFor, "the whole file read", func() bool {
		st := f.Status()
		return st.Size == int64(len(content)) && st.Stored == 1
	})
	// The plain parser stores a line at once, so the partial one would show
	// by now; let Quiet pass too, whose flush must not take it either.
	time.Sleep(3 * testOptions("").Quiet)
	st := f.Status()
	if st.Lines != 1 || st.Stored != 1 || st.Offset != int64(len("first\r\n")) {
		t.Fatalf("status = %+v, want 1 line read and stored, offset 7", st)
	}
	checkTexts(t, l, []string{"first"})

	appendFile(t, path, "-rest\n")
	waitStored(t, l, 2)
	mustClose(t, f)
	checkTexts(t, l, []string{"first", "second-part-rest"})
}

func TestFollower_SlowCrashEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "game.log")
	l := mustLog(t)
	opts := testOptions(path)
	opts.Quiet = 5 * time.Second // far longer than the writer's pauses
	opts.makeParser = func() Parser { return &stackParser{} }
	f := mustStart(t, l, opts)

	frames := []string{
		"\tat com.example.game.Player.update(Player.java:42)",
		"\tat com.example.game.World.tick(World.java:117)",
		"\tat com.example.game.Main.main(Main.java:9)",
	}
	entry := "Exception in thread \"main\" java.lang.NullPointerException: player is null\n" + joinLines(frames)
	for i := 0; i < len(entry); i += 7 {
		appendFile(t, path, entry[i:min(i+7, len(entry))])
		time.Sleep(3 * time.Millisecond) // the writer's pace, not a wait for the follower
	}
	appendFile(t, path, "Game resumed\n")
	waitStored(t, l, 1)
	mustClose(t, f)

	recs := stored(t, l)
	checkTexts(t, l, []string{"Exception in thread \"main\" java.lang.NullPointerException: player is null", "Game resumed"})
	if want := strings.Join(frames, "\n"); recs[0].Stack != want {
		t.Fatalf("stack = %q, want %q", recs[0].Stack, want)
	}
	if recs[0].Level != oplog.LevelError {
		t.Fatalf("level = %s, want error", recs[0].Level)
	}
	if p := positionOf(recs[0].Data); p == nil || p.Offset != int64(len(entry)) {
		t.Fatalf("position = %+v, want offset %d (after the last frame)", p, len(entry))
	}
}

func TestFollower_QuietFlush(t *testing.T) {
	// A held entry is stored once the file has been quiet for Options.Quiet,
	// without waiting for the next line.
	path := filepath.Join(t.TempDir(), "game.log")
	l := mustLog(t)
	opts := testOptions(path)
	opts.makeParser = func() Parser { return &stackParser{} }
	appendFile(t, path, "boom\n\tat a()\n")
	f := mustStart(t, l, opts)
	waitStored(t, l, 1)
	recs := stored(t, l)
	if recs[0].Text != "boom" || recs[0].Stack != "\tat a()" {
		t.Fatalf("stored %+v", recs[0])
	}
	mustClose(t, f)
}

func TestFollower_Status(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.log")
	l := mustLog(t)
	f := mustStart(t, l, testOptions(path))
	st := f.Status()
	if st.Name != testSource || st.Path != path || st.Parser != "plain" || st.State != StateWaiting || st.Since.IsZero() {
		t.Fatalf("initial status = %+v", st)
	}
	content := joinLines(lines("s", 0, 10))
	appendFile(t, path, content+"partial")
	waitStored(t, l, 10)
	logtest.Eventually(t, waitFor, "the status to show the file", func() bool {
		st = f.Status()
		return st.Size == int64(len(content)+len("partial")) && st.Stored == 10 // set just after the append returns
	})
	if st.State != StateFollowing || st.Offset != int64(len(content)) || st.Lines != 10 || st.Stored != 10 || st.Error != "" {
		t.Fatalf("following status = %+v", st)
	}
	mustClose(t, f)

	t.Run("Failing", func(t *testing.T) {
		// A directory where the file should be cannot be read.
		l := mustLog(t)
		sub := filepath.Join(dir, "adir")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		f := mustStart(t, l, testOptions(sub))
		logtest.Eventually(t, waitFor, "failing", func() bool { return f.Status().State == StateFailing })
		if st := f.Status(); st.Error == "" {
			t.Fatalf("failing without an error: %+v", st)
		}
	})
}

func TestStart_Errors(t *testing.T) {
	l := mustLog(t)
	for _, opts := range []Options{
		{Path: "x.log"},
		{Name: "a\nb", Path: "x.log"},
		{Name: "game"},
	} {
		if f, err := Start(l, opts); err == nil {
			f.Close()
			t.Errorf("Start(%+v) = nil error", opts)
		}
	}
}

func TestFollower_Data(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.log")
	l := mustLog(t)
	opts := testOptions(path)
	opts.makeParser = func() Parser { return dataParser{} }
	appendFile(t, path, "plain\nwith-data\nwith-file\nnot-object\nhuge\n")
	f := mustStart(t, l, opts)
	waitStored(t, l, 5)
	mustClose(t, f)
	recs := stored(t, l)
	want := []map[string]any{
		{"file": path, "offset": 6.0},
		{"k": 1.0, "file": path, "offset": 16.0},
		{"file": "Assets/Player.cs", "line": 12.0, "offset": 26.0},
		{"file": path, "offset": 37.0},
		{"file": path, "offset": 42.0},
	}
	for i, r := range recs {
		var got map[string]any
		if err := json.Unmarshal(r.Data, &got); err != nil {
			t.Fatalf("record %d data %s: %v", i, r.Data, err)
		}
		if !strings.Contains(got["fileId"].(string), ":") {
			t.Errorf("record %d: fileId = %v", i, got["fileId"])
		}
		delete(got, "fileId")
		if fmt.Sprint(got) != fmt.Sprint(want[i]) {
			t.Errorf("record %d data = %v, want %v", i, got, want[i])
		}
	}
	if n := len(recs[4].Text); n > oplog.MaxTextBytes || n < oplog.CutHead || !strings.HasSuffix(recs[4].Text, " dropped]") {
		t.Errorf("huge text: %d bytes stored ending %q, want it cut to at most %d with the mark", n, recs[4].Text[max(n-60, 0):], oplog.MaxTextBytes)
	}
}

func TestFileID(t *testing.T) {
	c := &file{dev: 0xfd01, ino: 42, head: []byte("hello\nworld\n")}
	id := fileID(c.dev, c.ino, c.head[:6])
	c.id = fileID(c.dev, c.ino, c.head)
	for _, tc := range []struct {
		name string
		id   string
		want bool
	}{
		{"Same", c.id, true},
		{"ShorterHead", id, true}, // the file grew since that record
		{"OtherInode", fileID(c.dev, 43, c.head), false},
		{"OtherDevice", fileID(1, c.ino, c.head), false},
		{"OtherBytes", fileID(c.dev, c.ino, []byte("hellO\n")), false},
		{"LongerHead", fileID(c.dev, c.ino, []byte("hello\nworld\nmore")), false},
		{"Garbage", "x", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.is(tc.id); got != tc.want {
				t.Fatalf("is(%q) = %v, want %v", tc.id, got, tc.want)
			}
		})
	}
}

// stackParser groups indented lines into the stack of the line before: a
// tiny stand-in for the real parsers, which may hold lines.
type stackParser struct{ held *Entry }

func (p *stackParser) Line(line string, end int64) []Entry {
	if p.held != nil && (strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ")) {
		if p.held.Record.Stack != "" {
			p.held.Record.Stack += "\n"
		}
		p.held.Record.Stack += line
		p.held.Record.Level = oplog.LevelError
		p.held.End = end
		return nil
	}
	out := p.Flush()
	p.held = &Entry{Record: oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Text: line}, End: end}
	return out
}

func (p *stackParser) Flush() []Entry {
	if p.held == nil {
		return nil
	}
	e := *p.held
	p.held = nil
	return []Entry{e}
}

func (p *stackParser) Name() string { return "stack" }

// dataParser sets Data as parsers may: nothing, its own keys, a "file" key
// of its own, something that is not an object; and makes an oversized text.
type dataParser struct{}

func (dataParser) Line(line string, end int64) []Entry {
	r := oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Text: line}
	switch line {
	case "with-data":
		r.Data = json.RawMessage(`{"k": 1}`)
	case "with-file":
		r.Data = json.RawMessage(`{"file":"Assets/Player.cs","line":12}`)
	case "not-object":
		r.Data = json.RawMessage(`[1,2]`)
	case "huge":
		r.Text = strings.Repeat("é", oplog.MaxTextBytes)
	}
	return []Entry{{Record: r, End: end}}
}

func (dataParser) Flush() []Entry { return nil }
func (dataParser) Name() string   { return "data" }

// overwrite writes s at the start of the file at path without truncating it.
func overwrite(t *testing.T, path, s string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteAt([]byte(s), 0); err != nil {
		t.Fatal(err)
	}
}

// followOnce appends ls to the file at path, follows it until they are
// stored, and stops: a run before the restart a test looks at.
func followOnce(t *testing.T, l *oplog.Log, path string, ls []string) {
	t.Helper()
	appendFile(t, path, joinLines(ls))
	f := mustStart(t, l, testOptions(path))
	waitStored(t, l, len(ls))
	mustClose(t, f)
}

// buggyParser panics on its first line, as a parser's bug would.
type buggyParser struct{}

func (buggyParser) Line(string, int64) []Entry { panic("boom") }
func (buggyParser) Flush() []Entry             { return nil }
func (buggyParser) Name() string               { return "panic" }

// TestFollower_ParserPanic: a parser's bug stops its follower, failing with
// the panic in its status, instead of ending the process; the log goes on.
func TestFollower_ParserPanic(t *testing.T) {
	l := mustLog(t)
	path := filepath.Join(t.TempDir(), "game.log")
	appendFile(t, path, "one\n")
	opts := testOptions(path)
	opts.makeParser = func() Parser { return buggyParser{} }
	f := mustStart(t, l, opts)
	logtest.Eventually(t, waitFor, "the follower to fail", func() bool {
		st := f.Status()
		return st.State == StateFailing && strings.Contains(st.Error, "BUG") && strings.Contains(st.Error, "boom")
	})
	if err := f.Close(); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Close = %v, want the panic", err)
	}
	logtest.MustAppend(t, l, oplog.Record{Level: oplog.LevelInfo, Text: "still here"})
}

// TestFollower_LineTimes: a line without a time of its own that the parser
// holds until the next line comes has the time it was read, not the time
// it was stored with the next.
func TestFollower_LineTimes(t *testing.T) {
	l := mustLog(t)
	path := filepath.Join(t.TempDir(), "game.log")
	appendFile(t, path, "")
	opts := testOptions(path)
	opts.makeParser, opts.Parser, opts.Quiet = nil, "generic", time.Minute
	f := mustStart(t, l, opts)
	appendFile(t, path, "EnemyPool growing to 500\n")
	logtest.Eventually(t, waitFor, "the follower read the first line", func() bool { return f.Status().Lines >= 1 })
	time.Sleep(1500 * time.Millisecond) // the game hangs, then dies
	appendFile(t, path, "ERROR: enemy pool overflow\n")
	logtest.Eventually(t, waitFor, "the first line stored", func() bool { return len(stored(t, l)) >= 1 })
	mustClose(t, f)
	recs := stored(t, l)
	if len(recs) != 2 || recs[1].Time.Sub(recs[0].Time) < 1400*time.Millisecond {
		t.Fatalf("want two records 1.5 s apart: %+v", recs)
	}
}
