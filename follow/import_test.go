package follow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// fixtures lists every log under testdata.
func fixtures(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(path, "fuzz") && !strings.HasSuffix(path, ".md") {
			out = append(out, path)
		}
		return err
	})
	if err != nil || len(out) < 30 {
		t.Fatalf("fixtures: %d, %v", len(out), err)
	}
	return out
}

func mustImport(t *testing.T, s Sink, data []byte, opts ImportOptions) ImportResult {
	t.Helper()
	if opts.Source == "" {
		opts.Source = testSource
	}
	res, err := Import(context.Background(), s, bytes.NewReader(data), opts)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	return res
}

// TestImport_EqualsFollowed: every fixture imported gives the records a
// follower of the same file stores: texts, levels, stacks, data, runs and
// crash signatures alike.
func TestImport_EqualsFollowed(t *testing.T) {
	for _, fx := range fixtures(t) {
		t.Run(strings.TrimPrefix(filepath.ToSlash(fx), "testdata/"), func(t *testing.T) {
			data, err := os.ReadFile(fx)
			if err != nil {
				t.Fatal(err)
			}
			if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
				data = data[:i+1] // a follower holds an unterminated last line
			}
			imported := mustLog(t)
			mustImport(t, imported, data, ImportOptions{File: fx})
			followed := mustLog(t)
			path := filepath.Join(t.TempDir(), "game.log")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			f := mustStart(t, followed, Options{Name: testSource, Path: path, Poll: 2 * time.Millisecond, Quiet: time.Hour})
			waitLines(t, f, uint64(bytes.Count(data, []byte("\n"))))
			mustClose(t, f)
			got, want := withoutEnds(all(t, imported)), withoutEnds(all(t, followed))
			if len(got) != len(want) {
				t.Fatalf("imported %d records, followed %d", len(got), len(want))
			}
			parsed := oneShot(t, data)
			for i := range want {
				if i < len(parsed) && parsed[i].Time.IsZero() {
					got[i].Time, want[i].Time = time.Time{}, time.Time{} // the time each arrived
				}
				if d := diffRecord(&got[i], &want[i]); d != "" || got[i].Kind != want[i].Kind || got[i].Run != want[i].Run {
					t.Errorf("record %d (%.50q): %s; kind %s/%s run %d/%d", i, want[i].Text, d, got[i].Kind, want[i].Kind, got[i].Run, want[i].Run)
				}
			}
			if a, b := crashGroups(entries(got)), crashGroups(entries(want)); a != b {
				t.Errorf("crash groups: imported %d, followed %d", a, b)
			}
		})
	}
}

// withoutEnds drops end markers: an import's end and a follower's stop
// each add their own.
func withoutEnds(recs []oplog.Record) []oplog.Record {
	return slices.DeleteFunc(recs, func(r oplog.Record) bool { return r.Kind == oplog.KindMarker && r.Name == oplog.MarkerEnd })
}

func entries(recs []oplog.Record) []Entry {
	out := make([]Entry, len(recs))
	for i, r := range recs {
		out[i].Record = r
	}
	return out
}

