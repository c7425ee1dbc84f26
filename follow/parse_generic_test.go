package follow

import (
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_GenericLevels: the level after a leading uptime, after
// bracketed times, and a BOM dropped.
func TestParse_GenericLevels(t *testing.T) {
	f := func(line string, level oplog.Level, name, text string, tm time.Time) {
		t.Helper()
		r, ok := parseOne(t, "generic", line)
		if !ok {
			return
		}
		if r.Level != level || r.Name != name || r.Text != text || !r.Time.Equal(tm) {
			t.Errorf("%q:\n got %s name=%q text=%q time=%v\nwant %s name=%q text=%q time=%v",
				line, r.Level, r.Name, r.Text, r.Time, level, name, text, tm)
		}
	}
	utc := func(h, m, s, ms int) time.Time { return time.Date(2026, 3, 1, h, m, s, ms*1e6, time.UTC) }
	f("4044.612 Error MainLoop.cpp:1429: Exception at tick 1", oplog.LevelError, "", "MainLoop.cpp:1429: Exception at tick 1", time.Time{})
	f("  110.207 Info ServerMultiplayerManager.cpp:85: MultiplayerManager failed", oplog.LevelInfo, "",
		"ServerMultiplayerManager.cpp:85: MultiplayerManager failed", time.Time{})
	f("   1.234 Warning ModManager.cpp:10: deprecated", oplog.LevelWarn, "", "ModManager.cpp:10: deprecated", time.Time{})
	f("  111.441 Goodbye", oplog.LevelInfo, "", "Goodbye", time.Time{})
	f("[12:34:56] [ERROR] socket closed", oplog.LevelError, "", "socket closed", utc(12, 34, 56, 0))
	f("[2026-03-01 12:34:56.789] WARN slow frame", oplog.LevelWarn, "", "slow frame", utc(12, 34, 56, 789))
	f("[2026-03-01 12:34:56] [Physics] ERROR no contacts", oplog.LevelError, "Physics", "no contacts", utc(12, 34, 56, 0))
	f("\ufeffERROR: first line of a file with a BOM", oplog.LevelError, "", "first line of a file with a BOM", time.Time{})
	f("\ufeffplain first line", oplog.LevelInfo, "", "plain first line", time.Time{})
}

// TestParse_GenericUptime: the lines of an uptime-stamped log (Factorio's)
// are dated from its first line, and an entry takes every line up to the
// next uptime: its message and Lua traceback, unindented.
func TestParse_GenericUptime(t *testing.T) {
	es := parse(t, "generic", "   0.000 2026-03-01 12:00:00; Factorio 2.0.60 (build 83512, linux64, headless)\n"+
		"  110.207 Error MainLoop.cpp:1488: Exception at tick 5880: The mod BotBridge (0.0.1) caused a non-recoverable error.\n"+
		"Error while running event BotBridge::on_nth_tick(60)\nEntity is not mining-drill.\nstack traceback:\n"+
		"\t[C]: in function '__index'\n\t__BotBridge__/control.lua:1326: in function 'sample_bots'\n"+
		"  111.441 Goodbye\n")
	if len(es) != 3 {
		t.Fatalf("%d entries, want 3: %+v", len(es), es)
	}
	r := es[1].Record
	want := time.Date(2026, 3, 1, 12, 1, 50, 207e6, time.UTC)
	if r.Level != oplog.LevelError || !r.Time.Equal(want) || strings.Count(r.Stack, "\n") != 4 || es[2].Record.Text != "Goodbye" {
		t.Errorf("got %s at %v, stack:\n%s\nthen %q", r.Level, r.Time, r.Stack, es[2].Record.Text)
	}
	if _, title, _ := crash.Signature(r.Stack); title != "Entity is not mining-drill. in sample_bots" {
		t.Errorf("title %q", title)
	}
}

// TestParse_GenericLuaNumbered: Garry's Mod's numbered Lua frames are the
// error's stack and frames of its crash.
func TestParse_GenericLuaNumbered(t *testing.T) {
	es := parse(t, "generic", "[ERROR] lua/vgui/dlabel.lua:168: attempt to call method 'KeyDown' (a nil value)\n"+
		"  1. unknown - lua/vgui/dlabel.lua:168\n   2. include - [C]:-1\nnext\n")
	if len(es) != 2 || es[0].Record.Level != oplog.LevelError || es[0].Record.Stack != "  1. unknown - lua/vgui/dlabel.lua:168\n   2. include - [C]:-1" {
		t.Fatalf("%+v", es)
	}
	tr := crash.Parse(es[0].Record.Stack)
	if strings.Join(tr.Frames, "|") != "lua/vgui/dlabel.lua: in unknown|[C]: in include" {
		t.Errorf("frames %q", tr.Frames)
	}
}

// TestParse_GenericRenpy: Ren'Py's traceback.txt (BOM, simple and full
// tracebacks, platform lines) is one error record: the exception as text,
// the file as stack, no BOM; its crash is named by the exception and the
// innermost frame, and the source lines under frames are no frames.
func TestParse_GenericRenpy(t *testing.T) {
	var sigs, labels []string
	for _, tc := range []struct{ sample, text, title string }{
		{"generic/renpy_traceback_bom.txt", "Exception: Sayer '%(player_name)' is not defined.", "Exception in eval_who"},
		{"generic/renpy_katawa.txt", "Exception: The say screen (or show_function) must return a Text object.", "Exception in display_say"},
		{"generic/renpy_nameerror.txt", "NameError: name 'tempo' is not defined", "NameError in <module>"},
	} {
		for _, parser := range []string{"generic", "auto"} {
			data := readSample(t, tc.sample)
			es := feed(mustParser(t, parser), data)
			checkAll(t, es, int64(len(data)))
			if len(es) != 1 {
				t.Fatalf("%s (%s): %d records, want 1", tc.sample, parser, len(es))
			}
			r := es[0].Record
			if r.Level != oplog.LevelError || r.Text != tc.text || !strings.HasPrefix(r.Stack, renpyHeader+"\nWhile running game code:\n") ||
				strings.Contains(r.Stack, "\ufeff") || !strings.Contains(r.Stack, "\nFull traceback:\n") {
				t.Errorf("%s (%s): %s %q stack:\n%s", tc.sample, parser, r.Level, r.Text, r.Stack)
			}
			sig, title, frames := crash.Signature(r.Stack)
			if title != tc.title || strings.Contains(strings.Join(frames, "|"), "say(") {
				t.Errorf("%s: title %q frames %q, want %q", tc.sample, title, frames, tc.title)
			}
			if parser == "generic" {
				sigs, labels = append(sigs, sig), append(labels, tc.sample)
			}
		}
	}
	checkPairs(t, sigs, labels)
}

// TestParse_GenericFactorio: a mod's crash logged twice (by the main loop
// and by the multiplayer manager, in quotes) is two error records of one
// crash, named by the Lua error.
func TestParse_GenericFactorio(t *testing.T) {
	data := readSample(t, "generic/factorio_wdm.log")
	for _, parser := range []string{"generic", "auto"} {
		es := feed(mustParser(t, parser), data)
		checkAll(t, es, int64(len(data)))
		if len(es) != 2 {
			t.Fatalf("%s: %d records, want 2", parser, len(es))
		}
		var sigs []string
		for _, e := range es {
			r := e.Record
			sig, title, _ := crash.Signature(r.Stack)
			if r.Level != oplog.LevelError || strings.Count(r.Stack, "\n") != 6 ||
				title != "attempt to concatenate local '*' (a table value) in refresh_planets_list" {
				t.Errorf("%s: %s %q title %q stack:\n%s", parser, r.Level, r.Text, title, r.Stack)
			}
			sigs = append(sigs, sig)
		}
		checkPairs(t, sigs, []string{"planet_name", "planet_name"})
	}
}
