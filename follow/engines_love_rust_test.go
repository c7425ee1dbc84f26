//go:build !windows

package follow

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestEngine_LOVE: Debian's love under Xvfb, through RunCommand: a run per
// launch (LÖVE prints no banner), the exit status of a clean quit and of
// love.event.quit(3), and an error in love.update: LÖVE prints it and
// stays on its error screen; killed with SIGKILL as soon as the traceback
// is printed, it loses nothing (its output is a terminal, so LuaJIT's
// stdout is line-buffered; redirected to a file, it would be lost).
func TestEngine_LOVE(t *testing.T) {
	xvfb := needEngine(t, "xvfb-run")
	love := needEngine(t, "love")
	game := copyGame(t, "love")
	// An authority file of the test's own: without one, xvfb-run makes a
	// temporary folder and, when removing it fails at exit (seen under
	// load), exits 5 instead of with the game's status.
	auth := filepath.Join(t.TempDir(), "Xauthority")
	if err := os.WriteFile(auth, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	xvfbArgs := func(mode string) []string { return []string{xvfb, "-a", "-f", auth, love, game, mode} }
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	var printed []string
	for _, mode := range []string{"ok", "exit3"} {
		_, out := runGame(t, l, "love", CommandOptions{Args: xvfbArgs(mode)})
		printed = append(printed, out)
	}
	out := &output{want: "[C]: in function 'xpcall'", seen: make(chan struct{})}
	started := make(chan *os.Process, 1)
	done := make(chan Exit, 1)
	go func() {
		exit, err := RunCommand(t.Context(), l, CommandOptions{Name: "love", Args: xvfbArgs("error"),
			Output: out, started: func(p *os.Process) { started <- p }})
		if err != nil {
			t.Error(err)
		}
		done <- exit
	}()
	p := <-started
	select {
	case <-out.seen:
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL) // the game and its X server
	case <-time.After(waitFor):
		t.Fatalf("no traceback after %s: %q", waitFor, out.String())
	}
	exit := <-done
	printed = append(printed, out.String())
	if exit.Signal != "SIGKILL" {
		t.Errorf("exit %+v, want SIGKILL", exit)
	}
	recs := ofSource(t, l, "love")
	if got := exits(recs); len(got) != 3 || got[0] != "info xvfb-run exited with status 0" || got[1] != "error xvfb-run exited with status 3" || !strings.Contains(got[2], "SIGKILL") {
		t.Errorf("exit markers %q", got)
	}
	runs := runsOf(recs)
	luaErr, ok := find(runs[3], func(r *oplog.Record) bool { return r.Level == oplog.LevelFatal })
	if !ok || luaErr.Text != "main.lua:22: attempt to index local 'player' (a nil value)" || !strings.Contains(string(luaErr.Data), `"srcFile":"main.lua","srcLine":22`) ||
		!strings.HasSuffix(luaErr.Stack, "[C]: in function 'xpcall'") || !strings.Contains(luaErr.Stack, "\tmain.lua:22: in function 'update'") {
		t.Errorf("the error: %+v", luaErr)
	}
	if r, ok := find(runs[1], hasText("save slot missing")); !ok || r.Level != oplog.LevelError {
		t.Errorf("the game's own ERROR: line %+v", r)
	}
	for i := range printed {
		checkRunEqualsOneShot(t, runs[uint64(i+1)], printed[i], "auto")
	}
	// The clean quit exited; quit(3) crashed with its exit marker (the
	// run has no error with a stack); the Lua error crashed the third run,
	// which the SIGKILL after it does not change.
	exit3 := lastExit(t, runs[2])
	checkOutcome(t, l, "love", 1, oplog.OutcomeExited, lastExit(t, runs[1]), oplog.Record{})
	checkOutcome(t, l, "love", 2, oplog.OutcomeCrashed, exit3, exit3)
	checkOutcome(t, l, "love", 3, oplog.OutcomeCrashed, luaErr, luaErr)
	// Two crashes, each the end of a run: the Lua error and the status 3
	// (the SIGKILL ended no run).
	checkRunCrashes(t, l, "love", luaErr, exit3)
}

