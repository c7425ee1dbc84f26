package follow

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestLogcat_Launches: a device's log of three launches of a Godot game,
// followed as adb writes it, imported, and read from a program's output
// (mcplogd run -- adb logcat, with the parser named and detected: adb is
// no game, and its start the first launch's run but not the others'):
// each launch is a run, crashed of
// its own crash (two native crashes at the same place, then a Java one),
// so that the last run's crash is the Java one. The same log kept to the
// engine's and the crashes' tags (adb logcat -s godot libc DEBUG), with no
// ActivityManager line, has a run per process that logs Godot's lines.
func TestLogcat_Launches(t *testing.T) {
	full := string(readSample(t, "logcat/dungeon_threadtime.txt"))
	var kept strings.Builder
	for l := range strings.Lines(full) {
		if f := strings.Fields(l); len(f) > 5 && (f[5] == "godot" || f[5] == "libc" || f[5] == "DEBUG") {
			kept.WriteString(l)
		}
	}
	for name, c := range map[string]struct {
		log  string
		want []string // each run's crash, its text's start
	}{
		"full":     {full, []string{"Fatal signal 11", "Fatal signal 11", "java.lang.IllegalStateException: save slot 2"}},
		"filtered": {kept.String(), []string{"Fatal signal 11", "Fatal signal 11"}},
	} {
		t.Run(name, func(t *testing.T) {
			l := mustLog(t)
			sources := readLogcatEveryWay(t, l, c.log)
			for _, source := range sources {
				runs, got := runEnds(t, l, source)
				ok := len(got) == len(c.want)
				for i := 0; ok && i < len(got); i++ {
					ok = strings.HasPrefix(got[i], oplog.OutcomeCrashed+" "+c.want[i])
				}
				if !ok {
					t.Errorf("%s: runs %q, want crashed of %q", source, got, c.want)
				}
				// The current run, by time, is the last launch: under mcplogd
				// run too, whose start (adb's) takes the time of the log's
				// first line, the launches in it being earlier.
				if cur := oplog.Latest(runs)[source][0]; len(runs) > 0 && runs[cur].Run != runs[len(runs)-1].Run {
					t.Errorf("%s: the current run is run %d (start %s), not the last launch", source, runs[cur].Run, runs[cur].Start)
				}
			}
		})
	}
}

// TestLogcat_StartProc: ActivityManager's line of a process it starts, as
// Android 5 and Android 14 print it; other lines of its are none.
func TestLogcat_StartProc(t *testing.T) {
	for body, want := range map[string]string{
		"Start proc com.test.thalitest for activity com.test.thalitest/.MainActivity: pid=6178 uid=10155 gids={50155, 9997} abi=armeabi-v7a": "6178 com.test.thalitest",
		"Start proc 4502:com.example.dungeon/u0a123 for top-activity {com.example.dungeon/com.godot.game.GodotApp}":                          "4502 com.example.dungeon",
		"Start proc 29311:com.DefaultCompany.Game:unitycrash/u0a231 for service":                                                             "29311 com.DefaultCompany.Game:unitycrash",
		"Process com.example.dungeon (pid 4502) has died: fg  TOP":                                                                           "",
		"Start proc com.example.dungeon for activity com.example.dungeon/.Main":                                                              "",
	} {
		pid, pkg, ok := startProc(body)
		if got := strings.TrimSpace(pid + " " + pkg); ok != (want != "") || ok && got != want {
			t.Errorf("%q: %q %v, want %q", body, got, ok, want)
		}
	}
}

