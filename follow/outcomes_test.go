package follow

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// outcomeCase is a fixture and how its runs ended, as read from the file.
type outcomeCase struct {
	file, parser string
	// runs says how each run ended, in order: "run:outcome", and for a
	// crashed run "run:crashed:TEXT", TEXT the beginning of its crash's
	// text, or "BEGINNING…PART" for a text that begins with BEGINNING and
	// holds PART further on.
	runs []string
	// groups are crash groups: "class:runsEnded:TEXT", the group of the
	// first record of the source whose text matches TEXT (as in runs).
	groups []string
	// bug, when set, says why the code gets the runs wrong: the case is
	// skipped while it does, and fails once it gets them right.
	bug string
}

// TestOutcomes_Fixtures imports real logs, each into a source of its own
// in one log with a crash index, and checks how every run ended and which
// record is a crashed run's crash, both decided by reading the fixture:
// a native crash, a script's uncaught error, a crash report, a failed
// assertion crash their run (the first such record is the crash); an
// engine's clean-shutdown line exits it, also when a crash follows it (a
// crash while shutting down still crashes the run); errors the game goes
// on after do neither; a run with no sign of its end ended when the next
// began or the import did. Runs are the ones the files' banners and
// separators mark. A few crash groups are checked too: a crash that ended
// a run is class crash, an exception the game went on after is class
// error, a compiler error class compile.
func TestOutcomes_Fixtures(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	x := crash.New(l, nil)
	l.SetCrashes(x)
	const (
		luantiLoad    = "ModError: Failed to load and run script from /tmp/engines/luanti/games/logtest/mods/logtest/init.lua:"
		luantiRuntime = "ServerError: AsyncErr: Lua: Runtime error from mod 'logtest' in callback environment_Step(): "
		rustBoom      = "boom: something went wrong (len=0)"
	)
	cases := []outcomeCase{
		// Unity: a native crash's handler, Windows' "Crash!!!" dump (after
		// the errors that led to it); exceptions and compile errors only.
		{file: "unity/editor-sigsegv.log", parser: "unity", runs: []string{"1:crashed:Received signal SIGSEGV"}},
		{file: "unity/linux-fatal-signal.log", parser: "unity", runs: []string{"1:crashed:Caught fatal signal - signo:11"},
			groups: []string{"crash:1:Caught fatal signal"}},
		{file: "unity/editor-5.5-import-crash.log", parser: "unity", runs: []string{"1:crashed:Crash!!!"}},
		{file: "unity/player-2019.4-oom-crash.log", parser: "unity", runs: []string{"1:crashed:Crash!!!"},
			groups: []string{"crash:1:Crash!!!"}},
		{file: "unity/player-2019.4-oom-crash-2.log", parser: "unity", runs: []string{"1:crashed:Crash!!!"}},
		{file: "unity/player-2019.4-mod-errors.log", parser: "unity", runs: []string{"1:ended"},
			groups: []string{"error:0:ReflectionTypeLoadException getting types in assembly Psychology"}},
		{file: "unity/rimworld-exceptions.log", parser: "unity", runs: []string{"1:ended"}},
		{file: "unity/oxide-argument-out-of-range.log", parser: "unity", runs: []string{"1:ended"},
			groups: []string{"error:0:ArgumentOutOfRangeException"}},
		{file: "unity_editor.log", parser: "unity", runs: []string{"1:ended"},
			groups: []string{`compile:0:Assets\Scripts\Player.cs(57,10): error CS1002`, "error:0:NullReferenceException"}},

		// Godot: its crash handler's dump, with a backtrace (4.x, 3.5) or
		// without (3.2.3 through a pipe and a terminal); later crashes of
		// the same run are not its crash. Godot 3's file logger writes no
		// crash and no exit status: those runs just ended.
		{file: "godot/crash_runs.log", parser: "godot", runs: []string{
			"1:crashed:Program crashed with signal 11", "2:crashed:Program crashed with signal 4", "3:crashed:Program crashed with signal 4"}},
		{file: "godot/godot3.log", parser: "godot", runs: []string{"1:crashed:Program crashed with signal 4"}},
		{file: "godot/godot3_console_crash.txt", parser: "godot", runs: []string{"1:crashed:Program crashed with signal 11"},
			groups: []string{"crash:1:Program crashed with signal 11", "error:0:Invalid call. Nonexistent function 'some_method'"}},
		{file: "godot/godot3_pty_crash.txt", parser: "godot", runs: []string{"1:crashed:Program crashed with signal 11"}},
		// glibc's heap check under Godot's parser, which reads its own dumps, not the C runtime's.
		{file: "godot/godot3_double_free.txt", parser: "godot", runs: []string{"1:crashed:free(): double free detected in tcache 2"}},
		{file: "godot/godot3_file.log", parser: "godot", runs: []string{"1:ended"}},
		{file: "godot/godot3_error_exit_file.log", parser: "godot", runs: []string{"1:ended"},
			groups: []string{"error:0:Invalid get index 'nope'"}},
		{file: "godot/csharp.log", parser: "godot", runs: []string{"1:ended"}},
		{file: "godot.log", parser: "godot", runs: []string{"1:ended"}},

		// Minecraft: FATAL lines, a crash report printed into the log, the
		// crash reports themselves (one fatal record each).
		{file: "minecraft/latest-forge-1.12.2.log", parser: "log4j", runs: []string{
			"1:crashed:net.minecraftforge.fml.common.MissingModsException: Mod enderstorage (EnderStorage)"}},
		{file: "minecraft/latest-neoforge-1.21.1.log", parser: "log4j", runs: []string{
			"1:crashed:Preparing crash report with UUID 1f3ed27b-c7e0-40ad-b794-a07655eb2f25"}},
		// The server's crash handler, then its "Stopping server": crashed.
		{file: "minecraft_latest.log", parser: "log4j", runs: []string{"1:crashed:Encountered an unexpected exception"},
			groups: []string{"error:0:Failed to handle packet net.minecraft.network.protocol.game.ServerboundUseItemOnPacket@3f2a1b7c"}},
		{file: "minecraft/crash-2020-05-15_22.03.56-server.txt", parser: "mccrash", runs: []string{
			"1:crashed:Exception in server tick loop: net.minecraftforge.fml.common.MultipleModsErrored"}},
		{file: "minecraft/crash-2023-12-28_13.21.22-client.txt", parser: "mccrash", runs: []string{
			"1:crashed:Tessellating block in world - Indium Renderer: java.lang.RuntimeException"}},
		{file: "minecraft/crash-2026-08-20_19.29.12-client.txt", parser: "mccrash", runs: []string{
			"1:crashed:Rendering overlay: java.lang.RuntimeException: Sodium mod config not found"},
			groups: []string{"crash:1:Rendering overlay"}},

		// Unreal: the critical error block, titled by its message; the
		// shutdown after an error is no clean exit.
		{file: "unreal/ue5_access_violation.log", parser: "unreal", runs: []string{
			"1:crashed:Unhandled Exception: EXCEPTION_ACCESS_VIOLATION reading address 0x0000000000000000"}},
		{file: "unreal/ue5_hlod_assert.log", parser: "unreal", runs: []string{"1:crashed:Assertion failed: Pair != nullptr"}},
		{file: "unreal/pciterator_ue4.log", parser: "unreal", runs: []string{
			"1:crashed:Assertion failed: LocalOnly || InWorld->GetNetMode() != NM_Client"}},

		// Luanti prints "Server: Shutting down" before the error that
		// stopped it: those runs crashed all the same.
		{file: "luanti/console_ok.txt", parser: "luanti", runs: []string{"1:exited"}},
		{file: "luanti/debug_color.txt", parser: "luanti", runs: []string{"1:exited"}},
		{file: "luanti/console_crash.txt", parser: "luanti", runs: []string{"1:crashed:" + luantiRuntime + "…init.lua:54: attempt to index local 't'"},
			groups: []string{"crash:1:" + luantiRuntime}},
		{file: "luanti/debug.txt", parser: "luanti", runs: []string{
			"1:exited",
			"2:crashed:" + luantiLoad + "…init.lua:48: boom",
			"3:crashed:" + luantiRuntime + "…init.lua:54: attempt to index local 't'",
			"4:crashed:" + luantiRuntime + "…init.lua:71: attempt to call local 'f'",
			"5:crashed:" + luantiRuntime + "<no description>",
			"6:crashed:" + luantiRuntime + "…init.lua:63: attempt to index local 'cfg'",
			"7:crashed:" + luantiLoad + "…init.lua:85: check failed: x is required",
			"8:crashed:" + luantiLoad + "…bad_syntax.lua:1: unexpected symbol near '='",
			"9:exited", "10:exited", "11:exited",
			"12:exited", // an error logged by on_shutdown
			// A Lua error in on_shutdown: the server logs it, finishes
			// shutting down and exits with status 0.
			"13:exited",
			"14:exited", "15:exited", "16:exited", // SIGINT
			"17:exited",            // SIGTERM
			"18:ended", "19:ended", // SIGKILL and SIGHUP: no last line
			"20:exited", "21:exited", "22:exited",
			"23:crashed:ServerError: AsyncErr: Failed to bind socket"}},

		// LÖVE's and the Lua interpreters' uncaught errors.
		{file: "love/badpath.txt", parser: "lua", runs: []string{`1:crashed:[love "boot.lua"]:323: Cannot load game at path`}},
		{file: "love/error_load.txt", parser: "lua", runs: []string{"1:crashed:main.lua:43: boom in love.load"}},
		{file: "love/error_update.txt", parser: "lua", runs: []string{"1:crashed:main.lua:79: attempt to index local 'player' (a nil value)"},
			groups: []string{"crash:1:main.lua:79: attempt to index local 'player'"}},
		{file: "love/syntax_error.txt", parser: "lua", runs: []string{"1:crashed:Syntax error: broken.lua:4: <name> or '...' expected near 'return'"}},
		{file: "love/thread_error.txt", parser: "lua", runs: []string{"1:crashed:Thread error (Thread: 0x5584eefb98b0)…worker.lua:4: attempt to index local 'n'"}},
		// require of a module that is not there: its 17 places, then the traceback.
		{file: "love/require_missing.txt", parser: "lua", runs: []string{"1:crashed:main.lua:4: module 'lib.camera' not found:"}},
		{file: "love/lua51_error.txt", parser: "lua", runs: []string{"1:crashed:main.lua:5: boom"}},
		{file: "love/luajit_error.txt", parser: "lua", runs: []string{"1:crashed:main.lua:5: boom"}},

		// Rust: a panic of the main thread ends the process; a spawned
		// thread's panic does not.
		{file: "rust/panic_bt_unset_debian163.txt", parser: "generic", runs: []string{"1:crashed:" + rustBoom}},
		{file: "rust/panic_bt_unset_rustup195.txt", parser: "generic", runs: []string{"1:crashed:" + rustBoom}},
		{file: "rust/panic_bt_1_debian163.txt", parser: "generic", runs: []string{"1:crashed:" + rustBoom}},
		{file: "rust/panic_bt_1_rust185.txt", parser: "generic", runs: []string{"1:crashed:" + rustBoom}},
		{file: "rust/panic_bt_1_rustup195.txt", parser: "generic", runs: []string{"1:crashed:" + rustBoom},
			groups: []string{"crash:1:" + rustBoom}},
		{file: "rust/panic_bt_full_debian163.txt", parser: "generic", runs: []string{"1:crashed:" + rustBoom}},
		{file: "rust/panic_bt_full_rustup195.txt", parser: "generic", runs: []string{"1:crashed:" + rustBoom}},
		{file: "rust/panic_multiline_debian163.txt", parser: "generic", runs: []string{"1:crashed:first line of panic\nsecond line\n  third line"}},
		{file: "rust/panic_multiline_rustup195.txt", parser: "generic", runs: []string{"1:crashed:first line of panic\nsecond line\n  third line"}},
		{file: "rust/panic_in_span.txt", parser: "generic", runs: []string{"1:crashed:panic inside span"}},
		{file: "rust/panic_thread.txt", parser: "generic", runs: []string{"1:ended"},
			groups: []string{"error:0:worker failed: bad state", "error:0:unnamed thread panic"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			mustImport(t, l, readSample(t, c.file), ImportOptions{Source: c.file, Parser: c.parser, File: c.file})
			recs := ofSource(t, l, c.file)
			checkGroups(t, l, x, c.file, recs, c.groups)
			got := runOutcomes(t, l, c.file, recs)
			wrong := wrongRuns(got, c.runs)
			switch {
			case len(wrong) == 0 && c.bug != "":
				t.Errorf("the runs are right now (%s): drop the case's bug", c.bug)
			case len(wrong) == 0:
			case c.bug != "":
				t.Skipf("known wrong: %s; runs:\n%s", c.bug, strings.Join(got, "\n"))
			default:
				t.Errorf("runs %v wrong:\n%s\nwant:\n%s", wrong, strings.Join(got, "\n"), strings.Join(c.runs, "\n"))
			}
		})
	}
}

