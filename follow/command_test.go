//go:build !windows

package follow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
	"golang.org/x/sys/unix"
)

func runCmd(t *testing.T, l *oplog.Log, opts CommandOptions) Exit {
	t.Helper()
	opts.Name = testSource
	exit, err := RunCommand(context.Background(), l, opts)
	if err != nil {
		t.Fatalf("RunCommand(%q): %v", opts.Args, err)
	}
	return exit
}

// TestRunCommand_ExitStatus: a run per launch, its lines between the run
// marker and the exit marker, the exit status recorded, the output copied.
func TestRunCommand_ExitStatus(t *testing.T) {
	l := mustLog(t)
	var out bytes.Buffer
	exit := runCmd(t, l, CommandOptions{Args: []string{"sh", "-c", "echo hello; echo 'ERROR: bad thing' >&2; exit 3"}, Output: &out})
	if exit.Code != 3 || exit.Signal != "" || exit.String() != "exited with status 3" {
		t.Errorf("exit = %+v", exit)
	}
	runCmd(t, l, CommandOptions{Args: []string{"sh", "-c", "echo again"}})
	recs := all(t, l)
	var got []string
	for _, r := range recs {
		got = append(got, r.Kind.String()+"/"+r.Name+"/"+r.Level.String()+"/"+r.Text)
	}
	want := []string{
		"marker/run/info/run started: sh -c 'echo hello; echo '\\''ERROR: bad thing'\\'' >&2; exit 3'",
		"line//info/hello", "line//error/bad thing", "marker/exit/error/sh exited with status 3",
		"marker/run/info/run started: sh -c 'echo again'", "line//info/again", "marker/exit/info/sh exited with status 0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if recs[0].Run != 1 || recs[3].Run != 1 || recs[4].Run != 2 || recs[6].Run != 2 {
		t.Errorf("runs %d %d %d %d, want 1 1 2 2", recs[0].Run, recs[3].Run, recs[4].Run, recs[6].Run)
	}
	var d struct {
		ExitCode *int `json:"exitCode"`
	}
	if json.Unmarshal(recs[3].Data, &d) != nil || d.ExitCode == nil || *d.ExitCode != 3 {
		t.Errorf("exit marker data %s", recs[3].Data)
	}
	if !strings.Contains(out.String(), "hello\r\n") || !strings.Contains(out.String(), "ERROR: bad thing") {
		t.Errorf("output copied: %q", out.String())
	}
	// The failing status crashed the first run (no stack: the marker is
	// the crash); status 0 made the second exited.
	if got := outcomesOf(t, l); got != fmt.Sprintf("1:crashed:%d:%d 2:exited:%d:0", recs[3].ID, recs[3].ID, recs[6].ID) {
		t.Errorf("outcomes %s", got)
	}
}

// outcomesOf says how the test source's runs ended: "run:outcome:endId:crashId".
func outcomesOf(t *testing.T, l *oplog.Log) string {
	t.Helper()
	runs, err := l.Runs(t.Context(), testSource)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range runs {
		out = append(out, fmt.Sprintf("%d:%s:%d:%d", r.Run, r.Outcome, r.EndID, r.CrashID))
	}
	return strings.Join(out, " ")
}

// TestRunCommand_KilledRightAfterPrinting: a program that buffers its
// output when it goes to a pipe or file (Python, LÖVE's LuaJIT) and is
// killed with SIGKILL right after printing loses nothing: its output is a
// terminal, so it is line-buffered. The signal is recorded.
func TestRunCommand_KilledRightAfterPrinting(t *testing.T) {
	python := needEngine(t, "python3")
	l := mustLog(t)
	script := `import os, signal
print("Error: main.lua:7: attempt to index a nil value")
print("stack traceback:")
print("\t[C]: in function 'error'")
print("\tmain.lua:7: in function 'update'")
os.kill(os.getpid(), signal.SIGKILL)`
	exit := runCmd(t, l, CommandOptions{Args: []string{python, "-c", script}, Parser: "lua"})
	if exit.Signal != "SIGKILL" || exit.SignalNumber != int(syscall.SIGKILL) {
		t.Errorf("exit = %+v, want SIGKILL", exit)
	}
	recs := all(t, l)
	if len(recs) != 3 {
		t.Fatalf("%d records: %q", len(recs), texts(recs))
	}
	if r := recs[1]; r.Level != oplog.LevelFatal || r.Text != "main.lua:7: attempt to index a nil value" ||
		r.Stack != "stack traceback:\n\t[C]: in function 'error'\n\tmain.lua:7: in function 'update'" {
		t.Errorf("the error: %s %q %q", r.Level, r.Text, r.Stack)
	}
	if r := recs[2]; r.Name != oplog.MarkerExit || r.Level != oplog.LevelError || !strings.Contains(string(r.Data), `"signal":"SIGKILL"`) {
		t.Errorf("exit marker %s %q %s", r.Level, r.Text, r.Data)
	}
}

