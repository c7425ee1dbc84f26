//go:build !windows

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestRun_ExitStatus: mcplogd run records a launch as a run, its output
// and how it ended, and exits with the program's status; beside a
// running server the markers go over HTTP as markers.
func TestRun_ExitStatus(t *testing.T) {
	for _, beside := range []bool{false, true} {
		data := filepath.Join(t.TempDir(), "data")
		if beside {
			startServe(t, data, "--addr", "127.0.0.1:0")
		}
		_, err := run(t, data, "run", "--name", "Game", "--", "sh", "-c", "echo 'ERROR: no save slot'; exit 3")
		var code exitStatus
		if !errors.As(err, &code) || code != 3 {
			t.Fatalf("server %v: run = %v; want exit status 3", beside, err)
		}
		if _, err := run(t, data, "run", "--name", "Game", "--", "sh", "-c", "kill -SEGV $$"); !errors.As(err, &code) || code != 128+11 {
			t.Fatalf("server %v: run of a segfault = %v; want 139", beside, err)
		}
		out, err := run(t, data, "tail", "--source", "Game", "-n", "10")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"run started: sh -c 'echo '\\''ERROR: no save slot'\\''; exit 3'", "no save slot", "sh exited with status 3", "sh killed by signal 11 (SIGSEGV"} {
			if !strings.Contains(out, want) {
				t.Errorf("server %v: tail lacks %q:\n%s", beside, want, out)
			}
		}
	}
	if _, err := run(t, t.TempDir(), "run", "--create"); !errors.Is(err, errUsage) {
		t.Errorf("run without a command: %v", err)
	}
}

// TestRun_FreshHome: on a fresh HOME, with no --data and no --create,
// run makes the per-user store as serve does, and what it recorded is
// read back from any directory.
func TestRun_FreshHome(t *testing.T) {
	home, getenv := userEnv(t)
	t.Chdir(t.TempDir())
	var out, errOut syncBuffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: getenv}
	err := m.Run(t.Context(), []string{"run", "--name", "Game", "--", "sh", "-c", "echo 'Error: main.lua:5: attempt to index a nil value'; exit 1"})
	if code := exitStatus(0); !errors.As(err, &code) || code != 1 {
		t.Fatalf("run on a fresh HOME = %v (stderr: %s); want exit status 1", err, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "state", "mcplogd", "log.db")); err != nil {
		t.Fatalf("the per-user store was not made: %v", err)
	}
	t.Chdir(t.TempDir())
	var tail syncBuffer
	m = &Main{Stdin: strings.NewReader(""), Stdout: &tail, Stderr: &errOut, Getenv: getenv}
	if err := m.Run(t.Context(), []string{"tail", "--source", "Game", "--no-pager"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tail.String(), "attempt to index a nil value") {
		t.Fatalf("tail from another directory:\n%s", tail.String())
	}
}

// TestServe_Run: serve --run (and config.json's "run") starts the program
// and records it; the exit marker comes once it ends.
func TestServe_Run(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, stdout, stop := startServe(t, data, "--addr", "127.0.0.1:0", "--run", "lua:Game=sh -c 'echo \"Error: main.lua:3: boom\"; echo \"stack traceback:\"; printf \"\\t[C]: in function error\\n\"'")
	if !strings.Contains(stdout.String(), "run:      lua:Game=sh -c") {
		t.Errorf("serve's links: %s", stdout.String())
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := run(t, data, "tail", "--source", "Game", "-n", "10")
		if strings.Contains(out, "sh exited with status 0") {
			if !strings.Contains(out, "FATAL") || !strings.Contains(out, "main.lua:3: boom") {
				t.Errorf("the program's error:\n%s", out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no exit marker after 10 s:\n%s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = base
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := parseRun("Game"); err == nil || !strings.Contains(err.Error(), "NAME=COMMAND") {
		t.Errorf("--run Game: %v", err)
	}
	if _, err := parseRun("nope:Game=love ."); err == nil || !strings.Contains(err.Error(), "unknown parser") {
		t.Errorf("--run with an unknown parser: %v", err)
	}
}

// TestRun_BesideAFollowedLog: a game launched with `mcplogd run` beside a
// serve that follows the log file it rewrites at each launch is one run a
// launch, crashed or exited as the launch ended, also when the launch is
// over before the follower looks; a launch outside run is a run of its own.
// Before, each launch was two runs: the launch's, then the follower's
// ("the log file was truncated"), and the first of them ended empty.
func TestRun_BesideAFollowedLog(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	dir := t.TempDir()
	data, logPath, game := filepath.Join(dir, "data"), filepath.Join(dir, "game.log"), filepath.Join(dir, "game.py")
	script := `import sys, time
tag = sys.argv[1]
log = open(sys.argv[2], "w")  # rewritten at each launch, as many games do
def say(s):
    log.write("INFO: " + s + "\n"); log.flush()
say("game starting")
print("stdout " + tag, flush=True)
if not tag.startswith("quick"):
    time.sleep(0.4)
say("end " + tag)
if tag.startswith("crash"):
    raise RuntimeError("boom in " + tag)
`
	if err := os.WriteFile(game, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	startServe(t, data, "--addr", "127.0.0.1:0", "--follow", "generic:Game="+logPath)
	waitTail := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			out, _ := run(t, data, "tail", "--source", "Game", "-n", "200")
			if strings.Contains(out, want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%q not stored after 10 s:\n%s", want, out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, tag := range []string{"one", "crash-two", "quick-three"} {
		_, _ = run(t, data, "run", "--name", "Game", "--", "python3", game, tag, logPath)
		waitTail("end " + tag)
	}
	cmd := exec.Command("python3", game, "four", logPath) // launched by hand, not by run
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	waitTail("end four")
	out, err := run(t, data, "runs", "--source", "Game", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r oplog.RunInfo
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		got = append(got, r.Outcome)
	}
	if want := []string{"exited", "crashed", "exited", "running"}; !slices.Equal(got, want) {
		t.Fatalf("runs %q, want %q (three launches, then one by hand):\n%s", got, want, out)
	}
}