// buildRust builds testdata/engines/rust offline against Debian's crates
// and returns the program.
func buildRust(t *testing.T) string {
	t.Helper()
	cargo := needEngine(t, "cargo")
	if _, err := os.Stat("/usr/share/cargo/registry/tracing-subscriber-0.3.16"); err != nil {
		needEngine(t, "/usr/share/cargo/registry/tracing-subscriber-0.3.16") // librust-tracing-subscriber-dev
	}
	return shared(t, "rust", func(dir string) (string, error) {
		if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "engines", "rust"))); err != nil {
			return "", err
		}
		cmd := exec.Command(cargo, "build", "--offline", "--quiet")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CARGO_TARGET_DIR="+filepath.Join(dir, "target"))
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("cargo build: %v\n%s", err, out)
		}
		return filepath.Join(dir, "target", "debug", "probe"), nil
	})
}

// TestEngine_Rust: a program logging through tracing-subscriber's fmt
// layer (as Bevy does), with colours on, run three times under RunCommand
// (a clean run, a panic in main, a panic in a named thread then in main,
// with RUST_BACKTRACE=1, and a panic in a thread main unwraps the join of),
// and twice with its output written to a file a follower follows with no
// parser named.
func TestEngine_Rust(t *testing.T) {
	probe := buildRust(t)
	l := mustLog(t)
	env := append(os.Environ(), "RUST_BACKTRACE=1")
	var printed []string
	for _, mode := range []string{"ok", "panic", "thread", "joined"} {
		_, out := runGame(t, l, "rust", CommandOptions{Args: []string{probe, mode}, Env: env})
		printed = append(printed, out)
	}
	recs := ofSource(t, l, "rust")
	if got := exits(recs); !slices.Equal(got, []string{"info probe exited with status 0", "error probe exited with status 101", "error probe exited with status 101",
		"error probe exited with status 101"}) {
		t.Errorf("exit markers %q", got)
	}
	runs := runsOf(recs)
	checkRustRun(t, runs[1], false)
	checkRustRun(t, runs[2], true)
	if r, ok := find(runs[3], func(r *oplog.Record) bool { return r.Name == "panic" && r.Level == oplog.LevelError }); !ok ||
		!strings.Contains(r.Text, "index out of bounds") || !strings.Contains(string(r.Data), `"thread":"worker"`) {
		t.Errorf("the worker's panic: %+v", r)
	}
	for i := range printed {
		checkRunEqualsOneShot(t, runs[uint64(i+1)], printed[i], "rust")
	}
	// Status 0 exited; a panic of main crashed its run (the exit status
	// 101 after it changes nothing), the worker's panic before it did not.
	mainPanic := func(recs []oplog.Record) oplog.Record {
		p, _ := find(recs, func(r *oplog.Record) bool { return r.Name == "panic" && r.Level == oplog.LevelFatal })
		return p
	}
	checkOutcome(t, l, "rust", 1, oplog.OutcomeExited, lastExit(t, runs[1]), oplog.Record{})
	checkOutcome(t, l, "rust", 2, oplog.OutcomeCrashed, mainPanic(runs[2]), mainPanic(runs[2]))
	checkOutcome(t, l, "rust", 3, oplog.OutcomeCrashed, mainPanic(runs[3]), mainPanic(runs[3]))
	joined := checkRustJoined(t, runs[4])
	checkOutcome(t, l, "rust", 4, oplog.OutcomeCrashed, joined, joined)
	// The same program's output in a file, followed.
	logFile := filepath.Join(t.TempDir(), "game.log")
	f := mustStart(t, l, Options{Name: "rust-file", Path: logFile, Poll: 10 * time.Millisecond, Quiet: 100 * time.Millisecond})
	w, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(probe, "panic")
	cmd.Stdout, cmd.Stderr, cmd.Env = w, w, env
	if err := cmd.Run(); err == nil {
		t.Error("the panicking program exited 0")
	}
	w.Close()
	file := waitRecords(t, l, "rust-file", "the panic in the followed file", func(recs []oplog.Record) bool {
		return count(recs, func(r *oplog.Record) bool { return r.Name == "panic" }) == 1
	})
	mustClose(t, f)
	checkRustRun(t, file, true)
	checkOutcome(t, l, "rust-file", 1, oplog.OutcomeCrashed, mainPanic(file), mainPanic(file))
	// A thread's panic that main unwraps, followed at the default quiet:
	// one crash, the thread's. Without RUST_BACKTRACE, as most run: the
	// second panic's backtrace took 134 ms here, and one held longer than
	// the quiet stores the thread's panic alone.
	joinedLog := filepath.Join(t.TempDir(), "joined.log")
	f = mustStart(t, l, Options{Name: "rust-joined", Path: joinedLog, Poll: 10 * time.Millisecond})
	w, err = os.Create(joinedLog)
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(probe, "joined")
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Run(); err == nil {
		t.Error("the panicking program exited 0")
	}
	w.Close()
	waitRecords(t, l, "rust-joined", "the panic in the followed file", func(recs []oplog.Record) bool {
		return count(recs, func(r *oplog.Record) bool { return r.Name == "panic" }) > 0
	})
	mustClose(t, f)
	file = ofSource(t, l, "rust-joined")
	joined = checkRustJoined(t, file)
	checkOutcome(t, l, "rust-joined", 1, oplog.OutcomeCrashed, joined, joined)
}

