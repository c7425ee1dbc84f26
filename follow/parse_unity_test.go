package follow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestParseUnity_Lines: the multi-line messages, native errors and crash
// forms of Unity's logs, each case hand-written after a real one.
func TestParseUnity_Lines(t *testing.T) {
	type rec struct {
		level oplog.Level
		text  string
		lines int // stack lines
	}
	f := func(name, input string, want ...rec) {
		t.Helper()
		es := parse(t, "unity", input)
		checkAll(t, es, int64(len(input)))
		if len(es) != len(want) {
			for i, e := range es {
				t.Logf("%d: %s %q %q", i, e.Record.Level, e.Record.Text, e.Record.Stack)
			}
			t.Fatalf("%s: %d records, want %d", name, len(es), len(want))
		}
		for i, w := range want {
			r := es[i].Record
			n := 0
			if r.Stack != "" {
				n = strings.Count(r.Stack, "\n") + 1
			}
			if r.Level != w.level || r.Text != w.text || n != w.lines {
				t.Errorf("%s: record %d: %s %q with %d stack lines; want %s %q with %d\nstack: %q", name, i, r.Level, r.Text, n, w.level, w.text, w.lines, r.Stack)
			}
		}
	}
	f("TwoLineWarning", "Done\n\nLevel 3 has no exit\nAdd one in the editor\nUnityEngine.Debug:LogWarning (object)\nLevel:Load () (at Assets/Level.cs:9)\n\n(Filename: Assets/Level.cs Line: 9)\n\n",
		rec{oplog.LevelInfo, "Done", 0}, rec{oplog.LevelWarn, "Level 3 has no exit\nAdd one in the editor", 2})
	f("EngineLinesStayApart", "Reloading assemblies\nBegin MonoManager ReloadAssembly\nMono: successfully reloaded assembly\nPlayer spawned\nUnityEngine.Debug:Log (object)\n\n(Filename: Assets/P.cs Line: 1)\n\n",
		rec{oplog.LevelInfo, "Reloading assemblies", 0}, rec{oplog.LevelInfo, "Begin MonoManager ReloadAssembly", 0},
		rec{oplog.LevelInfo, "Mono: successfully reloaded assembly", 0}, rec{oplog.LevelInfo, "Player spawned", 1})
	f("ParameterName", "ArgumentOutOfRangeException: Index was out of range.\nParameter name: index\n  at Inventory.Get (int i) [0x00001] in <abc>:0 \n \n(Filename: <abc> Line: 0)\n\n",
		rec{oplog.LevelError, "ArgumentOutOfRangeException: Index was out of range.\nParameter name: index", 1})
	f("ExtraData", "System.Exception: load failed\n  at Loader.Load () [0x00001] in <abc>:0 \n****** Extra Data ******\n[file] = save.json\nUnityEngine.Debug:LogError (object)\nLoader:Report () (at Assets/Loader.cs:40)\n\n(Filename: Assets/Loader.cs Line: 40)\n\nnext\n",
		rec{oplog.LevelError, "System.Exception: load failed", 5}, rec{oplog.LevelInfo, "next", 0})
	f("PrefixedException", "Exception ticking Vex: System.NullReferenceException: Object reference not set to an instance of an object\nat Verse.AI.Job.ToString () <0x00012>\nat Verse.AI.Pawn_JobTracker.TryFindAndStartJob () <0x0018e>\n\nVerse.Log:Error(String)\n",
		rec{oplog.LevelError, "Exception ticking Vex: System.NullReferenceException: Object reference not set to an instance of an object", 2},
		rec{oplog.LevelInfo, "Verse.Log:Error(String)", 0})
	f("NativeErrors", "Invalid OffsetPtr access! Pointer is NULL\nd3d11: failed to create 2D texture id=39210 width=8192 height=16384\n \n(Filename:  Line: 587)\n\n",
		rec{oplog.LevelError, "Invalid OffsetPtr access! Pointer is NULL", 0}, rec{oplog.LevelError, "d3d11: failed to create 2D texture id=39210 width=8192 height=16384", 0})
	f("PathLines", "UnloadTime: 1.0 ms\nRimWorld 1.4.3704 rev896\nTried loading mod twice: a.b.\nC:\\mods\\1\nC:\\mods\\2 \n(Filename: C:\\buildslave\\Debug.bindings.h Line: 39)\n\n",
		rec{oplog.LevelInfo, "UnloadTime: 1.0 ms", 0}, rec{oplog.LevelInfo, "RimWorld 1.4.3704 rev896", 0}, rec{oplog.LevelInfo, "Tried loading mod twice: a.b.\nC:\\mods\\1\nC:\\mods\\2", 0})
	f("DoubleCR", "<RI> Initializing input.\r\n<RI> Input initialized.\r\n", rec{oplog.LevelInfo, "<RI> Initializing input.", 0}, rec{oplog.LevelInfo, "<RI> Input initialized.", 0})
	f("PendingThenBlank", "NullReferenceException: x\n  at A.B () [0x0] in <a>:0\n\nLoader exceptions:\n\nnext\n",
		rec{oplog.LevelError, "NullReferenceException: x", 1}, rec{oplog.LevelInfo, "Loader exceptions:", 0}, rec{oplog.LevelInfo, "next", 0})
	f("ReceivedSignal", "Received signal SIGSEGV\nStack trace:\n0x000001a292aa11c7 (Mono JIT Code) (wrapper managed-to-native) UnityEngine.RectOffset:Remove_Injected (UnityEngine.RectOffset)\nnext\n",
		rec{oplog.LevelFatal, "Received signal SIGSEGV", 2}, rec{oplog.LevelInfo, "next", 0})
}