// TestImport_Twice: the same input imported again adds nothing and says
// so; grown, only what was added is imported; under another source it
// is imported again.
func TestImport_Twice(t *testing.T) {
	l := mustLog(t)
	data := readSample(t, "luanti/debug.txt")
	half := bytes.Index(data, []byte("mode=crash_globalstep"))
	half = bytes.LastIndex(data[:half], []byte("\n\n-------------")) + 1
	first := mustImport(t, l, data[:half], ImportOptions{})
	if first.Records == 0 || first.Skipped != 0 || first.Bytes != int64(half) || first.Parser != "luanti" {
		t.Fatalf("first import %+v", first)
	}
	again := mustImport(t, l, data[:half], ImportOptions{})
	if again.Records != 0 || again.Skipped != int64(half) {
		t.Errorf("the same input again: %+v, want nothing added and all skipped", again)
	}
	grown := mustImport(t, l, data, ImportOptions{})
	if grown.Skipped != int64(half) || grown.Records == 0 {
		t.Errorf("grown: %+v", grown)
	}
	whole := mustLog(t)
	mustImport(t, whole, data, ImportOptions{})
	got, want := withoutEnds(all(t, l)), withoutEnds(all(t, whole))
	if len(got) != len(want) {
		t.Fatalf("in two imports %d records, in one %d", len(got), len(want))
	}
	for i := range want {
		if d := diffRecord(&got[i], &want[i]); d != "" || got[i].Run != want[i].Run {
			t.Errorf("record %d: %s (run %d, want %d)", i, d, got[i].Run, want[i].Run)
		}
	}
	other := mustImport(t, l, data, ImportOptions{Source: "other"})
	if other.Records != len(want)+1 {
		t.Errorf("another source: %d records, want %d and an end marker", other.Records, len(want))
	}
	// Another run's log that begins the same: imported whole from a file,
	// refused from a stream that cannot be read again.
	changed := append([]byte(nil), data...)
	changed[half-2] = 'X'
	if _, err := Import(context.Background(), l, io.MultiReader(bytes.NewReader(changed)), ImportOptions{Source: testSource}); err == nil || !strings.Contains(err.Error(), "--source") {
		t.Errorf("a stream with the same beginning that differs after: %v", err)
	}
	if res := mustImport(t, l, changed, ImportOptions{}); res.Records != len(want)+1 || res.Skipped != 0 {
		t.Errorf("a file with the same beginning that differs after: %+v", res)
	}
}

// TestImport_AnotherLogAnotherRun: a game's logs of two launches,
// imported one after the other into one source, are two runs, each
// crashed of its own abort: one group of two. Importing either again adds
// nothing, and the second grown adds its new lines to its run.
func TestImport_AnotherLogAnotherRun(t *testing.T) {
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	launch := func(pid int) []byte {
		return []byte(fmt.Sprintf("Game starting (pid %d)\nframe 1\nterminate called after throwing an instance of 'std::runtime_error'\n"+
			"  what():  enemy pool exhausted (500 requested)\n", pid))
	}
	first, second := launch(4242), launch(4343)
	mustImport(t, l, first, ImportOptions{File: "game-1.log"})
	mustImport(t, l, second, ImportOptions{File: "game-2.log"})
	if res := mustImport(t, l, first, ImportOptions{File: "game-1.log"}); res.Records != 0 {
		t.Errorf("the first log again: %d records", res.Records)
	}
	grown := append(slices.Clone(second), "Aborted (core dumped)\n"...)
	mustImport(t, l, grown, ImportOptions{File: "game-2.log"})
	runs, err := l.Runs(t.Context(), testSource)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, fmt.Sprintf("%d:%s:%d", r.Run, r.Outcome, r.Records))
	}
	// Run 2: its start, 3 records, the end marker; then the grown line and
	// its end marker.
	if want := "[1:crashed:4 2:crashed:7]"; fmt.Sprint(got) != want {
		t.Errorf("runs %v, want %s", got, want)
		for _, r := range all(t, l) {
			t.Logf("run %d %s %s %q", r.Run, r.Kind, r.Level, r.Text)
		}
	}
	page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: testSource, Classes: []string{oplog.ClassCrash}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Groups) != 1 || page.Groups[0].Count != 2 || page.Groups[0].RunsEnded != 2 {
		t.Errorf("crash groups %+v, want one of 2 occurrences ending 2 runs", page.Groups)
	}
}

