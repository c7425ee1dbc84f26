package follow

import (
	"context"
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
)

// rewriteBanner is what a game prints first at every launch, without a
// timestamp and longer than headSize: a file it rewrites in place begins
// with the same head every time.
var rewriteBanner = "Engine 4.2 (build 1234) starting " + strings.Repeat("=", headSize)

const rewrittenMarker = "run started: the log file was rewritten"

// launch rewrites the file at path in place, as a game that opens its log
// with mode "w" does at each launch: the same inode, truncated, then its
// banner and ls.
func launch(tb testing.TB, path string, ls []string) {
	tb.Helper()
	launchWith(tb, path, rewriteBanner, ls)
}

// launchWith is launch with another banner.
func launchWith(tb testing.TB, path, banner string, ls []string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(banner+"\n"+joinLines(ls)), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// writeGradually appends ls to path per lines at a time, each chunk stored
// (stored records: have, and one per line) before the next is written.
func writeGradually(tb testing.TB, l *oplog.Log, path string, ls []string, per, have int) {
	tb.Helper()
	for i := 0; i < len(ls); i += per {
		chunk := ls[i:min(i+per, len(ls))]
		appendFile(tb, path, joinLines(chunk))
		have += len(chunk)
		waitStored(tb, l, have)
	}
}

// checkRuns fails unless the test source has n runs.
func checkRuns(tb testing.TB, l *oplog.Log, n int) {
	tb.Helper()
	runs, err := l.Runs(context.Background(), testSource)
	if err != nil {
		tb.Fatal(err)
	}
	if len(runs) != n {
		tb.Fatalf("%d runs, want %d: %+v", len(runs), n, runs)
	}
}

// gate parks a follower at the end of a read (Options.atEOF) when asked,
// so that a test changes the file before the follower looks at it again.
type gate struct {
	want   atomic.Bool
	parked chan struct{}
	resume chan struct{}
}

func newGate() *gate { return &gate{parked: make(chan struct{}), resume: make(chan struct{})} }

func (g *gate) atEOF() {
	if g.want.CompareAndSwap(true, false) {
		g.parked <- struct{}{}
		<-g.resume
	}
}

// park returns once the follower waits at the end of its file.
func (g *gate) park(tb testing.TB) {
	tb.Helper()
	g.want.Store(true)
	select {
	case <-g.parked:
	case <-time.After(waitFor):
		tb.Fatal("the follower did not reach the end of its file")
	}
}

func (g *gate) release() { g.resume <- struct{}{} }

// TestFollower_RewriteInPlace_Live: a game crashes early (40 lines), is
// launched again and rewrites its log in place with the same head, past
// the old offset before the follower looks, then writes 600 lines
// gradually: every line is stored once, and the launch is a run of its
// own (with RunsOwned, read from 0 all the same, without a run marker).
func TestFollower_RewriteInPlace_Live(t *testing.T) {
	for _, owned := range []bool{false, true} {
		t.Run(map[bool]string{false: "OK", true: "RunsOwned"}[owned], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "game.log")
			l := mustLog(t)
			g := newGate()
			opts := testOptions(path)
			opts.atEOF, opts.RunsOwned = g.atEOF, owned
			launch(t, path, lines("crash", 0, 40))
			old := fileSize(t, path)
			f := mustStart(t, l, opts)
			waitStored(t, l, 41)

			g.park(t)
			launch(t, path, lines("run2", 0, 100))
			if size := fileSize(t, path); size <= old {
				t.Fatalf("the new file has %d bytes, not more than the old %d", size, old)
			}
			g.release()
			want := slices.Concat([]string{rewriteBanner}, lines("crash", 0, 40), []string{rewrittenMarker, rewriteBanner})
			runs := 2
			if owned {
				want, runs = slices.DeleteFunc(want, func(s string) bool { return s == rewrittenMarker }), 1
			}
			waitStored(t, l, len(want)+100)
			writeGradually(t, l, path, lines("run2", 100, 600), 50, len(want)+100)
			mustClose(t, f)
			checkTexts(t, l, append(want, lines("run2", 0, 600)...))
			checkRuns(t, l, runs)
		})
	}
}

// TestFollower_RewriteInPlace_Stopped: the same relaunch while the
// follower is stopped (closed, or killed as mcplogd would be): the
// restarted follower reads the rewritten file from 0, as a run.
func TestFollower_RewriteInPlace_Stopped(t *testing.T) {
	for _, c := range []struct {
		name    string
		kill    bool
		banners [2]string // each launch's first line
	}{
		{"Close", false, [2]string{rewriteBanner, rewriteBanner}},
		{"Kill", true, [2]string{rewriteBanner, rewriteBanner}},
		// A logger that stamps its first line: the file begins otherwise
		// at each launch, the same file (inode) all the same.
		{"Stamped", false, [2]string{"2026-12-06 10:00:01,100 INFO game starting", "2026-12-06 10:05:42,870 INFO game starting"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "game.log")
			l := mustLog(t)
			launchWith(t, path, c.banners[0], lines("crash", 0, 40))
			old := fileSize(t, path)
			f := mustStart(t, l, testOptions(path))
			waitStored(t, l, 41)
			if c.kill {
				f.kill()
			} else {
				mustClose(t, f)
			}

			launchWith(t, path, c.banners[1], lines("run2", 0, 100))
			if size := fileSize(t, path); size <= old {
				t.Fatalf("the new file has %d bytes, not more than the old %d", size, old)
			}
			f = mustStart(t, l, testOptions(path))
			want := slices.Concat([]string{c.banners[0]}, lines("crash", 0, 40), []string{rewrittenMarker, c.banners[1]})
			waitStored(t, l, len(want)+100)
			writeGradually(t, l, path, lines("run2", 100, 600), 50, len(want)+100)
			mustClose(t, f)
			checkTexts(t, l, append(want, lines("run2", 0, 600)...))
			checkRuns(t, l, 2)
		})
	}
}