// TestParseUnity_Fixtures: real Editor.log and Player.log excerpts
// (testdata/unity/README.md), read whole.
func TestParseUnity_Fixtures(t *testing.T) {
	f := func(file string, n int, levels map[oplog.Level]int, check func(t *testing.T, es []Entry)) {
		t.Run(file, func(t *testing.T) {
			data := readSample(t, filepath.Join("unity", file))
			es := feed(mustParser(t, "unity"), data)
			checkAll(t, es, int64(len(data)))
			if len(es) != n {
				for i, e := range es {
					t.Logf("%d: %s %q", i, e.Record.Level, e.Record.Text)
				}
				t.Fatalf("%d records, want %d", len(es), n)
			}
			checkLevels(t, es, levels)
			check(t, es)
		})
	}
	f("editor-5.5-import-crash.log", 10, map[oplog.Level]int{oplog.LevelInfo: 8, oplog.LevelError: 1, oplog.LevelFatal: 1}, func(t *testing.T, es []Entry) {
		checkEntry(t, 4, es[4], want{level: oplog.LevelInfo, text: "Setting up animation Run_script_on_this (UnityEngine.GameObject)...",
			data: `{"srcFile":"Assets/ImportAnimation.cs","srcLine":11}`})
		off := es[8].Record
		if off.Text != "Invalid OffsetPtr access! Pointer is NULL" || !strings.HasSuffix(off.Stack, "offsetptr.h line 51]") {
			t.Errorf("OffsetPtr error: %q %q", off.Text, off.Stack)
		}
		// The crash names the error Unity printed right before it.
		checkCrash(t, es[9].Record, "Crash!!! (after Invalid OffsetPtr access! Pointer is NULL) in skeleton.CreateSkeletonPose", "0x00007FFF9C455E91 (ntdll) RtlUserThreadStart")
	})
	f("player-2019.4-mod-errors.log", 20, map[oplog.Level]int{oplog.LevelInfo: 19, oplog.LevelError: 1}, func(t *testing.T, es []Entry) {
		if r := es[14].Record; !strings.HasSuffix(r.Text, "\nC:\\Program Files (x86)\\Steam\\steamapps\\workshop\\content\\294100\\1316188771") {
			t.Errorf("a message of three lines: %q", r.Text)
		}
		if r := es[9].Record; r.Text != "<RI> Input initialized." {
			t.Errorf("a line ending in \\r\\r\\n: %q", r.Text)
		}
		r := es[18].Record
		if !strings.HasPrefix(r.Stack, "  at (wrapper managed-to-native)") || !strings.Contains(r.Stack, "\nLoader exceptions:\n   => System.TypeLoadException") {
			t.Errorf("the exception's report: %q", r.Stack)
		}
	})
	for _, file := range []string{"player-2019.4-oom-crash.log", "player-2019.4-oom-crash-2.log"} {
		n := map[string]int{"player-2019.4-oom-crash.log": 11, "player-2019.4-oom-crash-2.log": 13}[file]
		errs := map[string]int{"player-2019.4-oom-crash.log": 2, "player-2019.4-oom-crash-2.log": 5}[file]
		f(file, n, map[oplog.Level]int{oplog.LevelInfo: n - errs - 1, oplog.LevelError: errs, oplog.LevelFatal: 1}, func(t *testing.T, es []Entry) {
			oom := es[n-4].Record
			if oom.Text != "Could not allocate memory: System out of memory!" || !strings.Contains(oom.Stack, "\nMemory overview\n[ ALLOC_TEMP_THREAD ]") || !strings.Contains(oom.Stack, "\n[ ALLOC_TYPETREE ] used: ") {
				t.Errorf("allocator's report: %q %q", oom.Text, oom.Stack)
			}
			checkCrash(t, es[n-2].Record, "Crash!!! (after Could not allocate memory: System out of memory!) in Texture2D.Compress", "(ntdll) RtlUserThreadStart")
		})
	}
	f("rimworld-exceptions.log", 6, map[oplog.Level]int{oplog.LevelError: 6}, func(t *testing.T, es []Entry) {
		for i, lines := range []int{6, 6, 10, 3, 3, 19} {
			if n := strings.Count(es[i].Record.Stack, "\n") + 1; n != lines {
				t.Errorf("record %d: %d stack lines, want %d", i, n, lines)
			}
		}
	})
	f("oxide-argument-out-of-range.log", 1, map[oplog.Level]int{oplog.LevelError: 1}, func(t *testing.T, es []Entry) {
		if r := es[0].Record; r.Text != "ArgumentOutOfRangeException: Argument is out of range.\nParameter name: index" || strings.Count(r.Stack, "\n") != 12 {
			t.Errorf("got %q %q", r.Text, r.Stack)
		}
	})
	f("linux-fatal-signal.log", 3, map[oplog.Level]int{oplog.LevelInfo: 2, oplog.LevelFatal: 1}, func(t *testing.T, es []Entry) {})
	f("editor-sigsegv.log", 1, map[oplog.Level]int{oplog.LevelFatal: 1}, func(t *testing.T, es []Entry) {})
}

