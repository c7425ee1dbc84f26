//go:build !windows

package follow

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestEngine_Godot3: Debian's godot3-server runs a small project five
// times (a clean run, exit status 3, a SIGSEGV the crash handler prints, a
// crash the handler dies in, a clean run), under RunCommand, while a
// follower with no parser named follows the file logger's godot.log, which
// Godot rewrites at every launch but the project's first. The file has a
// run per launch and every error, but no crash: Godot 3 writes crashes only to its standard error,
// which RunCommand records with the exit statuses.
func TestEngine_Godot3(t *testing.T) {
	godot := needEngine(t, "godot3-server", "godot3")
	game := copyGame(t, "godot3")
	xdg := t.TempDir()
	env := append(os.Environ(), "XDG_DATA_HOME="+xdg)
	l := mustLog(t)
	logFile := filepath.Join(xdg, "godot", "app_userdata", "McplogdProbe", "logs", "godot.log")
	f := mustStart(t, l, Options{Name: "godot-file", Path: logFile, Poll: 10 * time.Millisecond, Quiet: 100 * time.Millisecond})
	var printed []string
	for _, mode := range []string{"ok", "exit3", "segv", "freed", "ok"} {
		_, out := runGame(t, l, "godot", CommandOptions{Args: []string{godot, "--path", game, "--", mode}, Env: env})
		printed = append(printed, out)
	}
	console := ofSource(t, l, "godot")
	if got := exits(console); !slices.Equal(got, []string{"info godot3-server exited with status 0", "error godot3-server exited with status 3",
		"fatal godot3-server killed by signal 6 (SIGABRT)", "fatal godot3-server killed by signal 11 (SIGSEGV)", "info godot3-server exited with status 0"}) {
		// The crash handler aborts after its backtrace; a crash inside it is the SIGSEGV itself.
		if len(got) != 5 || !strings.Contains(got[2], "SIGABRT") && !strings.Contains(got[2], "core dumped") {
			t.Errorf("exit markers %q", got)
		}
	}
	runs := runsOf(console)
	if len(runs) != 5 {
		t.Fatalf("%d runs of the console, want 5", len(runs))
	}
	segv, ok := find(runs[3], hasText("Program crashed with signal 11"))
	if !ok || segv.Level != oplog.LevelFatal || !strings.Contains(segv.Stack, "-- END OF BACKTRACE --") || crashGroups(entries(runs[3])) < 3 {
		t.Errorf("the SIGSEGV run's crash %+v (groups %d)", segv, crashGroups(entries(runs[3])))
	}
	if r, ok := find(runs[4], hasText("Program crashed with signal 11")); !ok || r.Level != oplog.LevelFatal {
		t.Errorf("the handler's own crash: %+v", r)
	}
	for i, run := range []int{1, 2, 3, 4, 5} {
		checkRunEqualsOneShot(t, runs[uint64(run)], printed[i], "godot")
	}
	// How each launch ended: status 0 exits; status 3 crashes, naming the
	// exit itself (the script error before it is one Godot went on after:
	// the game printed more before it quit); a crash names the handler's
	// fatal line, not the signal that followed it.
	handler, _ := find(runs[4], hasText("Program crashed with signal 11"))
	checkOutcome(t, l, "godot", 1, oplog.OutcomeExited, lastExit(t, runs[1]), oplog.Record{})
	checkOutcome(t, l, "godot", 2, oplog.OutcomeCrashed, lastExit(t, runs[2]), lastExit(t, runs[2]))
	checkOutcome(t, l, "godot", 3, oplog.OutcomeCrashed, segv, segv)
	checkOutcome(t, l, "godot", 4, oplog.OutcomeCrashed, handler, handler)
	checkOutcome(t, l, "godot", 5, oplog.OutcomeExited, lastExit(t, runs[5]), oplog.Record{})
	// The file: Godot 3 writes none the first time a project runs (it
	// makes the user directory then), so the file has launches 2 to 5;
	// the fifth launch rewrote it, so the fourth's last line, left without
	// its newline by the crash, is stored too.
	file := waitRecords(t, l, "godot-file", "four runs of godot.log", func(recs []oplog.Record) bool {
		return count(recs, isMarker(oplog.MarkerRun)) == 4 && count(recs, hasText("[probe] mode=ok")) == 1 && len(runsOf(recs)[4]) >= 10
	})
	mustClose(t, f)
	for run, recs := range runsOf(file) {
		script, ok := find(recs, func(r *oplog.Record) bool { return r.Name == "script" })
		if !ok || script.Level != oplog.LevelError || script.Text != "Invalid call. Nonexistent function 'take_damage' in base 'Nil'." ||
			script.Stack != "at hit_nothing (res://Main.gd:45)" {
			t.Errorf("run %d of the file: script error %+v", run, script)
		}
		if r, ok := find(recs, hasText("[probe] save slot missing")); !ok || r.Level != oplog.LevelError {
			t.Errorf("run %d of the file: push_error %+v", run, r)
		}
		if r, ok := find(recs, hasText("[probe] low health")); !ok || r.Level != oplog.LevelWarn {
			t.Errorf("run %d of the file: push_warning %+v", run, r)
		}
		if n := count(recs, func(r *oplog.Record) bool { return r.Level == oplog.LevelFatal }); n != 0 {
			t.Errorf("run %d of the file: %d fatal records; Godot 3 writes none there", run, n)
		}
	}
	if _, ok := find(runsOf(file)[3], hasText("[probe] still running")); !ok {
		t.Error("the crashed fourth run's last line (no newline) was not stored")
	}
	// The file says nothing of how a launch ended, crashes included: each
	// run ended when the next began, the last when the follower stopped.
	for run := range uint64(4) {
		checkOutcome(t, l, "godot-file", run+1, oplog.OutcomeEnded, oplog.Record{}, oplog.Record{})
	}
}