// checkRustJoined checks a run whose worker panicked and main unwrapped
// the worker's join: one panic record, the worker's, fatal, which says
// where main gave up; it returns it.
func checkRustJoined(t *testing.T, recs []oplog.Record) oplog.Record {
	t.Helper()
	panics := slices.DeleteFunc(slices.Clone(recs), func(r oplog.Record) bool { return r.Name != "panic" })
	if len(panics) != 1 {
		t.Fatalf("%d panic records, want 1: %+v", len(panics), panics)
	}
	p := panics[0]
	if p.Level != oplog.LevelFatal || !strings.Contains(p.Text, "index out of bounds") || !strings.Contains(string(p.Data), `"thread":"worker"`) ||
		!strings.Contains(string(p.Data), `"joined":"thread 'main' at src/main.rs:`) || !strings.Contains(string(p.Data), "Any { .. }") {
		t.Errorf("the joined panic: %s %q %s", p.Level, p.Text, p.Data)
	}
	return p
}

// checkRustRun checks a run of the probe: its tracing lines, and its
// panic when it had one.
func checkRustRun(t *testing.T, recs []oplog.Record, panicked bool) {
	t.Helper()
	if r, ok := find(recs, func(r *oplog.Record) bool { return r.Name == "bevy_render::renderer" }); !ok || r.Level != oplog.LevelInfo ||
		r.Text != `AdapterInfo { name: "llvmpipe", backend: Vulkan } adapter="llvmpipe"` || r.Time.IsZero() {
		t.Errorf("the renderer's line: %+v", r)
	}
	if r, ok := find(recs, func(r *oplog.Record) bool { return r.Name == "probe" && r.Level == oplog.LevelError }); !ok ||
		r.Text != "failed to save code=42" || !strings.Contains(string(r.Data), `"spans":"frame{n=7}"`) {
		t.Errorf("the error in a span: %+v", r)
	}
	if r, ok := find(recs, hasText("inventory:\nsword\nshield")); !ok || r.Name != "probe" {
		t.Errorf("the multi-line message: %+v", r)
	}
	levels := map[oplog.Level]int{}
	for _, r := range recs {
		if r.Kind == oplog.KindLine && r.Name != "panic" {
			levels[r.Level]++
		}
	}
	wantInfo := 3
	if panicked {
		wantInfo = 2 // no "done"
	}
	if levels[oplog.LevelDebug] != 2 || levels[oplog.LevelInfo] != wantInfo || levels[oplog.LevelWarn] != 1 || levels[oplog.LevelError] != 1 {
		t.Errorf("levels %v", levels)
	}
	p, ok := find(recs, func(r *oplog.Record) bool { return r.Name == "panic" && r.Level == oplog.LevelFatal })
	if ok != panicked {
		t.Fatalf("a fatal panic: %v, want %v", ok, panicked)
	}
	if panicked && (p.Text != "no save slot" || !rustPanicLocation.MatchString(string(p.Data)) || !strings.Contains(string(p.Data), `"thread":"main"`) || !rustStackHasMain(p.Stack)) {
		t.Errorf("the panic: %q %q %s", p.Text, p.Stack, p.Data)
	}
}

