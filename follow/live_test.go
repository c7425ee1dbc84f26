package follow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestFollow_LiveEqualsOneShot follows every fixture under testdata (real
// engines' logs and the hand-written ones) as a game writes it, in random
// chunks, and checks that the records are exactly those a one-shot parse
// of the whole file gives: whatever the chunking, an entry ends at its
// format's end, not where a read happened to stop. The seed is logged.
func TestFollow_LiveEqualsOneShot(t *testing.T) {
	var fixtures []string
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".log") || strings.HasSuffix(path, ".txt") || strings.HasSuffix(path, ".jsonl")) {
			fixtures = append(fixtures, path)
		}
		return err
	})
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures under testdata: %v", err)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for _, fx := range fixtures {
		t.Run(strings.TrimPrefix(filepath.ToSlash(fx), "testdata/"), func(t *testing.T) {
			data, err := os.ReadFile(fx)
			if err != nil {
				t.Fatal(err)
			}
			want := oneShot(t, data)
			got := followInChunks(t, data, rand.New(rand.NewPCG(seed, uint64(len(data)))))
			if len(got) != len(want) {
				t.Fatalf("followed live: %d records, a one-shot parse: %d\n got  %q\n want %q", len(got), len(want), clip(texts(got)), clip(texts(want)))
			}
			for i := range want {
				if d := diffRecord(&got[i], &want[i]); d != "" {
					t.Errorf("record %d (%.60q): %s", i, want[i].Text, d)
				}
			}
		})
	}
}

