//go:build !windows

package follow

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestSyslogPrefix: the system log's prefix in the journal's and syslog
// files' forms is cut, the program named, and a logger's own time, level
// and name in the same places are not read as one.
func TestSyslogPrefix(t *testing.T) {
	for _, tc := range []struct{ line, ident, rest string }{
		{"Dec 07 12:40:01 devbox gameserver[4121]: INFO loading world", "gameserver", "INFO loading world"},
		{"Dec  7 12:40:01 devbox gameserver: loading world", "gameserver", "loading world"},
		{"Dec 07 12:40:01.123456 devbox kernel: gameserver[4121]: segfault at 0", "kernel", "gameserver[4121]: segfault at 0"},
		{"2026-12-07T12:40:01+0000 devbox gameserver[4121]: x", "gameserver", "x"},
		{"2026-12-07T12:40:01.123456+00:00 devbox systemd-coredump[48231]: Process", "systemd-coredump", "Process"},
		{"Dec 07 12:40:01 devbox gameserver[4121]:   File \"/srv/game/server.py\", line 12", "gameserver", "  File \"/srv/game/server.py\", line 12"},
		{"Dec 07 12:40:01 devbox gameserver[4121]:", "gameserver", ""},
		{"Dec 07 12:40:01 gameserver[4121]: INFO loading world", "gameserver", "INFO loading world"},
		// A logger's prefix, not the system log's.
		{"2026-12-07 12:40:01 ERROR World: spawn failed", "", ""},
		{"2026-12-07T12:40:01Z ERROR World: spawn failed", "", ""},
		{"Dec 07 12:40:01 ERROR World: spawn failed", "", ""},
		{"Dec 07 12:40:01 devbox game said hello: world", "", ""},
	} {
		n, ident, _ := syslogPrefix(tc.line)
		if ident != tc.ident || n > 0 && tc.line[n:] != tc.rest {
			t.Errorf("%q: prefix %d, program %q; want %q before %q", tc.line, n, ident, tc.ident, tc.rest)
		}
	}
	c := &clock{date: func() time.Time { return time.Date(2027, 1, 2, 10, 0, 0, 0, time.UTC) }}
	if got, ok := c.syslogTime("Dec 31 23:59:59"); !ok || !got.Equal(time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)) {
		t.Errorf("December's line read in January: %v %v, want the year before", got, ok)
	}
	if got, ok := c.syslogTime("Jan  2 09:00:00.250"); !ok || !got.Equal(time.Date(2027, 1, 2, 9, 0, 0, 250e6, time.UTC)) {
		t.Errorf("today's line: %v %v", got, ok)
	}
}