// checkCrash checks a native crash record: fatal, its dump whole up to last
// frame and its banner, and its crash title from the frames.
func checkCrash(t *testing.T, r oplog.Record, title, lastFrame string) {
	t.Helper()
	if r.Level != oplog.LevelFatal || !strings.HasPrefix(r.Text, "Crash!!!") || !strings.HasSuffix(r.Stack, lastFrame+"\n========== END OF STACKTRACE ===========") {
		t.Errorf("crash record: %s %q, stack ends %q", r.Level, r.Text, r.Stack[max(0, len(r.Stack)-120):])
	}
	if got := crash.Parse(r.Stack).WithHead(r.Text).Title(); got != title {
		t.Errorf("crash title %q, want %q", got, title)
	}
}

// TestParseUnity_CrashGroups: the crashes of the real fixtures, grouped by
// signature, against the groups they belong to. Every pair of crashes the
// table puts together must share a signature (recall) and every pair it
// keeps apart must not (precision).
func TestParseUnity_CrashGroups(t *testing.T) {
	// group names the crash each error or fatal record with a stack is, in
	// file order; the same name is the same crash.
	groups := map[string][]string{
		"editor-5.5-import-crash.log":     {"offsetptr", "mecanim"},
		"player-2019.4-mod-errors.log":    {"typeload"},
		"player-2019.4-oom-crash.log":     {"oom", "oom", "atlas"},
		"player-2019.4-oom-crash-2.log":   {"typeload", "oom", "oom", "atlas"},
		"rimworld-exceptions.log":         {"quest", "makejob", "binge", "flee", "season", "prisonlabor"},
		"oxide-argument-out-of-range.log": {"getitem"},
		"linux-fatal-signal.log":          {"funlockfile"},
		"editor-sigsegv.log":              {"rectoffset"},
	}
	type crashRec struct{ group, sig, where string }
	var all []crashRec
	for file, names := range groups {
		data := readSample(t, filepath.Join("unity", file))
		i := 0
		for _, e := range feed(mustParser(t, "unity"), data) {
			r := e.Record
			if r.Level < oplog.LevelError || r.Stack == "" {
				continue
			}
			if i >= len(names) {
				t.Fatalf("%s: more crashes than %d", file, len(names))
			}
			all = append(all, crashRec{names[i], crash.Parse(r.Stack).WithHead(r.Text).Signature(), file + ": " + r.Text})
			i++
		}
		if i != len(names) {
			t.Fatalf("%s: %d crashes, want %d", file, i, len(names))
		}
	}
	stacks, _ := filepath.Glob(filepath.Join("testdata", "unity", "stacks", "*.txt"))
	for _, s := range stacks {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		sig, _, _ := crash.Signature(string(b))
		all = append(all, crashRec{filepath.Base(s), sig, s})
	}
	var together, apart, merged, split int
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			a, b := all[i], all[j]
			switch {
			case a.group == b.group:
				together++
				if a.sig == b.sig {
					merged++
				} else {
					t.Errorf("same crash apart: %s / %s", a.where, b.where)
				}
			default:
				apart++
				if a.sig != b.sig {
					split++
				} else {
					t.Errorf("different crashes merged: %s / %s", a.where, b.where)
				}
			}
		}
	}
	t.Logf("%d crashes: recall %d/%d pairs together, precision %d/%d pairs apart", len(all), merged, together, split, apart)
}