// TestRunCommand_CrashSignal: a program that dies of SIGSEGV gets a fatal
// exit marker naming the signal.
func TestRunCommand_CrashSignal(t *testing.T) {
	l := mustLog(t)
	exit := runCmd(t, l, CommandOptions{Args: []string{"sh", "-c", "echo about to crash; kill -SEGV $$"}})
	if exit.Signal != "SIGSEGV" || exit.Level() != oplog.LevelFatal {
		t.Fatalf("exit = %+v", exit)
	}
	recs := all(t, l)
	r := recs[len(recs)-1]
	if r.Name != oplog.MarkerExit || r.Level != oplog.LevelFatal || !strings.Contains(r.Text, "SIGSEGV") {
		t.Errorf("exit marker %s %q", r.Level, r.Text)
	}
	if got := outcomesOf(t, l); got != fmt.Sprintf("1:crashed:%d:%d", r.ID, r.ID) {
		t.Errorf("outcomes %s, want crashed by the signal", got)
	}
}

// TestRunCommand_SignalForwarded: a signal mcplogd gets (a Ctrl-C) goes
// to the program, which may end as it likes; the records end with how.
func TestRunCommand_SignalForwarded(t *testing.T) {
	l := mustLog(t)
	sigs := make(chan os.Signal, 1)
	started := make(chan *os.Process, 1)
	done := make(chan Exit, 1)
	go func() {
		exit, _ := RunCommand(context.Background(), l, CommandOptions{Name: testSource, Signals: sigs,
			Args:    []string{"sh", "-c", "trap 'echo stopping; exit 3' INT; echo ready; while :; do sleep 0.05; done"},
			started: func(p *os.Process) { started <- p }})
		done <- exit
	}()
	<-started
	deadline := time.Now().Add(waitFor)
	for !slices.Contains(texts(all(t, l)), "ready") {
		if time.Now().After(deadline) {
			t.Fatal("the program never printed ready")
		}
		time.Sleep(5 * time.Millisecond)
	}
	sigs <- os.Interrupt
	select {
	case exit := <-done:
		if exit.Code != 3 || exit.Signal != "" || exit.Stopped != "SIGINT" || exit.Level() != oplog.LevelInfo {
			t.Errorf("exit = %+v, want status 3 from its trap, stopped by SIGINT", exit)
		}
	case <-time.After(waitFor):
		t.Fatal("the program did not stop on the forwarded interrupt")
	}
	recs := all(t, l)
	if got := strings.Join(texts(recs), "|"); !strings.Contains(got, "ready|stopping|sh exited with status 3") {
		t.Errorf("records %q", got)
	}
	// Stopped by its user: the run exited, whatever status it chose.
	exitMarker := recs[len(recs)-1]
	if !strings.Contains(string(exitMarker.Data), `"stoppedBy":"SIGINT"`) || outcomesOf(t, l) != fmt.Sprintf("1:exited:%d:0", exitMarker.ID) {
		t.Errorf("exit marker %s; outcomes %s", exitMarker.Data, outcomesOf(t, l))
	}
}

// TestRunCommand_BadCommand: a program that does not exist is an error
// and stores nothing.
func TestRunCommand_BadCommand(t *testing.T) {
	l := mustLog(t)
	_, err := RunCommand(context.Background(), l, CommandOptions{Name: testSource, Args: []string{"/no/such/game"}})
	if err == nil || !strings.Contains(err.Error(), "/no/such/game") {
		t.Fatalf("err = %v", err)
	}
	if recs := all(t, l); len(recs) != 0 {
		t.Errorf("stored %q", texts(recs))
	}
	if _, err := RunCommand(context.Background(), l, CommandOptions{Name: testSource}); err == nil {
		t.Error("no command: no error")
	}
}