// TestParse_SystemLog: a game server's journal (journalctl's short form:
// its lines, a Python traceback beneath the prefix on every line and one
// in a message of several lines, its further lines indented, systemd's
// lines that say the service failed, rsyslog's lines whose messages' line
// breaks it escaped ("#012"), the kernel's segfault line and
// systemd-coredump's report with its stack), the kernel's log of a core
// dump and coredumpctl's report, imported, followed as they are written
// and printed by a program mcplogd runs: each line named by its program and timed by the prefix, the
// traceback and the core dump one record each, titled by the game's frame.
func TestParse_SystemLog(t *testing.T) {
	type want struct {
		level      oplog.Level
		name, text string // text: the record's text begins with it
		stack      string // the stack has it
	}
	for _, tc := range []struct {
		sample string
		recs   []want
		titles []string
	}{
		{"generic/journal_gameserver.txt", []want{
			{oplog.LevelInfo, "systemd", "Started gameserver.service", ""},
			{oplog.LevelInfo, "gameserver", "loading world", ""},
			{oplog.LevelWarn, "gameserver", "missing texture enemy.png", ""},
			{oplog.LevelInfo, "gameserver", "spawning wave 1", ""},
			{oplog.LevelError, "gameserver", "KeyError: 'boss'", `File "/srv/game/server.py", line 8, in spawn_enemy`},
			{oplog.LevelError, "systemd", "gameserver.service: Main process exited, code=exited, status=1/FAILURE", ""},
			{oplog.LevelError, "systemd", "gameserver.service: Failed with result 'exit-code'.", ""},
			{oplog.LevelInfo, "systemd", "Started gameserver.service", ""},
			{oplog.LevelInfo, "gameserver", "spawn failed", ""},
			{oplog.LevelError, "gameserver", "KeyError: 'troll'", `File "/srv/game/server.py", line 8, in spawn_enemy`},
			{oplog.LevelError, "systemd", "gameserver.service: Main process exited, code=exited, status=1/FAILURE", ""},
			{oplog.LevelError, "kernel", "dungeon[4388]: segfault at 0", ""},
			{oplog.LevelError, "systemd-coredump", "Process 4388 (dungeon) of user 1000 terminated abnormally with signal 11/SEGV", ""},
			{oplog.LevelFatal, "dungeon", "Process 4388 (dungeon) of user 1000 dumped core.", "#2  0x000055d5d5d5d3f0 main (dungeon + 0x13f0)"},
			{oplog.LevelError, "systemd", "dungeon.service: Main process exited, code=dumped, status=11/SEGV", ""},
		}, []string{"Process 4388 (dungeon) of user 1000 dumped core. in World::spawnEnemy (dungeon+0x11a9)",
			`KeyError: 'troll' in File "/srv/game/server.py", line 8, in spawn_enemy`}}, // one crash twice: titled by its newest
		{"generic/messages_gameserver.txt", []want{
			{oplog.LevelInfo, "gameserver", "loading world", ""},
			{oplog.LevelInfo, "gameserver", "loaded map #012 with 3 players, banner colour #0123ab", ""}, // a number, not a line break
			{oplog.LevelInfo, "gameserver", "config error#012  line 4: bad key", ""},                     // one escape alone: kept whole
			{oplog.LevelInfo, "gameserver", "spawn failed", ""},
			{oplog.LevelError, "gameserver", "KeyError: 'boss'", "  File \"/srv/game/server.py\", line 8, in spawn_enemy\n    return ENEMIES[kind]\nKeyError: 'boss'"},
			{oplog.LevelInfo, "gameserver", "shutting down", ""},
		}, []string{`KeyError: 'boss' in File "/srv/game/server.py", line 8, in spawn_enemy`}},
		{"generic/messages_coredump_27503.txt", []want{
			{oplog.LevelFatal, "plasmashell", "Process 27027 (plasmashell) of user 1000 dumped core.", "Stack trace of thread 27696:\n#0  0x00007f4816e2fe73 _ZN7logging10LogMessageD2Ev"},
		}, []string{"Process 27027 (plasmashell) of user 1000 dumped core. in logging::LogMessage::~LogMessage (libQt5WebEngineCore.so.5+0x2a2fe73)"}},
		{"generic/journal_systemd_933.txt", []want{
			{oplog.LevelInfo, "systemd-journal", "Permanent journal (/var/log/journal/) is currently using 120.0M.", "Enforced usage limit is thus 840.9M."},
			{oplog.LevelError, "systemd", "systemd-journald.service: Main process exited, code=dumped, status=6/ABRT", ""},
			{oplog.LevelInfo, "systemd", "systemd-journald.service: Unit entered failed state.", ""},
			{oplog.LevelError, "systemd", "systemd-journald.service: Failed with result 'core-dump'.", ""},
		}, nil},
		{"generic/kmsg_coredump_37325.txt", []want{
			{oplog.LevelFatal, "systemd-journal", "Process 334 (systemd-journal) of user 0 dumped core.", "sd_event_wait (libsystemd-shared-257.5-2.so + 0x2a18a0)"},
		}, []string{"Process 334 (systemd-journal) of user 0 dumped core. in sd_event_wait (libsystemd-shared-257.5-2.so+0x2a18a0)"}},
		{"generic/coredumpctl_payday2.txt", []want{
			{oplog.LevelInfo, "", "$ coredumpctl gdb payday2_release", ""},
			{oplog.LevelFatal, "payday2_release", "Process 5529 (payday2_release) of user 1000 dumped core.", "Signal: 11 (SEGV)"},
			{oplog.LevelInfo, "", "GNU gdb (GDB) Fedora 8.0-13.fc26", ""},
			{oplog.LevelInfo, "", "Copyright (C) 2017", ""},
		}, []string{"Process 5529 (payday2_release) of user 1000 dumped core."}},
	} {
		data := readSample(t, tc.sample)
		l := mustLog(t)
		l.SetCrashes(crash.New(l, nil))
		mustImport(t, l, data, ImportOptions{Source: "journal"})
		imported := slices.DeleteFunc(ofSource(t, l, "journal"), func(r oplog.Record) bool { return r.Kind != oplog.KindLine })
		followed := slices.DeleteFunc(followInChunks(t, data, rand.New(rand.NewPCG(7, uint64(len(data))))),
			func(r oplog.Record) bool { return r.Kind != oplog.KindLine })
		runGame(t, l, "run", CommandOptions{Args: []string{"cat", filepath.Join("testdata", tc.sample)}})
		run := slices.DeleteFunc(ofSource(t, l, "run"), func(r oplog.Record) bool { return r.Kind != oplog.KindLine })
		for way, recs := range map[string][]oplog.Record{"imported": imported, "followed": followed, "run": run} {
			ok := len(recs) == len(tc.recs)
			for i := 0; ok && i < len(recs); i++ {
				r, w := recs[i], tc.recs[i]
				ok = r.Level == w.level && r.Name == w.name && strings.HasPrefix(r.Text, w.text) && strings.Contains(r.Stack, w.stack)
			}
			if !ok {
				t.Errorf("%s %s: %d records, want %d:", tc.sample, way, len(recs), len(tc.recs))
				for _, r := range recs {
					t.Errorf("  %s %s %q stack %.60q", r.Level, r.Name, r.Text, r.Stack)
				}
			}
		}
		if len(imported) > 0 && tc.sample == "generic/journal_gameserver.txt" {
			if want := time.Date(imported[1].Time.Year(), 12, 7, 12, 40, 0, 0, time.Local); !imported[1].Time.Equal(want) {
				t.Errorf("%s: the line's time %v, want the prefix's %v", tc.sample, imported[1].Time, want)
			}
		}
		page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: "journal", Classes: oplog.CrashClasses})
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, g := range page.Groups {
			titles = append(titles, g.Title)
		}
		slices.Sort(titles)
		if want := slices.Sorted(slices.Values(tc.titles)); !slices.Equal(titles, want) {
			t.Errorf("%s: crash titles %q, want %q", tc.sample, titles, want)
		}
	}
}

