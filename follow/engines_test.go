//go:build !windows

package follow

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// The engine tests run Debian's real engines (godot3-server,
// minetest-server, love under Xvfb, a Rust program built offline against
// Debian's tracing crates) on small games of ours in testdata/engines,
// following their logs live and running them under RunCommand, and check
// the records, runs and crash groups. make test installs the engines
// (scripts/need-engines) and sets MCPLOGD_REQUIRE_ENGINES=1, which makes a
// missing engine a failure; plain go test skips those tests.

// needEngine returns the path of an engine's program, skipping the test
// (failing it under MCPLOGD_REQUIRE_ENGINES=1) when it is not installed.
func needEngine(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("MCPLOGD_REQUIRE_ENGINES") == "1" {
		t.Fatalf("%s is not installed (scripts/need-engines installs it)", names[0])
	}
	t.Skipf("%s is not installed; scripts/need-engines installs it", names[0])
	return ""
}

// copyGame copies testdata/engines/name to a new directory.
func copyGame(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "engines", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// runs splits records into runs by their Run.
func runsOf(recs []oplog.Record) map[uint64][]oplog.Record {
	out := map[uint64][]oplog.Record{}
	for _, r := range recs {
		out[r.Run] = append(out[r.Run], r)
	}
	return out
}

// count counts the records of recs that match.
func count(recs []oplog.Record, match func(*oplog.Record) bool) int {
	n := 0
	for i := range recs {
		if match(&recs[i]) {
			n++
		}
	}
	return n
}

func isMarker(name string) func(*oplog.Record) bool {
	return func(r *oplog.Record) bool { return r.Kind == oplog.KindMarker && r.Name == name }
}

func hasText(text string) func(*oplog.Record) bool {
	return func(r *oplog.Record) bool { return r.Kind == oplog.KindLine && r.Text == text }
}

// exits returns the exit markers' texts.
func exits(recs []oplog.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Kind == oplog.KindMarker && r.Name == oplog.MarkerExit {
			out = append(out, r.Level.String()+" "+r.Text)
		}
	}
	return out
}

// output collects what a program printed, and closes seen once it holds
// a string.
type output struct {
	mu   sync.Mutex
	b    strings.Builder
	want string
	seen chan struct{}
	once sync.Once
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.b.Write(p)
	if o.want != "" && strings.Contains(o.b.String(), o.want) {
		o.once.Do(func() { close(o.seen) })
	}
	return len(p), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// runGame runs a program under RunCommand as source and returns how it
// ended and what it printed.
func runGame(t *testing.T, l *oplog.Log, source string, opts CommandOptions) (Exit, string) {
	t.Helper()
	out := &output{}
	opts.Name, opts.Output = source, out
	exit, err := RunCommand(context.Background(), l, opts)
	if err != nil {
		t.Fatalf("run %q: %v", opts.Args, err)
	}
	return exit, out.String()
}

// checkRunEqualsOneShot: what RunCommand stored of one run, parsed live
// as the program printed it, is what a one-shot parse of its whole output
// gives.
func checkRunEqualsOneShot(t *testing.T, run []oplog.Record, printed, parser string) {
	t.Helper()
	np, err := NewParser(parser, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &marking{p: np, sinceRun: -1, launched: true}
	want, _ := feedComplete(p, []byte(printed+"\n"))
	var got []oplog.Record
	for _, r := range run {
		if r.Kind == oplog.KindLine || r.Name != oplog.MarkerRun && !commandExit(&r) {
			got = append(got, r) // the parser's markers too: a clean-shutdown line's exit
		}
	}
	if len(got) != len(want) {
		t.Fatalf("run stored %d records, a one-shot parse of its output %d:\n%q\n%q", len(got), len(want), texts(got), clip(texts(recordsOf(want))))
	}
	for i := range want {
		if d := diffRecord(&got[i], &want[i].Record); d != "" {
			t.Errorf("record %d (%.50q): %s", i, want[i].Record.Text, d)
		}
	}
}

// commandExit reports whether r is the exit marker RunCommand adds when
// the program ended, not one a parser put after a clean-shutdown line.
func commandExit(r *oplog.Record) bool {
	return r.Kind == oplog.KindMarker && r.Name == oplog.MarkerExit && !strings.Contains(string(r.Data), `"reason":"shutdown"`)
}

// lastExit returns the last exit marker RunCommand added among recs.
func lastExit(t *testing.T, recs []oplog.Record) oplog.Record {
	t.Helper()
	for i := len(recs) - 1; i >= 0; i-- {
		if commandExit(&recs[i]) {
			return recs[i]
		}
	}
	t.Fatalf("no exit marker among %q", texts(recs))
	return oplog.Record{}
}

// checkOutcome fails unless run of source ended as outcome with end as
// the record that said so (end.ID 0: any), and, when it crashed, with
// crash as its crash.
func checkOutcome(t *testing.T, l *oplog.Log, source string, run uint64, outcome string, end, crash oplog.Record) {
	t.Helper()
	runs, err := l.Runs(t.Context(), source)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Run != run {
			continue
		}
		wantCrash := uint64(0)
		if outcome == oplog.OutcomeCrashed {
			wantCrash = crash.ID
			if wantCrash == 0 {
				t.Fatalf("%s run %d: the test names no crash", source, run)
			}
		}
		if r.Outcome != outcome || r.CrashID != wantCrash || r.EndID == 0 || end.ID != 0 && r.EndID != end.ID {
			t.Errorf("%s run %d: %s, end %d, crash %d; want %s, end %d, crash %d (%.80q)",
				source, run, r.Outcome, r.EndID, r.CrashID, outcome, end.ID, wantCrash, crash.Text)
		}
		return
	}
	t.Errorf("%s has no run %d", source, run)
}

// checkRunCrashes fails unless the crash groups of source are one per
// record of crashes, each of class crash with that record its newest
// occurrence and the one run it ended.
func checkRunCrashes(t *testing.T, l *oplog.Log, source string, crashes ...oplog.Record) {
	t.Helper()
	page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: source, Classes: oplog.CrashClasses})
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, g := range page.Groups {
		got = append(got, fmt.Sprintf("%s/%d/%d", g.Class, g.RunsEnded, g.LastID))
	}
	for _, r := range crashes {
		want = append(want, fmt.Sprintf("%s/1/%d", oplog.ClassCrash, r.ID))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: crash groups (class/runs ended/newest) %q, want %q", source, got, want)
	}
}

// waitRecords waits until source has a record that match says is it.
func waitRecords(t *testing.T, l *oplog.Log, source, what string, match func([]oplog.Record) bool) []oplog.Record {
	t.Helper()
	var recs []oplog.Record
	defer func() {
		if t.Failed() {
			for _, r := range recs {
				t.Logf("run %d %s %s %q", r.Run, r.Kind, r.Level, r.Text)
			}
		}
	}()
	logtest.Eventually(t, waitFor, what, func() bool {
		recs = ofSource(t, l, source)
		return match(recs)
	})
	return recs
}
