package follow

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// textsWithPrefix returns the stored texts of the test source that start
// with prefix, oldest first.
func textsWithPrefix(tb testing.TB, l *oplog.Log, prefix string) []string {
	tb.Helper()
	var out []string
	for _, s := range texts(stored(tb, l)) {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// waitPrefix waits until n records of the test source start with prefix.
func waitPrefix(tb testing.TB, l *oplog.Log, prefix string, n int) {
	tb.Helper()
	logtest.Eventually(tb, waitFor, fmt.Sprintf("%d %q records stored", n, prefix), func() bool {
		return len(textsWithPrefix(tb, l, prefix)) >= n
	})
}

// checkPrefix fails unless the stored texts starting with prefix are
// exactly want, saying how many were duplicated.
func checkPrefix(tb testing.TB, l *oplog.Log, prefix string, want []string) {
	tb.Helper()
	got := textsWithPrefix(tb, l, prefix)
	if !slices.Equal(got, want) {
		seen, dup := map[string]bool{}, 0
		for _, s := range got {
			if seen[s] {
				dup++
			}
			seen[s] = true
		}
		tb.Fatalf("stored %d %q lines (%d duplicated), want %d:\n got  %q\n want %q", len(got), prefix, dup, len(want), clip(got), clip(want))
	}
}

// otherWriter appends n records of the follower's source, as HTTP ingest
// or another process would, some with a position of another file in
// their data.
func otherWriter(tb testing.TB, l *oplog.Log, n int) {
	tb.Helper()
	for i := 0; i < n; i += 1000 {
		recs := make([]oplog.Record, min(1000, n-i))
		for j := range recs {
			recs[j] = oplog.Record{Source: testSource, Level: oplog.LevelInfo, Text: fmt.Sprint("other-", i+j)}
			if j%2 == 0 {
				recs[j].Data = json.RawMessage(`{"file":"/elsewhere.log","offset":3,"fileId":"1:2:abcd"}`)
			}
		}
		logtest.MustAppend(tb, l, recs...)
	}
}

// TestFollower_Position_SharedSource: another
// writer appends 20,000 records with the follower's source after its last
// record; the restarted follower reads no line again, after a Close or a
// kill -9.
func TestFollower_Position_SharedSource(t *testing.T) {
	for _, kill := range []bool{false, true} {
		t.Run(map[bool]string{false: "Close", true: "Kill"}[kill], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "app.log")
			l := mustLog(t)
			appendFile(t, path, joinLines(lines("x", 0, 2000)))
			f := mustStart(t, l, testOptions(path))
			waitPrefix(t, l, "x-", 2000)
			if kill {
				f.kill()
			} else {
				mustClose(t, f)
			}
			otherWriter(t, l, 20_000)
			appendFile(t, path, joinLines(lines("x", 2000, 2100)))
			f = mustStart(t, l, testOptions(path))
			waitPrefix(t, l, "x-", 2100)
			mustClose(t, f)
			checkPrefix(t, l, "x-", lines("x", 0, 2100))
		})
	}
}

// TestFollower_Position_FilesOfADirectory: files of one directory followed
// under one source name (crash reports) each resume from their own
// position, through kills while both are written.
func TestFollower_Position_FilesOfADirectory(t *testing.T) {
	dir := t.TempDir()
	l := mustLog(t)
	paths := []string{filepath.Join(dir, "crash-1.txt"), filepath.Join(dir, "crash-2.txt")}
	prefixes := []string{"a", "b"}
	n := 0
	for round := range 4 {
		var fs []*Follower
		for _, p := range paths {
			fs = append(fs, mustStart(t, l, testOptions(p)))
		}
		for stop := n + 500; n < stop; n += 50 {
			for i, p := range paths {
				appendFile(t, p, joinLines(lines(prefixes[i], n, n+50)))
			}
		}
		if round%2 == 0 {
			waitPrefix(t, l, "a-", n/2)
			waitPrefix(t, l, "b-", n/2)
		}
		for _, f := range fs {
			f.kill()
		}
	}
	for _, p := range paths {
		f := mustStart(t, l, testOptions(p))
		defer mustClose(t, f)
	}
	for _, prefix := range prefixes {
		waitPrefix(t, l, prefix+"-", n)
		checkPrefix(t, l, prefix+"-", lines(prefix, 0, n))
	}
}

// TestFollower_Position_ClearKeeps: a cleared log does not make the
// follower store its whole file again; it goes on from where it was.
func TestFollower_Position_ClearKeeps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.log")
	l := mustLog(t)
	followOnce(t, l, path, lines("x", 0, 300))
	if _, err := l.Clear(context.Background()); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, joinLines(lines("x", 300, 310)))
	f := mustStart(t, l, testOptions(path))
	waitPrefix(t, l, "x-", 10)
	mustClose(t, f)
	checkPrefix(t, l, "x-", lines("x", 300, 310))
}

// TestFollower_Position_StoreWrittenBefore: a store whose follower kept its
// position only in its records' data (before positions were stored apart)
// resumes from the newest such record.
func TestFollower_Position_StoreWrittenBefore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.log")
	l := mustLog(t)
	old := joinLines(lines("x", 0, 20))
	appendFile(t, path, old)
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := newFile(fh, path)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	var recs []oplog.Record
	end := 0
	for _, s := range lines("x", 0, 20) {
		end += len(s) + 1
		p := pendingEntry{end: int64(end), path: cur.pathJSON, id: cur.id}
		recs = append(recs, oplog.Record{Source: testSource, Level: oplog.LevelInfo, Text: s, Data: withPosition(nil, &p)})
	}
	logtest.MustAppend(t, l, recs...)
	if v, _ := l.Position(context.Background(), positionKey(testSource, path)); v != nil {
		t.Fatalf("position %q before the follower ran", v)
	}
	appendFile(t, path, joinLines(lines("x", 20, 30)))
	f := mustStart(t, l, testOptions(path))
	waitPrefix(t, l, "x-", 30)
	mustClose(t, f)
	checkPrefix(t, l, "x-", lines("x", 0, 30))
	v, err := l.Position(context.Background(), positionKey(testSource, path))
	if pos := positionOf(v); err != nil || pos == nil || pos.Offset != int64(len(old)+len(joinLines(lines("x", 20, 30)))) {
		t.Fatalf("position after the follower ran: %s, %v", v, err)
	}
}

func TestPositionKey(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	f := func(name, path, want string) {
		t.Helper()
		if got := positionKey(name, path); got != want {
			t.Errorf("positionKey(%q, %q) = %q, want %q", name, path, got, want)
		}
	}
	// On Windows a rooted path is on the working directory's volume.
	rooted := func(p string) string { return filepath.VolumeName(wd) + filepath.FromSlash(p) }
	f("game", "/var/log/../log/app.log", "follow\x00game\x00"+rooted("/var/log/app.log"))
	f("game", "app.log", "follow\x00game\x00"+filepath.Join(wd, "app.log"))
	f("other", "/a.log", "follow\x00other\x00"+rooted("/a.log"))
}