// TestImport_SmallFileGrown: a file shorter than the 4 KiB that named
// imports by their beginning, grown, adds only its new lines; one an
// older build imported (kept by its beginning alone) is not read again.
func TestImport_SmallFileGrown(t *testing.T) {
	l := mustLog(t)
	mustImport(t, l, []byte("a one\nb two\n"), ImportOptions{File: "/games/small.log"})
	res := mustImport(t, l, []byte("a one\nb two\nc three\n"), ImportOptions{File: "/games/small.log"})
	if res.Records != 2 || res.Skipped != int64(len("a one\nb two\n")) {
		t.Errorf("grown: %+v, want its new line and an end marker", res)
	}
	var texts []string
	for _, r := range all(t, l) {
		if r.Kind == oplog.KindLine {
			texts = append(texts, r.Text)
		}
	}
	if fmt.Sprint(texts) != "[a one b two c three]" {
		t.Errorf("lines %q", texts)
	}
	long := "/games/" + strings.Repeat("d/", 5000) + "small.log" // longer than a position's key may be
	// Another log into the source: its run's start, two lines, its end.
	if res := mustImport(t, l, []byte("a one\nb two\n"), ImportOptions{File: long}); res.Records != 4 {
		t.Errorf("a file of a path over 8 KiB: %+v", res)
	}
	older := mustLog(t)
	mustImport(t, older, []byte("x\ny\n"), ImportOptions{}) // kept by its first bytes
	if res := mustImport(t, older, []byte("x\ny\n"), ImportOptions{File: "/games/old.log"}); res.Records != 0 || res.Skipped != 4 {
		t.Errorf("imported before by its first bytes: %+v", res)
	}
}

// failingSink refuses every batch after the first n.
type failingSink struct {
	*oplog.Log
	n int
}

func (s *failingSink) AppendAt(ctx context.Context, recs []oplog.Record, pos oplog.Position) error {
	if s.n == 0 {
		return errors.New("disk full")
	}
	s.n--
	return s.Log.AppendAt(ctx, recs, pos)
}

// TestImport_Interrupted: an import cut short (a batch refused) says how
// far it got; importing again goes on from there, nothing twice.
func TestImport_Interrupted(t *testing.T) {
	var data []byte
	for i := range 3500 {
		data = append(data, []byte("2026-12-02T10:00:00Z ERROR line "+strings.Repeat("x", i%40)+"\n")...)
	}
	l := mustLog(t)
	_, err := Import(context.Background(), &failingSink{Log: l, n: 2}, bytes.NewReader(data), ImportOptions{Source: testSource})
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "records before them were stored") {
		t.Fatalf("err = %v", err)
	}
	before := len(all(t, l))
	res := mustImport(t, l, data, ImportOptions{})
	if before == 0 || res.Records != 3500-before+1 || res.Skipped == 0 {
		t.Errorf("resumed after %d records: %+v, want the rest and an end marker", before, res)
	}
	if recs := all(t, l); len(recs) != 3501 || recs[3500].Name != oplog.MarkerEnd || recs[3500].Run != recs[0].Run {
		t.Errorf("%d records, want 3500 and an end marker of their run", len(recs))
	}
}

// TestImport_WireFormat: mcplogd's own NDJSON is imported as records
// (their sources kept), once; a bad line is named.
func TestImport_WireFormat(t *testing.T) {
	decode := func(b []byte) (oplog.Record, error) {
		if !bytes.HasPrefix(b, []byte(`{"level":"info","text":`)) {
			return oplog.Record{}, errors.New("not a line of ours")
		}
		return oplog.Record{Level: oplog.LevelInfo, Text: string(b[len(`{"level":"info","text":`)+1 : len(b)-2])}, nil
	}
	l := mustLog(t)
	data := []byte("{\"level\":\"info\",\"text\":\"a\"}\n\n{\"level\":\"info\",\"text\":\"b\"}\n")
	res := mustImport(t, l, data, ImportOptions{Decode: decode})
	if res.Parser != "ndjson" || res.Records != 2 {
		t.Errorf("%+v", res)
	}
	if again := mustImport(t, l, data, ImportOptions{Decode: decode}); again.Records != 0 {
		t.Errorf("again: %+v", again)
	}
	// A bad line past the head that chose the wire format is named.
	good := strings.Repeat("{\"level\":\"info\",\"text\":\"c\"}\n", 200)
	_, err := Import(context.Background(), l, strings.NewReader(good+"not json\n"), ImportOptions{Source: "x", Decode: decode})
	if err == nil || !strings.Contains(err.Error(), "line 201") {
		t.Errorf("a bad line: %v", err)
	}
	// Lines of which some do not decode in the head are a logger's: parsed.
	res = mustImport(t, l, []byte("{\"level\":\"info\",\"text\":\"a\"}\n{\"level\":\"info\",\"msg\":\"b\",\"pid\":3}\n"), ImportOptions{Source: "z", Decode: decode})
	if res.Parser != "json" || res.Records != 3 {
		t.Errorf("JSON lines of which one decodes: %+v", res)
	}
	// A log the wire format does not read is parsed.
	res = mustImport(t, l, []byte("ERROR: boom\n"), ImportOptions{Source: "y", Decode: decode})
	if res.Parser != "generic" || res.Records != 2 {
		t.Errorf("a plain log: %+v", res)
	}
}