// The probe's panic is at src/main.rs line 27; its columns are the
// compiler's: rustc 1.63 (Debian's, which scripts/need-engines installs)
// puts probe::main's frame at 27:9, the start of the call, and 1.9x
// (rustup's) at 27:14, the method. Other things the version changes, which
// the test does not compare: the header (1.63's "thread 'main' panicked at
// 'no save slot', src/main.rs:27:14"; from 1.73 the message on a line of
// its own; from 1.91 a thread ID after the name), though the record's
// text and thread must come out the same from each; the standard
// library's frames ("panic_str" went, "rust_begin_unwind" became
// "__rustc::rust_begin_unwind"), their paths and columns.
var (
	rustPanicLocation = regexp.MustCompile(`"location":"src/main\.rs:27:[0-9]+"`)
	rustFrame         = regexp.MustCompile(`^at [^ ].* \(.+:[0-9]+:[0-9]+\)$`)
	rustMainFrame     = regexp.MustCompile(`^at probe::main \(/.+/src/main\.rs:27:[0-9]+\)$`)
)

// rustStackHasMain reports whether stack is a whole short backtrace of the
// probe's panic: every line a frame with its location, probe::main's at
// line 27, with frames both before it (the standard library's, which
// panicked) and after it (what called main).
func rustStackHasMain(stack string) bool {
	frames := strings.Split(stack, "\n")
	main := -1
	for i, f := range frames {
		if !rustFrame.MatchString(f) {
			return false
		}
		if rustMainFrame.MatchString(f) {
			main = i
		}
	}
	return main > 0 && main < len(frames)-1
}

// TestEngine_Rust_BevySystem: a Bevy system's panic on a task-pool thread,
// Bevy's lines naming the system, then the panic resumed on main (status
// 101, nothing printed): the run's crash is the panic, fatal, the system
// in its data, under RunCommand, in a followed file (detected and generic)
// and imported; Bevy's lines end its stack, no records of their own.
func TestEngine_Rust_BevySystem(t *testing.T) {
	probe := buildRust(t)
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	runGame(t, l, "run", CommandOptions{Args: []string{probe, "system"}})
	path := filepath.Join(t.TempDir(), "game.log")
	langRunToFile(t, []string{probe, "system"}, os.Environ(), "", path)
	langFollowTwice(t, l, path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Import(t.Context(), l, bytes.NewReader(b), ImportOptions{Source: "import", File: path}); err != nil {
		t.Fatal(err)
	}
	for _, source := range []string{"run", "file", "generic", "import"} {
		recs := ofSource(t, l, source)
		if n := count(recs, func(r *oplog.Record) bool { return strings.Contains(r.Text, "Encountered a panic") }); n != 0 {
			t.Errorf("%s: %d records of Bevy's lines", source, n)
		}
		p, ok := find(recs, func(r *oplog.Record) bool { return r.Name == "panic" })
		if !ok || p.Level != oplog.LevelFatal || p.Text != "damage larger than remaining health" ||
			!strings.Contains(string(p.Data), `"system":"arena::combat::apply_damage_system"`) ||
			!strings.HasSuffix(p.Stack, "\nEncountered a panic in system `arena::combat::apply_damage_system`!\n"+
				"Encountered a panic in system `bevy_app::main_schedule::Main::run_main`!") {
			t.Errorf("%s: the panic %s %q %s", source, p.Level, p.Text, p.Data)
			logLangRecords(t, source, recs)
			continue
		}
		checkOutcome(t, l, source, 1, oplog.OutcomeCrashed, oplog.Record{}, p)
	}
}