// TestMarkers_SystemdRuns: a service's journal, imported and followed:
// systemd's "Started" starts a run of the first service it names, the
// main process's end ends it (a failing status just after a traceback:
// crashed of that traceback; SIGSEGV with its core dumped: fatal), and
// "Deactivated successfully." ends one cleanly. Another service's lines,
// systemd's own (systemd-coredump@…) and a user's manager (user@…) mark
// nothing.
func TestMarkers_SystemdRuns(t *testing.T) {
	journal := "Dec 07 12:00:00 devbox systemd[1]: Started systemd-coredump@3-48230-0.service - Process Core Dump (PID 48230/UID 0).\n" +
		"Dec 07 12:00:00 devbox systemd[1]: Started user@1000.service - User Manager for UID 1000.\n" +
		"Dec 07 12:00:01 devbox systemd[1]: Started dungeon.service - Dungeon.\n" +
		"Dec 07 12:00:02 devbox dungeon[4121]: INFO loading world\n" +
		"Dec 07 12:00:03 devbox dungeon[4121]: Traceback (most recent call last):\n" +
		"Dec 07 12:00:03 devbox dungeon[4121]:   File \"/srv/dungeon/main.py\", line 8, in spawn\n" +
		"Dec 07 12:00:03 devbox dungeon[4121]: KeyError: 'boss'\n" +
		"Dec 07 12:00:03 devbox systemd[1]: dungeon.service: Main process exited, code=exited, status=1/FAILURE\n" +
		"Dec 07 12:00:04 devbox systemd[1]: Started chat.service - Chat.\n" +
		"Dec 07 12:00:05 devbox systemd[1]: chat.service: Main process exited, code=exited, status=1/FAILURE\n" +
		"Dec 07 12:00:08 devbox systemd[1]: Started dungeon.service - Dungeon.\n" +
		"Dec 07 12:00:09 devbox dungeon[4170]: INFO loading world\n" +
		"Dec 07 12:00:10 devbox systemd[1]: dungeon.service: Main process exited, code=dumped, status=11/SEGV\n" +
		"Dec 07 12:00:10 devbox systemd[1]: dungeon.service: Failed with result 'core-dump'.\n" +
		"Dec 07 12:00:20 devbox systemd[1]: Started dungeon.service - Dungeon.\n" +
		"Dec 07 12:00:21 devbox dungeon[4201]: INFO loading world\n" +
		"Dec 07 12:00:30 devbox systemd[1]: Stopping dungeon.service - Dungeon...\n" +
		"Dec 07 12:00:30 devbox systemd[1]: dungeon.service: Deactivated successfully.\n" +
		"Dec 07 12:00:30 devbox systemd[1]: Stopped dungeon.service - Dungeon.\n"
	l := mustLog(t)
	mustImport(t, l, []byte(journal), ImportOptions{Source: "journal"})
	recs := ofSource(t, l, "journal")
	followed := followInChunks(t, []byte(journal), rand.New(rand.NewPCG(9, 9)))
	marks, followedMarks := runMarks(recs), runMarks(followed)
	want := []string{
		`info run started: systemd started dungeon.service {"reason":"service"}`,
		`error dungeon.service exited with status 1 {"exitCode":1}`,
		`info run started: systemd started dungeon.service {"reason":"service"}`,
		`fatal dungeon.service killed by signal 11 (SIGSEGV, core dumped) {"signal":"SIGSEGV","signalNumber":11,"coreDumped":true}`,
		`info run started: systemd started dungeon.service {"reason":"service"}`,
		`info dungeon.service exited {"reason":"service"}`,
	}
	for way, got := range map[string][]string{"imported": marks, "followed": followedMarks} {
		if !slices.Equal(got, want) {
			t.Errorf("%s, the markers:\n  %s\nwant:\n  %s", way, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	runs, err := l.Runs(t.Context(), "journal")
	if err != nil {
		t.Fatal(err)
	}
	crash, _ := find(recs, func(r *oplog.Record) bool { return r.Text == "KeyError: 'boss'" })
	var got []string
	for _, r := range runs {
		got = append(got, r.Outcome)
	}
	// The lines before the service's first start are a run of their own.
	if !slices.Equal(got, []string{oplog.OutcomeEnded, oplog.OutcomeCrashed, oplog.OutcomeCrashed, oplog.OutcomeExited}) || runs[1].CrashID != crash.ID {
		t.Errorf("runs %+v; want ended, crashed of record %d, crashed, exited", runs, crash.ID)
	}
}

// runMarks are the run and exit markers of recs as "level text data",
// without where a follower read them and the run a file's first line
// starts.
func runMarks(recs []oplog.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Kind != oplog.KindMarker || r.Name != oplog.MarkerRun && r.Name != oplog.MarkerExit || strings.Contains(r.Text, "log file") {
			continue
		}
		data, _, cut := strings.Cut(string(r.Data), `,"file":`)
		if cut {
			data += "}"
		}
		out = append(out, r.Level.String()+" "+r.Text+" "+data)
	}
	return out
}