// TestLogcat_ANR: ActivityManager's reports of apps not responding, in a
// device's log followed, imported and read from adb's output: each report
// one record titled by its app and reason; a system app's an error, the
// game's fatal, the crash of its run; the game launched again is a run
// that did not crash. Without the game's start (the log begun later), its
// ANR is known as the game's by its process, which logged Unity's lines.
func TestLogcat_ANR(t *testing.T) {
	full := string(readSample(t, "logcat/anr_threadtime.txt"))
	late := full[strings.Index(full, "12-06 11:00:01.000"):]
	for name, log := range map[string]string{"full": full, "late": late} {
		t.Run(name, func(t *testing.T) {
			l := mustLog(t)
			readLogcatEveryWay(t, l, log)
			for _, source := range []string{"followed", "imported"} {
				var anrs []string
				for _, r := range ofSource(t, l, source) {
					if strings.HasPrefix(r.Text, "ANR in ") || strings.Contains(r.Text, "PID: ") || strings.HasPrefix(r.Text, "Reason: ") {
						anrs = append(anrs, fmt.Sprintf("%s %s", r.Level, r.Text))
					}
				}
				want := []string{"error ANR in com.android.systemui: Broadcast of Intent { act=android.intent.action.SCREEN_ON flg=0x50200010 }",
					"fatal ANR in com.example.dungeon: Input dispatching timed out (8b3a6c1 com.example.dungeon/com.unity3d.player.UnityPlayerActivity (server) is not responding. Waited 5001ms for MotionEvent)"}
				if !slices.Equal(anrs, want) {
					t.Errorf("%s: the ANR records %q, want %q", source, anrs, want)
				}
				_, got := runEnds(t, l, source)
				if len(got) != 2 || !strings.HasPrefix(got[0], "crashed ANR in com.example.dungeon: In") || strings.HasPrefix(got[1], oplog.OutcomeCrashed) {
					t.Errorf("%s: runs %q, want crashed of the game's ANR, then one that did not crash", source, got)
				}
			}
		})
	}
}

// TestLogcat_Died: the game's process dies in a device's log, followed,
// imported and read from adb's output: killed by the low-memory killer
// while it played (its run crashed, titled by the kill), then, launched
// again, closed by the player (its run exited). Another app the killer
// killed, and its death, are no run's end.
func TestLogcat_Died(t *testing.T) {
	log := string(readSample(t, "logcat/lmkd_threadtime.txt"))
	l := mustLog(t)
	readLogcatEveryWay(t, l, log)
	want := []string{"crashed com.example.dungeon (process 6120) killed by the low-memory killer: oom_score_adj 0 to free 2445960kB rss",
		"exited "}
	for _, source := range []string{"followed", "imported", "run"} {
		_, got := runEnds(t, l, source)
		if len(got) != 2 || !strings.HasPrefix(got[0], want[0]) || got[1] != want[1] {
			t.Errorf("%s: runs %q, want %q", source, got, want)
		}
	}
}

// TestLogcat_TwoProcessesAtOnce: two processes log Unity's tag at once
// (two Unity apps, a log kept to the tag): a run for each, not one at
// every change between them.
func TestLogcat_TwoProcessesAtOnce(t *testing.T) {
	var b strings.Builder
	for i := range 10 {
		pid := 5100 + 100*(i%2)
		fmt.Fprintf(&b, "12-06 13:00:%02d.000  %d  %d I Unity   : frame %d\n", i, pid, pid+30, i)
	}
	l := mustLog(t)
	mustImport(t, l, []byte(b.String()), ImportOptions{Parser: "logcat"})
	runs, err := l.Runs(t.Context(), testSource)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Records != 1 {
		t.Errorf("%d runs (%+v), want 2: the first process's first line, then the rest", len(runs), runs)
	}
}

// TestLogcat_ANRsBackToBack: two apps' ANR reports one after the other
// under the same header are a record each, each with its process.
func TestLogcat_ANRsBackToBack(t *testing.T) {
	var b strings.Builder
	for _, app := range []string{"com.android.systemui", "com.example.dungeon"} {
		for _, l := range []string{"ANR in " + app, "PID: 880", "Reason: executing service " + app + "/.Service"} {
			b.WriteString("12-06 11:00:05.000  1100  1190 E ActivityManager: " + l + "\n")
		}
	}
	es := feed(mustParser(t, "logcat"), []byte(b.String()))
	var got []string
	for _, e := range es {
		got = append(got, e.Record.Text+" "+string(e.Record.Data))
	}
	want := []string{`ANR in com.android.systemui: executing service com.android.systemui/.Service {"process":"com.android.systemui","pid":"880"}`,
		`ANR in com.example.dungeon: executing service com.example.dungeon/.Service {"process":"com.example.dungeon","pid":"880"}`}
	if !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
}