// TestImport_UnstampedTakesTheTimeBefore: a line without a time among
// lines with one (a panic amid tracing's lines) was printed after the line
// before it: imported, it has that line's time, not the import's, so the
// run lasts what the log says; an input without a time has the import's.
func TestImport_UnstampedTakesTheTimeBefore(t *testing.T) {
	l := mustLog(t)
	in := "2026-03-01T10:00:00.000Z  INFO game: loading\n2026-03-01T10:00:05.000Z ERROR game: failed to parse level 3\n" +
		"thread 'main' panicked at src/main.rs:8:34:\ndamage larger than remaining health\n"
	mustImport(t, l, []byte(in), ImportOptions{Source: "stamped", Parser: "rust"})
	mustImport(t, l, []byte("loading\nready\n"), ImportOptions{Source: "plain"})
	stamp := time.Date(2026, 3, 1, 10, 0, 5, 0, time.UTC)
	p, ok := find(ofSource(t, l, "stamped"), func(r *oplog.Record) bool { return r.Name == "panic" })
	if !ok || !p.Time.Equal(stamp) {
		t.Errorf("the panic at %v, want %v (found: %v)", p.Time, stamp, ok)
	}
	runs, err := l.Runs(t.Context(), "stamped")
	if err != nil || len(runs) != 1 || runs[0].End.Sub(runs[0].Start) != 5*time.Second {
		t.Errorf("runs %+v, %v; want one of 5 s", runs, err)
	}
	for _, r := range ofSource(t, l, "plain") {
		if time.Since(r.Time) > time.Minute {
			t.Errorf("%q of an input without times at %v", r.Text, r.Time)
		}
	}
}

// TestImport_HeaderBeforeFirstTime: a log whose first line has no time
// (a game's banner) has the run of its first time,
// not the import's: the header is given it.
func TestImport_HeaderBeforeFirstTime(t *testing.T) {
	l := mustLog(t)
	mustImport(t, l, []byte("=== Dungeon 0.3 ===\n"+
		"2026-12-06 10:00:01.100 INFO starting\n"+
		"2026-12-06 10:00:02.000 INFO Loading level 1\n"), ImportOptions{Parser: "generic"})
	recs := all(t, l)
	first := recs[1].Time // the first line with a time, after the header
	if first.Hour() != 10 || first.Second() != 1 {
		t.Fatalf("the first timed record: %+v", recs[1])
	}
	for _, r := range recs[:1] {
		if !r.Time.Equal(first) {
			t.Errorf("%s %q at %s, want %s", r.Kind, r.Text, r.Time, first)
		}
	}
	runs, err := l.Runs(t.Context(), testSource)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || !runs[0].Start.Equal(first) || runs[0].Last.Second() != 2 {
		t.Errorf("runs %+v, want one from %s to 10:00:02", runs, first)
	}
}
