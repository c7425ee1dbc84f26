//go:build linux

package follow

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// needWine returns Debian's wine64 (on PATH, or where the wine64 package
// puts it), as needEngine does.
func needWine(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("wine64"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/lib/wine/wine64"); err == nil {
		return "/usr/lib/wine/wine64"
	}
	return needEngine(t, "wine64")
}

// wineEnv is the environment of the tests' Wine: a prefix and home of
// their own, made once (wineboot takes seconds), whose wineserver is
// stopped after the last test, before they are removed (it writes the
// prefix's registry as it exits, seconds after the last program).
func wineEnv(t *testing.T, wine string) []string {
	t.Helper()
	dir := filepath.Join(sharedDir, "wine")
	env := append(os.Environ(), "WINEPREFIX="+filepath.Join(dir, "prefix"), "HOME="+dir)
	shared(t, "wine", func(string) (string, error) {
		server, err := exec.LookPath("wineserver")
		if err != nil {
			server = "/usr/lib/wine/wineserver"
		}
		atExit(func() {
			for _, flag := range []string{"-k", "-w"} {
				cmd := exec.Command(server, flag)
				cmd.Env = env
				_ = cmd.Run() // no server running: nothing to stop
			}
		})
		// A server that outlives each program: a program then starts in
		// under a second, where one that starts the server (and Wine's
		// explorer and services) takes seconds more.
		if err := os.Mkdir(filepath.Join(dir, "prefix"), 0o755); err != nil {
			return "", err
		}
		cmd := exec.Command(server, "-p")
		cmd.Env = env // no output: the server it leaves would hold a pipe open
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("wineserver -p: %v", err)
		}
		// Its output to a file: Wine's services it starts live on with the
		// server and would hold a pipe open.
		out := filepath.Join(dir, "wineboot.log")
		f, err := os.Create(out)
		if err != nil {
			return "", err
		}
		defer f.Close()
		cmd = exec.Command(wine, "wineboot", "--init")
		cmd.Env, cmd.Stdout, cmd.Stderr = append(env, "DISPLAY=", "WINEDEBUG=-all"), f, f
		if err := cmd.Run(); err != nil {
			b, _ := os.ReadFile(out)
			return "", fmt.Errorf("wineboot: %v\n%s", err, b)
		}
		return "", nil
	})
	return env
}