// runOutcomes describes the runs of source as outcomeCase.runs does, with
// the whole text of each crash. It fails the test when a run's IDs
// disagree with its outcome.
func runOutcomes(t *testing.T, l *oplog.Log, source string, recs []oplog.Record) []string {
	t.Helper()
	runs, err := l.Runs(context.Background(), source)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[uint64]oplog.Record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	var got []string
	for _, run := range runs {
		s := fmt.Sprintf("%d:%s", run.Run, run.Outcome)
		crashed := run.Outcome == oplog.OutcomeCrashed
		if run.EndID == 0 || crashed != (run.CrashID != 0) {
			t.Errorf("run %d %s: endId %d, crashId %d", run.Run, run.Outcome, run.EndID, run.CrashID)
		}
		if crashed {
			c, found := byID[run.CrashID]
			if !found || c.Run != run.Run || c.Kind != oplog.KindLine || c.Level != oplog.LevelFatal {
				t.Errorf("run %d: its crash %d is no fatal line of it: %+v", run.Run, run.CrashID, c)
			}
			s += ":" + c.Text
		}
		got = append(got, s)
	}
	return got
}

// wrongRuns returns the runs (counted from 1) whose description in got is
// not what want says; every run when they have not as many.
func wrongRuns(got, want []string) []int {
	var out []int
	for i := range max(len(got), len(want)) {
		if len(got) != len(want) || !outcomeMatches(got[i], want[i]) {
			out = append(out, i+1)
		}
	}
	return out
}