// TestFollower_RewriteInPlace_AppendOnly: a file only appended to, in
// pieces that end anywhere (a line held partial at the read offset, tails
// of a few bytes), followed across Close and kill, is never taken for
// rewritten: every line once, no run marker, one run; the stored position
// carries the fingerprint.
func TestFollower_RewriteInPlace_AppendOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "game.log")
	l := mustLog(t)
	var eofs atomic.Int64
	opts := testOptions(path)
	opts.atEOF = func() { eofs.Add(1) }
	ls := append([]string{rewriteBanner}, lines("a", 0, 300)...)
	content := joinLines(ls)
	f := mustStart(t, l, opts)
	sizes := []int{1, 7, 63, 64, 65, 130, 2, 300}
	for i, at := 0, 0; at < len(content); i++ {
		end := min(at+sizes[i%len(sizes)], len(content))
		appendFile(t, path, content[at:end])
		at = end
		n := eofs.Load()
		// Two reads reaching the end: the second began after the write.
		logtest.Eventually(t, waitFor, "the piece read", func() bool { return eofs.Load() >= n+2 })
		switch i % 10 {
		case 4:
			mustClose(t, f) // often with a partial line: not stored, read again
			f = mustStart(t, l, opts)
		case 9:
			f.kill()
			f = mustStart(t, l, opts)
		}
	}
	waitStored(t, l, len(ls))
	mustClose(t, f)
	checkTexts(t, l, ls)
	checkRuns(t, l, 1)

	v, err := l.Position(context.Background(), positionKey(testSource, path))
	if err != nil {
		t.Fatal(err)
	}
	pos := positionOf(v)
	if pos == nil || pos.Offset != int64(len(content)) || pos.TailEnd != pos.Offset || !strings.HasPrefix(pos.Tail, "40:") {
		t.Fatalf("position %s, want offset and tailEnd %d, a tail of 0x40 bytes", v, len(content))
	}
}

// TestFile_HoldsTail: the fingerprint kept with a position, checked
// against the file; a position without one (an older mcplogd's) holds.
func TestFile_HoldsTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "game.log")
	appendFile(t, path, rewriteBanner+"\nline one\nline two\n")
	c := openID(path)
	if c == nil {
		t.Fatal("cannot open")
	}
	defer c.f.Close()
	c.read = c.size
	if err := c.loadTail(); err != nil {
		t.Fatal(err)
	}
	sum := string(c.appendTailSum(nil))
	cases := []struct {
		name string
		end  int64
		sum  string
		want bool
	}{
		{"Same", c.size, sum, true},
		{"Elsewhere", c.size - 1, sum, false},
		{"PastTheEnd", c.size + 5, sum, false},
		{"None", c.size, "", true},
		{"Malformed", c.size, "zz", true},
		{"TooLong", c.size, "41:0", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.holdsTail(tc.end, tc.sum)
			if err != nil || got != tc.want {
				t.Fatalf("holdsTail(%d, %q) = %v, %v; want %v", tc.end, tc.sum, got, err, tc.want)
			}
		})
	}
	old := positionOf([]byte(fmt.Sprintf(`{"file":%q,"offset":%d,"fileId":%q}`, path, c.size, c.id)))
	if old == nil || old.Tail != "" || old.TailEnd != 0 {
		t.Fatalf("an old position reads as %+v", old)
	}
}

func fileSize(tb testing.TB, path string) int64 {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// TestFollower_RewriteInPlace_SameBytes: a launch that fails as the last
// one did, into a log it rewrites in place (Godot 3's godot.log), writes
// the very same bytes: the file changed and did not grow. It is a new run,
// its lines read again.
func TestFollower_RewriteInPlace_SameBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "godot.log")
	l := mustLog(t)
	var eofs atomic.Int64
	opts := testOptions(path)
	opts.atEOF = func() { eofs.Add(1) }
	ls := []string{rewriteBanner, "physics: body 7 has NaN position"}
	appendFile(t, path, joinLines(ls))
	f := mustStart(t, l, opts)
	waitStored(t, l, len(ls))
	n := eofs.Load()
	logtest.Eventually(t, waitFor, "passes that find nothing new", func() bool { return eofs.Load() >= n+3 })
	if err := os.WriteFile(path, []byte(joinLines(ls)), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second) // past a coarse clock's tick
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	want := slices.Concat(ls, []string{"run started: the log file was rewritten"}, ls)
	waitStored(t, l, len(want))
	mustClose(t, f)
	checkTexts(t, l, want)
	checkRuns(t, l, 2)
}