// TestEngine_Godot3_QuitOnScriptError: a game that prints a script error
// every frame and is quit in the middle of them (status 0) leaves the error,
// with its stack, as the last line of its godot.log. Godot went on after
// every one, so the run did not crash: followed, the next launch ends it;
// imported, the next file imported does; run, its status 0 exits it.
func TestEngine_Godot3_QuitOnScriptError(t *testing.T) {
	godot := needEngine(t, "godot3-server", "godot3")
	game := copyGame(t, "godot3")
	xdg := t.TempDir()
	env := append(os.Environ(), "XDG_DATA_HOME="+xdg)
	l := mustLog(t)
	logFile := filepath.Join(xdg, "godot", "app_userdata", "McplogdProbe", "logs", "godot.log")
	runGame(t, l, "godot", CommandOptions{Args: []string{godot, "--path", game, "--", "ok"}, Env: env}) // makes the user directory
	f := mustStart(t, l, Options{Name: "godot-file", Path: logFile, Poll: 10 * time.Millisecond, Quiet: 100 * time.Millisecond})
	var files [][]byte
	for _, mode := range []string{"errquit", "ok"} {
		if exit, _ := runGame(t, l, "godot", CommandOptions{Args: []string{godot, "--path", game, "--", mode}, Env: env}); exit.Code != 0 {
			t.Fatalf("%s: %+v", mode, exit)
		}
		b, err := os.ReadFile(logFile)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	followed := waitRecords(t, l, "godot-file", "two launches of godot.log", func(recs []oplog.Record) bool {
		return count(recs, isMarker(oplog.MarkerRun)) == 2 && count(recs, hasText("[probe] mode=ok")) == 1
	})
	mustClose(t, f)
	for i, b := range files {
		if _, err := Import(t.Context(), l, bytes.NewReader(b), ImportOptions{Source: "godot-import", File: "godot.log." + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	imported := ofSource(t, l, "godot-import")
	for source, recs := range map[string][]oplog.Record{"godot-file": followed, "godot-import": imported} {
		first := slices.DeleteFunc(runsOf(recs)[1], func(r oplog.Record) bool { return isMarker(oplog.MarkerEnd)(&r) }) // an import's end
		if last := first[len(first)-1]; last.Level != oplog.LevelError || last.Stack == "" {
			t.Fatalf("%s: run 1 ends with %+v, want the script error with its stack", source, last)
		}
		checkOutcome(t, l, source, 1, oplog.OutcomeEnded, oplog.Record{}, oplog.Record{})
	}
	checkOutcome(t, l, "godot", 2, oplog.OutcomeExited, oplog.Record{}, oplog.Record{})
}

// TestEngine_Godot3_NoFileLog: with file logging off, Godot 3 writes no
// file; everything it printed is recorded by RunCommand.
func TestEngine_Godot3_NoFileLog(t *testing.T) {
	godot := needEngine(t, "godot3-server", "godot3")
	game := copyGame(t, "godot3")
	settings := filepath.Join(game, "project.godot")
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	off := strings.ReplaceAll(string(b), "enable_file_logging=true", "enable_file_logging=false")
	off = strings.ReplaceAll(off, "enable_file_logging.pc=true", "enable_file_logging.pc=false")
	if err := os.WriteFile(settings, []byte(off), 0o644); err != nil {
		t.Fatal(err)
	}
	xdg := t.TempDir()
	l := mustLog(t)
	exit, _ := runGame(t, l, "godot", CommandOptions{Args: []string{godot, "--path", game, "--", "exit3"}, Env: append(os.Environ(), "XDG_DATA_HOME="+xdg)})
	if exit.Code != 3 {
		t.Errorf("exit %+v", exit)
	}
	if _, err := os.Stat(filepath.Join(xdg, "godot", "app_userdata", "McplogdProbe", "logs", "godot.log")); err == nil {
		t.Error("godot.log written with file logging off")
	}
	recs := ofSource(t, l, "godot")
	r, ok := find(recs, func(r *oplog.Record) bool { return r.Name == "script" })
	if !ok || r.Stack != "at hit_nothing (res://Main.gd:45)" {
		t.Errorf("script error from the console: %+v", r)
	}
	checkOutcome(t, l, "godot", 1, oplog.OutcomeCrashed, lastExit(t, recs), lastExit(t, recs)) // Godot went on after the error
}

// TestEngine_Luanti: Debian's minetest-server runs a mod five times (a
// clean run, an error while loading, a run-time error, a call of a nil
// function, error() with a table), under RunCommand, while a follower with
// no parser named follows the debug.txt Locate finds in the user's
// directory: a run per launch, the thread as name, each prefixed
// traceback one fatal record, three crash groups with tracebacks.
func TestEngine_Luanti(t *testing.T) {
	server := needEngine(t, "/usr/lib/minetest/minetestserver", "minetestserver", "luantiserver")
	game := copyGame(t, "luanti")
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".minetest"), 0o755); err != nil {
		t.Fatal(err)
	}
	loc, err := Locate("luanti", "Server", "", &Env{GOOS: "linux", Home: home, Getenv: func(string) string { return "" }})
	if err != nil || loc.Path != filepath.Join(home, ".minetest", "debug.txt") {
		t.Fatalf("Locate = %+v, %v", loc, err)
	}
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	f := mustStart(t, l, Options{Name: "luanti-file", Path: loc.Path, Poll: 10 * time.Millisecond, Quiet: 100 * time.Millisecond})
	env := append(os.Environ(), "HOME="+home, "MINETEST_SUBGAME_PATH="+filepath.Join(game, "games"))
	modes := []string{"ok", "crash_load", "crash_runtime", "crash_call", "crash_table"}
	var printed []string
	for _, mode := range modes {
		args := []string{server, "--config", filepath.Join(game, "server.conf"), "--world", filepath.Join(home, "world"), "--gameid", "mcplogdtest",
			"--port", freeUDPPort(t)} // two test runs on one machine do not share it
		_, out := runGame(t, l, "luanti", CommandOptions{Args: args, Env: append(env, "PROBE_MODE="+mode)})
		printed = append(printed, out)
	}
	console := ofSource(t, l, "luanti")
	// Each run's "Server: Shutting down" (a crashed run prints it before
	// its error), then its exit status.
	prog := filepath.Base(server)
	want := []string{"info exited: Server: Shutting down", "info " + prog + " exited with status 0"}
	for range modes[1:] {
		want = append(want, "info exited: Server: Shutting down", "error "+prog+" exited with status 1")
	}
	if got := exits(console); !slices.Equal(got, want) {
		t.Errorf("exit markers %q, want %q", got, want)
	}
	for i := range modes {
		checkRunEqualsOneShot(t, runsOf(console)[uint64(i+1)], printed[i], "luanti")
	}
	// The clean run exited; the others crashed with their error, which
	// came after the shutdown line.
	checkLuantiOutcomes(t, l, "luanti", runsOf(console))
	file := waitRecords(t, l, "luanti-file", "five runs of debug.txt", func(recs []oplog.Record) bool {
		return count(recs, isMarker(oplog.MarkerRun)) == 5 && count(recs, func(r *oplog.Record) bool { return r.Level == oplog.LevelFatal }) == 4
	})
	mustClose(t, f)
	runs := runsOf(file)
	if n := len(runs); n != 5 {
		t.Fatalf("%d runs in debug.txt, want 5", n)
	}
	for run, recs := range runs {
		if r, ok := find(recs, hasText("[probe] save slot missing")); !ok || r.Level != oplog.LevelError || r.Name != "Main" {
			t.Errorf("run %d: %+v", run, r)
		}
		if r, ok := find(recs, hasText("[probe] inventory:\nsword\nshield")); !ok || r.Level != oplog.LevelInfo {
			t.Errorf("run %d: the multi-line message: %+v", run, r)
		}
	}
	load, _ := find(runs[2], func(r *oplog.Record) bool { return r.Level == oplog.LevelFatal })
	if !strings.HasPrefix(load.Text, "ModError: Failed to load and run script from") || !strings.HasSuffix(load.Text, "init.lua:18: boom while loading") ||
		!strings.HasPrefix(load.Stack, "stack traceback:\n\t[C]: in function 'error'") {
		t.Errorf("the load error: %q %q", load.Text, load.Stack)
	}
	rt, _ := find(runs[3], func(r *oplog.Record) bool { return r.Level == oplog.LevelFatal })
	if !strings.HasSuffix(rt.Text, "init.lua:24: attempt to index local 'player' (a nil value)") || strings.Count(rt.Stack, "\n") != 3 {
		t.Errorf("the run-time error: %q %q", rt.Text, rt.Stack)
	}
	checkLuantiOutcomes(t, l, "luanti-file", runs)
}

// checkLuantiOutcomes checks how the probe's five runs ended: the clean
// one exited, the others crashed with their one fatal record, each a
// crash group of its own (a load error, two run-time errors, error({})
// without a traceback, grouped by its message).
func checkLuantiOutcomes(t *testing.T, l *oplog.Log, source string, runs map[uint64][]oplog.Record) {
	t.Helper()
	checkOutcome(t, l, source, 1, oplog.OutcomeExited, oplog.Record{}, oplog.Record{})
	var crashes []oplog.Record
	for run := uint64(2); run <= 5; run++ {
		fatal := func(r *oplog.Record) bool { return r.Level == oplog.LevelFatal && r.Kind == oplog.KindLine }
		died, _ := find(runs[run], fatal)
		if n := count(runs[run], fatal); n != 1 {
			t.Errorf("%s run %d: %d fatal records, want 1", source, run, n)
		}
		if _, ok := find(runs[run], func(r *oplog.Record) bool { return r.Name == oplog.MarkerExit && r.ID < died.ID }); !ok {
			t.Errorf("%s run %d: no exit marker of the shutdown line before the crash", source, run)
		}
		checkOutcome(t, l, source, run, oplog.OutcomeCrashed, died, died)
		crashes = append(crashes, died)
	}
	checkRunCrashes(t, l, source, crashes...)
}

// freeUDPPort returns a UDP port of 127.0.0.1 free a moment ago.
func freeUDPPort(t *testing.T) string {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return strconv.Itoa(c.LocalAddr().(*net.UDPAddr).Port)
}