// TestEngine_WineCrash: a Windows game built with MinGW, run under Debian's
// Wine, writes through a NULL pointer. What Wine prints (ntdll's line,
// its debug lines, winedbg's report: registers, stack dump, backtrace,
// modules, threads) is one fatal record, titled by winedbg's headline,
// whose crash frame is the game's function (with symbols) or its place in
// the program (stripped); the run crashed of it; the game's lines before
// it are kept whole (Wine's console draws spaces as cursor moves on a
// terminal). So under mcplogd run (twice: one crash group), in a followed
// file and imported.
func TestEngine_WineCrash(t *testing.T) {
	gcc := needEngine(t, "x86_64-w64-mingw32-gcc")
	wine := needWine(t)
	dir := copyGame(t, "wine")
	build := func(out string, flags ...string) string {
		t.Helper()
		exe := filepath.Join(dir, out)
		if b, err := exec.Command(gcc, append(flags, "-O0", "-o", exe, filepath.Join(dir, "game.c"))...).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", out, err, b)
		}
		return exe
	}
	game, stripped := build("game.exe", "-gdwarf-4"), build("stripped.exe", "-s")
	env := append(wineEnv(t, wine), "DISPLAY=")
	l := mustLog(t)

	// checkCrash checks a source's run: one fatal record, Wine's report,
	// the crash of its run, with frame.
	checkCrash := func(source string, run uint64, recs []oplog.Record, frame string) oplog.Record {
		t.Helper()
		var fatal []oplog.Record
		for _, r := range recs {
			if r.Level == oplog.LevelFatal {
				fatal = append(fatal, r)
			}
		}
		if len(fatal) != 1 {
			t.Fatalf("%s run %d: %d fatal records, want 1: %+v", source, run, len(fatal), fatal)
		}
		r := fatal[0]
		if !strings.HasPrefix(r.Text, "Unhandled exception: page fault on write access to 0x0000000000000004 in 64-bit code (") ||
			!strings.Contains(r.Stack, "Register dump:") || !strings.Contains(r.Stack, "Backtrace:") {
			t.Errorf("%s run %d: the crash %q with stack:\n%s", source, run, r.Text, r.Stack)
		}
		if tr := crash.Parse(r.Stack); len(tr.Frames) == 0 || tr.Frames[0] != frame {
			t.Errorf("%s run %d: frames %q, want %s first", source, run, tr.Frames, frame)
		}
		if _, ok := find(recs, hasText("game starting")); !ok {
			t.Errorf("%s run %d: no line \"game starting\" among %d records", source, run, len(recs))
		}
		if _, ok := find(recs, hasText("enemy 1 hp now 9")); !ok {
			t.Errorf("%s run %d: no line \"enemy 1 hp now 9\"", source, run)
		}
		checkOutcome(t, l, source, run, oplog.OutcomeCrashed, oplog.Record{}, r)
		return r
	}

	// mcplogd run, twice: one crash group.
	var sigs []string
	for range 2 {
		runGame(t, l, "wine", CommandOptions{Args: []string{wine, game}, Env: env})
	}
	console := runsOf(ofSource(t, l, "wine"))
	for run := uint64(1); run <= 2; run++ {
		r := checkCrash("wine", run, console[run], "damage_enemy")
		sig, _, _ := crash.Signature(r.Stack)
		sigs = append(sigs, sig)
	}
	if sigs[0] != sigs[1] {
		t.Errorf("the same crash in two launches has two signatures: %q", sigs)
	}
	runGame(t, l, "stripped", CommandOptions{Args: []string{wine, stripped}, Env: env})
	checkCrash("stripped", 1, ofSource(t, l, "stripped"), "stripped+0x15f5")

	// A followed file, then the same file imported.
	logFile := filepath.Join(t.TempDir(), "game.log")
	f := mustStart(t, l, Options{Name: "followed", Path: logFile, Poll: 10 * time.Millisecond, Quiet: 100 * time.Millisecond})
	out, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(wine, game)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, out, out
	_ = cmd.Run() // Wine's status after a fault varies (5, sometimes 0)
	out.Close()
	followed := waitRecords(t, l, "followed", "Wine's report", func(recs []oplog.Record) bool {
		_, ok := find(recs, func(r *oplog.Record) bool {
			return r.Level == oplog.LevelFatal && strings.Contains(r.Stack, "System information:")
		})
		return ok
	})
	mustClose(t, f)
	checkCrash("followed", 1, followed, "damage_enemy")
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Import(t.Context(), l, strings.NewReader(string(b)), ImportOptions{Source: "imported", File: logFile}); err != nil {
		t.Fatal(err)
	}
	checkCrash("imported", 1, ofSource(t, l, "imported"), "damage_enemy")
}

// TestEngine_WineAssert: a Windows game built with MinGW fails its assert
// under Wine: Microsoft's C runtime prints "Assertion failed: n < 100,
// file assert.c, line 9" and exits with status 3. Under mcplogd run and
// imported, that line is an error whose place is its stack, and the
// failing exit right after it names it the run's crash, titled by the
// condition and the place.
func TestEngine_WineAssert(t *testing.T) {
	gcc := needEngine(t, "x86_64-w64-mingw32-gcc")
	wine := needWine(t)
	dir := copyGame(t, "wine")
	exe := filepath.Join(dir, "assert.exe")
	if b, err := exec.Command(gcc, "-O0", "-o", exe, filepath.Join(dir, "assert.c")).CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	place := fmt.Sprintf("assert.c:%d", langLineOf(t, filepath.Join(dir, "assert.c"), "CRASH:assert"))
	env := append(wineEnv(t, wine), "DISPLAY=", "WINEDEBUG=-all")
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	_, printed := runGame(t, l, "wine", CommandOptions{Args: []string{wine, exe}, Env: env, Dir: dir})
	logFile := filepath.Join(t.TempDir(), "game.log")
	if err := os.WriteFile(logFile, []byte(printed), 0o644); err != nil {
		t.Fatal(err)
	}
	langImport(t, l, logFile)
	for _, source := range []string{"wine", "import"} {
		recs := ofSource(t, l, source)
		r, ok := find(recs, func(r *oplog.Record) bool { return strings.HasPrefix(r.Text, "Assertion failed: n < 100, file ") })
		if !ok || r.Level != oplog.LevelError || !strings.HasSuffix(r.Stack, place) {
			t.Fatalf("%s: the assertion %+v; want an error whose stack is its place %s\n%s", source, r, place, printed)
		}
		page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: source, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Groups) != 1 || !strings.HasPrefix(page.Groups[0].Title, "Assertion failed: n < 100 in ") || !strings.HasSuffix(page.Groups[0].Title, place) {
			t.Errorf("%s: the first crash group %+v; want the assertion, titled by it and its place", source, page.Groups)
		}
		if source == "wine" {
			checkOutcome(t, l, source, 1, oplog.OutcomeCrashed, oplog.Record{}, r)
		}
	}
}