// outcomeMatches reports whether a run's description got is what want
// says: the same run and outcome, and a crash text that matches.
func outcomeMatches(got, want string) bool {
	run, text, _ := strings.Cut(want, ":")
	outcome, text, crashed := strings.Cut(text, ":")
	prefix := run + ":" + outcome
	if !crashed {
		return got == prefix
	}
	return textMatches(strings.TrimPrefix(got, prefix+":"), text) && strings.HasPrefix(got, prefix+":")
}

// textMatches reports whether text is what want says: it begins with
// want, or for "BEGINNING…PART", begins with BEGINNING and holds PART after.
func textMatches(text, want string) bool {
	begin, part, _ := strings.Cut(want, "…")
	rest, ok := strings.CutPrefix(text, begin)
	return ok && strings.Contains(rest, part)
}

// checkGroups checks the crash groups want names ("class:runsEnded:TEXT")
// among the groups of source.
func checkGroups(t *testing.T, l *oplog.Log, x *crash.Index, source string, recs []oplog.Record, want []string) {
	t.Helper()
	if len(want) == 0 {
		return
	}
	page, err := l.FindCrashes(context.Background(), oplog.CrashQuery{Source: source, Classes: oplog.CrashClasses, Limit: oplog.MaxCrashLimit})
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]oplog.CrashGroup{}
	for _, g := range page.Groups {
		groups[g.Signature] = g
	}
	for _, w := range want {
		class, rest, _ := strings.Cut(w, ":")
		ended, text, _ := strings.Cut(rest, ":")
		r, ok := find(recs, func(r *oplog.Record) bool { return r.Kind == oplog.KindLine && textMatches(r.Text, text) })
		if !ok {
			t.Errorf("group %q: no record's text matches", w)
			continue
		}
		sig, ok := x.Occurrence(r.ID)
		g, grouped := groups[sig]
		switch {
		case !ok || !grouped:
			t.Errorf("group %q: record %d (%.60q) is in no group of %s", w, r.ID, r.Text, source)
		case g.Class != class || fmt.Sprint(g.RunsEnded) != ended:
			t.Errorf("group %q: class %s, ended %d runs (%q)", w, g.Class, g.RunsEnded, g.Title)
		}
	}
}