// TestLogcat_OtherAppsCrash: in a device's log, other apps crash while the
// game plays (a Java crash of Play services, a native one of the system
// UI): errors, not the game's crash; its run goes on. The same crashes
// before the game is known are fatal, as any crash of an unknown app.
func TestLogcat_OtherAppsCrash(t *testing.T) {
	others := `12-06 14:00:03.000  3000  3000 E AndroidRuntime: FATAL EXCEPTION: main
12-06 14:00:03.000  3000  3000 E AndroidRuntime: Process: com.google.android.gms, PID: 3000
12-06 14:00:03.000  3000  3000 E AndroidRuntime: java.lang.IllegalStateException: no account
12-06 14:00:03.000  3000  3000 E AndroidRuntime: 	at com.google.android.gms.Sync.run(Sync.java:10)
12-06 14:00:04.000   880   900 F libc    : Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 900 (RenderThread), pid 880 (ndroid.systemui)
12-06 14:00:04.100  4600  4600 F DEBUG   : pid: 880, tid: 900, name: RenderThread  >>> com.android.systemui <<<
12-06 14:00:04.100  4600  4600 F DEBUG   : signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0
`
	game := `12-06 14:00:00.000  1100  1180 I ActivityManager: Start proc 5120:com.example.dungeon/u0a123 for top-activity
12-06 14:00:01.000  5120  5150 I godot   : Loading level 1
`
	for name, c := range map[string]struct {
		log   string
		level oplog.Level
	}{
		"known":   {game + others + "12-06 14:00:05.000  5120  5150 I godot   : Level 1 ready\n", oplog.LevelError},
		"unknown": {others, oplog.LevelFatal},
	} {
		t.Run(name, func(t *testing.T) {
			l := mustLog(t)
			mustImport(t, l, []byte(c.log), ImportOptions{Parser: "logcat"})
			var crashes []string
			for _, r := range all(t, l) {
				if strings.HasPrefix(r.Text, "java.lang.") || strings.HasPrefix(r.Text, "Fatal signal") || strings.HasPrefix(r.Text, "signal 11") {
					crashes = append(crashes, r.Level.String()+" "+r.Text[:20])
					if r.Level != c.level {
						t.Errorf("%s %q, want %s", r.Level, r.Text, c.level)
					}
				}
			}
			if len(crashes) != 2 {
				t.Errorf("crash records %q, want the two", crashes)
			}
			runs, err := l.Runs(t.Context(), testSource)
			if err != nil {
				t.Fatal(err)
			}
			if crashed := runs[len(runs)-1].Outcome == oplog.OutcomeCrashed; crashed != (c.level == oplog.LevelFatal) {
				t.Errorf("the run %s", runs[len(runs)-1].Outcome)
			}
		})
	}
}

// readLogcatEveryWay records log, a device's log, every way a user does:
// followed as adb writes it ("followed"), imported ("imported"), printed
// by a program under mcplogd run with the logcat parser named ("run"),
// and, but on Windows, by an adb of ours with the parser detected
// ("adb"). It returns the sources, in that order.
func readLogcatEveryWay(t *testing.T, l *oplog.Log, log string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "logcat.txt")
	appendFile(t, path, "")
	f := mustStart(t, l, Options{Name: "followed", Path: path, Parser: "logcat", Poll: 10 * time.Millisecond, Quiet: 50 * time.Millisecond})
	for l := range strings.Lines(log) {
		appendFile(t, path, l)
	}
	logtest.Eventually(t, waitFor, "the follower read the log", func() bool { return f.Status().Offset == int64(len(log)) })
	mustClose(t, f)
	mustImport(t, l, []byte(log), ImportOptions{Source: "imported"})
	printLog := []string{"cat", path}
	if runtime.GOOS == "windows" {
		printLog = []string{"cmd", "/c", "type", path}
	}
	if _, err := RunCommand(t.Context(), l, CommandOptions{Name: "run", Parser: "logcat", Args: printLog}); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		return []string{"followed", "imported", "run"}
	}
	adb := filepath.Join(t.TempDir(), "adb")
	if err := os.WriteFile(adb, []byte("#!/bin/sh\nexec cat '"+path+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := RunCommand(t.Context(), l, CommandOptions{Name: "adb", Args: []string{adb, "logcat"}}); err != nil {
		t.Fatal(err)
	}
	return []string{"followed", "imported", "run", "adb"}
}

// runEnds returns source's runs and how each ended: its outcome, then its
// crash's text ("crashed java.lang.IllegalStateException: …", "exited ").
func runEnds(t *testing.T, l *oplog.Log, source string) ([]oplog.RunInfo, []string) {
	t.Helper()
	runs, err := l.Runs(t.Context(), source)
	if err != nil {
		t.Fatal(err)
	}
	var ends []string
	for _, r := range runs {
		crash, _ := l.Get(t.Context(), r.CrashID)
		ends = append(ends, r.Outcome+" "+crash.Text)
	}
	return runs, ends
}