// TestExit_Level: the level of an exit says how the run ended: a crash's
// signal fatal, a failing status or SIGKILL error (crashed), a signal that
// asks a program to stop, sent by another, warn (exited), status 0 or an
// end mcplogd passed on info.
func TestExit_Level(t *testing.T) {
	for _, c := range []struct {
		e    Exit
		want oplog.Level
	}{
		{Exit{Code: -1, Signal: "SIGSEGV"}, oplog.LevelFatal},
		{Exit{Code: 1}, oplog.LevelError},
		{Exit{Code: -1, Signal: "SIGKILL"}, oplog.LevelError},
		{Exit{Code: -1, Signal: "SIGINT"}, oplog.LevelWarn},
		{Exit{Code: -1, Signal: "SIGTERM"}, oplog.LevelWarn},
		{Exit{Code: -1, Signal: "SIGHUP"}, oplog.LevelWarn},
		{Exit{Code: 0}, oplog.LevelInfo},
		{Exit{Code: 3, Stopped: "SIGINT"}, oplog.LevelInfo},
	} {
		if got := c.e.Level(); got != c.want {
			t.Errorf("%s: %s, want %s", c.e, got, c.want)
		}
	}
}

// TestRunCommand_ExitReason: a program that prints an error and gives up
// (exits failing, or aborts) right after it: the exit marker keeps the
// error as its reason, which titles its crash beside the status; else a
// line right before the end that says what failed, else its last line,
// whatever it says (sys.exit's message). A crash's own signal, a clean
// exit, or a last line printed long before the end, has no reason.
func TestRunCommand_ExitReason(t *testing.T) {
	for _, c := range []struct{ script, reason string }{
		{`echo loading; echo "Error: couldn't load level.dat: No such file or directory" >&2; exit 1`, "couldn't load level.dat: No such file or directory"},
		{`echo "FATAL ERROR: no display" >&2; kill -ABRT $$`, "no display"},
		{`echo "ERROR: no display" >&2; echo a; echo b; echo c; exit 1`, "c"},
		{`echo "ERROR: no display" >&2; echo a; sleep 3; exit 1`, ""},
		{`echo "ERROR: no display" >&2; kill -SEGV $$`, ""},
		{`echo "ERROR: no display" >&2; exit 0`, ""},
		// Go's log.Fatalf, with no level word: its last line says what failed.
		{`echo loading; echo '2026/12/06 10:00:01 main.go:21: failed to load level "forest": no such file' >&2; exit 1`,
			`main.go:21: failed to load level "forest": no such file`},
		{`echo "couldn't initialize display" >&2; kill -ABRT $$`, "couldn't initialize display"},
		{`echo "could not open window"; echo "bye"; exit 1`, "could not open window"},
		{`echo "loading level 3"; exit 1`, "loading level 3"},
		// A line printed over and over says nothing of the end; a line after it does.
		{`for i in $(seq 1 40); do echo "frame $i fps=60"; done; exit 1`, ""},
		{`for i in $(seq 1 40); do echo "frame $i fps=60"; done; echo "no save slot" >&2; exit 1`, "no save slot"},
		{`echo "Game over: no save slot for player 3" >&2; exit 2`, "Game over: no save slot for player 3"},
		// What a launcher or Wine prints after it: not the reason.
		{`echo "no save slot" >&2; echo "exit status 1" >&2; exit 1`, "no save slot"},
		{`echo "Game over: no save slot"; echo "0110:fixme:ntdll:NtQuerySystemInformation info_class 2" >&2; exit 1`, "Game over: no save slot"},
		{"echo 'level 3 has no ground' >&2; echo 'error: process didn'\\''t exit successfully: `target/debug/game` (exit status: 2)' >&2; exit 101",
			"level 3 has no ground"},
		{`echo "no save slot" >&2; echo "make: *** [Makefile:3: run] Error 1" >&2; exit 2`, "no save slot"},
		{`echo "no save slot" >&2; printf '\342\240\231\n'; exit 3`, "no save slot"}, // npm's spinner, "⠙"
		{`echo "0024:err:module:import_dll Library MSVCP140.dll not found" >&2; exit 1`, "0024:err:module:import_dll Library MSVCP140.dll not found"},
	} {
		l := mustLog(t)
		runCmd(t, l, CommandOptions{Args: []string{"sh", "-c", c.script}})
		recs := all(t, l)
		exit := recs[len(recs)-1]
		var d struct {
			Reason string `json:"reason"`
		}
		if exit.Name != oplog.MarkerExit || json.Unmarshal(exit.Data, &d) != nil || d.Reason != c.reason {
			t.Errorf("%s: exit marker %q data %s, want reason %q", c.script, exit.Text, exit.Data, c.reason)
		}
		if msg := crash.Message(&exit); c.reason != "" && msg != c.reason+" (sh "+exit.Text[len("sh "):]+")" {
			t.Errorf("%s: its crash's message %q", c.script, msg)
		}
	}
}