// TestOutcomes_Titles: the crash that ended a run is titled as its
// developer would: Godot 3's crash handler's dump, read by its parser and
// by the generic one, by its headline (no frame of libc, the trampoline
// and clock_nanosleep above it, names it, and the game's frames have no
// symbols); require's missing module by its message, not the first place
// it looked in; LÖVE's thread's error by the error, not the thread's
// address.
func TestOutcomes_Titles(t *testing.T) {
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	for _, c := range []struct{ file, parser, title string }{
		{"godot/godot3_fpe_handler.txt", "godot", "Program crashed with signal 8"},
		{"godot/godot3_fpe_handler.txt", "generic", "handle_crash: Program crashed with signal 8"},
		{"love/require_missing.txt", "lua", "main.lua:4: module 'lib.camera' not found in main.lua:4: in function 'load'"},
		{"love/thread_error.txt", "lua", "worker.lua:4: attempt to index local 'n' (a nil value) in worker.lua:4: in main chunk"},
	} {
		source := c.file + "/" + c.parser
		mustImport(t, l, readSample(t, c.file), ImportOptions{Source: source, Parser: c.parser, File: "game.log"})
		p, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: source, Classes: []string{oplog.ClassCrash}})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Groups) != 1 || p.Groups[0].Title != c.title || p.Groups[0].RunsEnded != 1 {
			t.Errorf("%s: %+v; want one crash titled %q that ended the run", source, p.Groups, c.title)
		}
	}
}