// oneShot parses data at once, as a file read in one go would be: every
// complete line (a last line without its newline is held by a follower
// until it ends, so it is left out here too), then a flush.
func oneShot(t *testing.T, data []byte) []oplog.Record {
	t.Helper()
	np, err := NewParser("auto", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := feedComplete(withMarkers(np), data) // as the follower reads
	recs := make([]oplog.Record, len(entries))
	for i, e := range entries {
		recs[i] = e.Record
	}
	return recs
}

// followInChunks writes data to a new file in random chunks, a few
// milliseconds apart, while a Follower with the auto parser reads it, and
// returns what it stored once closed.
func followInChunks(t *testing.T, data []byte, rng *rand.Rand) []oplog.Record {
	t.Helper()
	l := mustLog(t)
	path := filepath.Join(t.TempDir(), "game.log")
	f := mustStart(t, l, Options{Name: testSource, Path: path, Poll: 2 * time.Millisecond, Quiet: 5 * time.Second})
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(2048))
		if _, err := w.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
		if rng.IntN(3) == 0 {
			time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	waitLines(t, f, uint64(bytes.Count(data, []byte("\n"))))
	mustClose(t, f) // flushes the entry it holds
	return stored(t, l)
}

// waitLines waits until the follower has read n lines.
func waitLines(t *testing.T, f *Follower, n uint64) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for f.Status().Lines < n {
		if time.Now().After(deadline) {
			t.Fatalf("the follower read %d of %d lines", f.Status().Lines, n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// diffRecord compares what the parser decides: level, name, text, stack,
// the time when the parser read one, and its data less the follower's
// position keys.
func diffRecord(got, want *oplog.Record) string {
	var d []string
	if got.Level != want.Level {
		d = append(d, "level "+got.Level.String()+", want "+want.Level.String())
	}
	if got.Name != want.Name {
		d = append(d, "name "+got.Name+", want "+want.Name)
	}
	if got.Text != want.Text {
		d = append(d, "text differs: "+got.Text)
	}
	if got.Stack != want.Stack {
		d = append(d, "stack differs:\n"+got.Stack+"\nwant\n"+want.Stack)
	}
	if !want.Time.IsZero() && !got.Time.Equal(want.Time) && !withinItsSecond(got.Time, want.Time) {
		d = append(d, "time "+got.Time.String()+", want "+want.Time.String())
	}
	if g, w := parserData(got.Data), parserData(want.Data); g != w {
		d = append(d, "data "+g+", want "+w)
	}
	return strings.Join(d, "; ")
}

// withinItsSecond reports a time read live that refines a timestamp saying
// only the second (readTimes.stamp): got falls within want's second.
func withinItsSecond(got, want time.Time) bool {
	return want.Nanosecond() == 0 && !got.Before(want) && got.Sub(want) < time.Second
}

// parserData is data without the keys the follower adds.
func parserData(b json.RawMessage) string {
	var m map[string]json.RawMessage
	if len(b) == 0 || json.Unmarshal(b, &m) != nil {
		return string(b)
	}
	delete(m, "file")
	delete(m, "offset")
	delete(m, "fileId")
	if len(m) == 0 {
		return ""
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// feedComplete feeds p every complete line of data, as a follower reads a
// file (a last line without its newline is held, so it is left out), then
// flushes; it returns the entries and the bytes of the complete lines.
func feedComplete(p Parser, data []byte) ([]Entry, int64) {
	var entries []Entry
	var off int64
	for {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		line := cleanLine(data[off : off+int64(i)])
		off += int64(i) + 1
		entries = append(entries, p.Line(line, off)...)
	}
	return append(entries, p.Flush()...), off
}

// TestFollow_PausesAtEntryEnds: followed live with pauses around the hold
// time (Options.Quiet) between the engine's entries, every fixture gives
// the records a one-shot parse gives: where an entry's end shows in the
// content (the next entry's header, a banner, an end marker, Luanti's
// prefixed tracebacks), timing does not matter; a held entry stored at a
// pause is the one-shot parse's entry. Unity's logs are the exception: a
// message's end shows only in what comes after it. The seed is logged.
func TestFollow_PausesAtEntryEnds(t *testing.T) {
	if testing.Short() {
		t.Skip("pauses take a few seconds")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	const quiet = 20 * time.Millisecond
	for _, fx := range fixtures(t) {
		t.Run(strings.TrimPrefix(filepath.ToSlash(fx), "testdata/"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(fx)
			if err != nil {
				t.Fatal(err)
			}
			if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
				data = data[:i+1]
			}
			want := oneShot(t, data)
			np, _ := NewParser("auto", time.Now)
			es, _ := feedComplete(withMarkers(np), data)
			if np.Name() == "unity" {
				// Unity's entries end when the next one decides (a message's
				// second line, its frames, or another message): a pause
				// longer than the hold stores what a one-shot parse of the
				// file up to there stores, and what follows may differ.
				t.Skip("Unity's ends do not show in the content")
			}
			rng := rand.New(rand.NewPCG(seed, uint64(len(data))))
			var pauses []int64 // entry ends, a few of them
			started := false   // no pause before the first run marker: a quiet file shows its first lines before their banner
			for _, e := range es {
				if e.Record.Kind == oplog.KindMarker && e.Record.Name == oplog.MarkerRun {
					started = true
				}
				if started && rng.IntN(4) == 0 {
					pauses = append(pauses, e.End)
				}
			}
			got := followPausing(t, data, pauses, quiet, rng)
			if heldForBanner(np.Name(), want) {
				// Its first lines come before its banner and are held for it;
				// a quiet moment there (a loaded machine between two writes)
				// makes them a run of their own, by design: entries are
				// compared without the run markers and run numbers.
				got, want = withoutRuns(got), withoutRuns(want)
			}
			if len(got) != len(want) {
				t.Fatalf("followed with pauses: %d records, a one-shot parse: %d\n got  %q\n want %q", len(got), len(want), clip(texts(got)), clip(texts(want)))
			}
			for i := range want {
				if d := diffRecord(&got[i], &want[i]); d != "" {
					t.Errorf("record %d (%.60q): %s", i, want[i].Text, d)
				}
			}
		})
	}
}

// followPausing writes data in random chunks while a Follower reads it,
// pausing at each offset of pauses for 0.5 to 2 times quiet, the follower's
// hold time.
func followPausing(t *testing.T, data []byte, pauses []int64, quiet time.Duration, rng *rand.Rand) []oplog.Record {
	t.Helper()
	l := mustLog(t)
	path := filepath.Join(t.TempDir(), "game.log")
	f := mustStart(t, l, Options{Name: testSource, Path: path, Poll: 2 * time.Millisecond, Quiet: quiet})
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	off := int64(0)
	for _, p := range append(pauses, int64(len(data))) {
		for off < p {
			n := min(p-off, int64(1+rng.IntN(1024)))
			if _, err := w.Write(data[off : off+n]); err != nil {
				t.Fatal(err)
			}
			off += n
		}
		time.Sleep(quiet/2 + time.Duration(rng.Int64N(int64(quiet)*3/2)))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	waitLines(t, f, uint64(bytes.Count(data, []byte("\n"))))
	mustClose(t, f)
	return stored(t, l)
}

// heldForBanner reports a parse whose run marker was put before lines
// that came before the banner.
func heldForBanner(format string, recs []oplog.Record) bool {
	for i := 0; i+1 < len(recs); i++ {
		if recs[i].Kind == oplog.KindMarker && recs[i].Name == oplog.MarkerRun {
			_, banner := runBanner(format, &recs[i+1])
			return !banner && strings.Contains(string(recs[i].Data), `"banner"`)
		}
	}
	return false
}

// withoutRuns drops run markers and run numbers.
func withoutRuns(recs []oplog.Record) []oplog.Record {
	var out []oplog.Record
	for _, r := range recs {
		if r.Kind == oplog.KindMarker && r.Name == oplog.MarkerRun {
			continue
		}
		r.Run = 0
		out = append(out, r)
	}
	return out
}

// TestFollow_ReportPausesInFirstLines: a report that pauses after its
// first line (Wine's while winedbg starts, AddressSanitizer's while it
// symbolizes the frames) among a file's first lines, before the format is
// clear, is waited for as anywhere else: followed, and printed under
// mcplogd run, with a pause of several holds after that line, it is one
// record, as a one-shot parse makes it.
func TestFollow_ReportPausesInFirstLines(t *testing.T) {
	const quiet = 30 * time.Millisecond
	for _, c := range []struct{ fixture, first string }{
		{"testdata/wine/stripped-wine8.log", "wine: Unhandled page fault on write access"},
		{"testdata/runtimes/c_asan_overflow.txt", "==26339==ERROR: AddressSanitizer: stack-overflow"},
	} {
		data, err := os.ReadFile(c.fixture)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(data, []byte(c.first))
		if i < 0 || bytes.Count(data[:i], []byte("\n")) >= detectLines {
			t.Fatalf("%s: %q is not among its first %d lines", c.fixture, c.first, detectLines)
		}
		pause := i + bytes.IndexByte(data[i:], '\n') + 1
		var want []string
		for _, r := range oneShot(t, data) {
			if r.Level >= oplog.LevelError {
				want = append(want, r.Text+"\n"+r.Stack)
			}
		}
		if len(want) != 1 {
			t.Fatalf("%s: a one-shot parse has %d errors, want the report", c.fixture, len(want))
		}
		check := func(how string, recs []oplog.Record) {
			t.Helper()
			var got []string
			for _, r := range recs {
				if r.Level >= oplog.LevelError && r.Kind != oplog.KindMarker {
					got = append(got, r.Text+"\n"+r.Stack)
				}
			}
			if len(got) != 1 || got[0] != want[0] {
				t.Errorf("%s %s with a pause after %q: %d errors, want the one report\n got  %.300q\n want %.300q", how, c.fixture, c.first, len(got), got, want)
			}
		}

		l := mustLog(t)
		path := filepath.Join(t.TempDir(), "game.log")
		f := mustStart(t, l, Options{Name: testSource, Path: path, Poll: 2 * time.Millisecond, Quiet: quiet})
		if err := os.WriteFile(path, data[:pause], 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * quiet) // the report's pause: the follower sees a quiet file
		w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data[pause:]); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		waitLines(t, f, uint64(bytes.Count(data, []byte("\n"))))
		mustClose(t, f)
		check("followed", stored(t, l))

		if runtime.GOOS == "windows" {
			continue
		}
		dir := t.TempDir()
		first, rest := filepath.Join(dir, "first"), filepath.Join(dir, "rest")
		if os.WriteFile(first, data[:pause], 0o644) != nil || os.WriteFile(rest, data[pause:], 0o644) != nil {
			t.Fatal("writing the parts")
		}
		l = mustLog(t)
		sleep := fmt.Sprintf("%.2f", (10 * quiet).Seconds())
		if _, err := RunCommand(t.Context(), l, CommandOptions{Name: "run", Quiet: quiet,
			Args: []string{"sh", "-c", `cat "$1"; sleep ` + sleep + `; cat "$2"`, "sh", first, rest}}); err != nil {
			t.Fatal(err)
		}
		check("mcplogd run", ofSource(t, l, "run"))
	}
}