// TestRunCommand_ExitMessage: programs that give up with a message of
// their own and a failing status, under their real runtimes (Python's
// sys.exit("…"), Perl's die "…\n", which print no level word and no
// frame): the message titles the run's crash beside the status, and two
// such messages are two crash groups, not one "exited with status 1".
func TestRunCommand_ExitMessage(t *testing.T) {
	python, perl := needEngine(t, "python3"), needEngine(t, "perl")
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	for _, c := range []struct {
		args  []string
		title string
	}{
		{[]string{python, "-c", `import sys; print("loading level 3"); sys.exit("no save slot for player 3")`},
			"no save slot for player 3 (python3 exited with status 1)"},
		{[]string{python, "-c", `import sys; print("loading level 3"); sys.exit("level 3 has no ground layer")`},
			"level 3 has no ground layer (python3 exited with status 1)"},
		{[]string{perl, "-e", `print "loading level 3\n"; die "Config says width=0\n"`},
			"Config says width=0 (perl exited with status 255)"},
	} {
		runCmd(t, l, CommandOptions{Args: c.args})
		page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: testSource, Classes: oplog.CrashClasses, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Groups) == 0 || page.Groups[0].Title != c.title || page.Groups[0].Count != 1 {
			t.Errorf("%q: the first crash group is %+v, want %q once", c.args, page.Groups, c.title)
		}
	}
}

// TestRunCommand_LineTimes: a line the parser holds until the next comes
// (or the output is quiet) has the time it was read, not the time it was
// stored: a game's last words before it hung are not stamped beside what
// came seconds later.
func TestRunCommand_LineTimes(t *testing.T) {
	l := mustLog(t)
	runCmd(t, l, CommandOptions{Args: []string{"sh", "-c", "echo 'EnemyPool growing to 500'; sleep 3; echo 'Error: enemy pool overflow' >&2; exit 1"},
		Quiet: time.Minute})
	recs := all(t, l)
	var first, second oplog.Record
	for _, r := range recs {
		switch r.Text {
		case "EnemyPool growing to 500":
			first = r
		case "enemy pool overflow":
			second = r
		}
	}
	if first.ID == 0 || second.ID == 0 || second.Time.Sub(first.Time) < time.Second {
		t.Fatalf("the line before the 3 s pause at %s, the one after at %s; want them the pause apart:\n%+v", first.Time, second.Time, recs)
	}
}

// TestStartCaptured_HeldUntilReaped: mcplogd keeps its own copy of the
// program's side of the terminal until the program is reaped, then lets
// go. Were the program's copy the last, its exit could end the reads (EIO)
// before its last lines were read: a probe of 3,000 runs of `echo …; echo
// c; exit 1` beside two busy loops lost "b" and "c" in 4 of them, and
// none once mcplogd kept its copy.
func TestStartCaptured_HeldUntilReaped(t *testing.T) {
	cmd := exec.Command("sh", "-c", "echo last words")
	out, held, err := startCaptured(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if held == nil {
		t.Fatal("no copy of the program's side of its terminal is held")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	// The program has exited: its output reads, and then nothing is left
	// to read, and the terminal not hung up, until mcplogd lets go.
	f := out.(*os.File)
	fd := int(f.Fd())
	var got []byte
	buf := make([]byte, 256)
	for !bytes.Contains(got, []byte("last words")) {
		n, err := f.Read(buf)
		if err != nil {
			t.Fatalf("read %q, then %v", got, err)
		}
		got = append(got, buf[:n]...)
	}
	poll := func(ms int) int16 {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, ms); err != nil {
			t.Fatal(err)
		}
		return fds[0].Revents
	}
	if ev := poll(200); ev != 0 {
		t.Fatalf("after the program's exit, while held: poll says %#x; want nothing to read and no hang-up", ev)
	}
	held.Close()
	if ev := poll(int(waitFor / time.Millisecond)); ev&(unix.POLLHUP|unix.POLLIN) == 0 {
		t.Fatalf("let go: poll says %#x; want the terminal hung up", ev)
	}
}
