package follow

import (
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestParseGodot_CrashRuns: real Godot 4 crash dumps (4.5 to 4.7, Linux
// and Windows) between runs: each dump is one fatal record that ends at
// its "-- END OF C++ BACKTRACE --" and "====" (with the GDScript backtrace
// after it), or at the next run's banner when the dump was cut short.
func TestParseGodot_CrashRuns(t *testing.T) {
	data, es := parseSample(t, "godot/crash_runs.log", "godot", 12,
		map[oplog.Level]int{oplog.LevelInfo: 5, oplog.LevelError: 3, oplog.LevelFatal: 4})
	rule := "================================================================"
	checkEntries(t, es, map[int]want{
		0: {level: oplog.LevelInfo, text: "Godot Engine v4.7.1.stable.official.a13da4feb - https://godotengine.org"},
		1: {level: oplog.LevelFatal, name: "crash", text: "Program crashed with signal 11",
			data: `{"engineVersion":"Godot Engine v4.7.1.stable.official (a13da4feb8d8aefc283c3763d33a2f170a18d541)"}`,
			end:  lineEnd(t, data, "-- END OF C++ BACKTRACE --", 1)},
		2: {level: oplog.LevelInfo, text: "Godot Engine v4.4.1.rc.custom_build.abef5e0d2 (2025-03-20 16:29:05 UTC) - https://godotengine.org"},
		4: {level: oplog.LevelError, text: `Condition "p_name.is_empty()" is true.`, stack: ptr("at set_name (scene/main/node.cpp:1432)")},
		5: {level: oplog.LevelError, text: "This is the end.",
			stack: ptr("at crash (./core/core_bind.cpp:344)\nGDScript backtrace (most recent call first):\nat _ready (res://main.gd:5)")},
		6: {level: oplog.LevelFatal, name: "crash", text: "Program crashed with signal 4",
			end: lineEnd(t, data, "[5] MethodBindT<String const&>::validated_call", 0)},
		7: {level: oplog.LevelInfo, text: "Godot Engine v4.4.1.rc.custom_build.abef5e0d2 (2025-03-20 16:29:05 UTC) - https://godotengine.org"},
		9: {level: oplog.LevelFatal, name: "crash", text: "Program crashed with signal 4",
			end: lineEnd(t, data, "-- END OF GDSCRIPT BACKTRACE --", 1)},
		10: {level: oplog.LevelError, text: `FATAL: Condition "!is_main_thread_assigned.clear_if_set()" is true.`,
			stack: ptr(`at Thread::release_main_thread (core\os\thread.cpp:101)`)},
		11: {level: oplog.LevelFatal, name: "crash", text: "Program crashed", end: int64(len(data))},
	})
	if s := es[1].Record.Stack; !strings.HasPrefix(s, "at libc.so.6+45330\nat main+44f1c81\n") || strings.Count(s, "\n") != 14 ||
		!strings.HasSuffix(s, "\nat main+8712a\n-- END OF C++ BACKTRACE --") || strings.Contains(s, rule) {
		t.Errorf("4.7 dump stack:\n%s", s)
	}
	if s := es[6].Record.Stack; !strings.Contains(s, "\nat CoreBind::OS::crash (/home/akien/Godot/godot/core/core_bind.cpp:344)\n") {
		t.Errorf("4.5 dump stack:\n%s", s)
	}
	if s := es[9].Record.Stack; !strings.Contains(s, "\nat godot+4da3358 (/path/to/godot/core/core_bind.cpp:336)\n") ||
		!strings.HasSuffix(s, "\nGDScript backtrace (most recent call first):\nat _ready (res://test.gd:5)\n-- END OF GDSCRIPT BACKTRACE --") {
		t.Errorf("dump with a GDScript backtrace:\n%s", s)
	}
	_, title, _ := crash.Signature(es[11].Record.Stack)
	if !strings.Contains(title, "Thread.release_main_thread") {
		t.Errorf("Windows dump title %q", title)
	}
}

// TestParseGodot_DumpEndsLive: followed live, the dump is complete as soon
// as the next run's banner arrives: the banner and the errors after it are
// records of their own, without waiting for the file to be quiet.
func TestParseGodot_DumpEndsLive(t *testing.T) {
	data := readSample(t, "godot/crash_runs.log")
	p := mustParser(t, "godot")
	var got []Entry
	var off int64
	for line := range strings.Lines(string(data)) {
		off += int64(len(line))
		got = append(got, p.Line(strings.TrimSuffix(line, "\n"), off)...)
		if strings.HasPrefix(line, "ERROR: Condition \"p_name") {
			break
		}
	}
	if len(got) != 4 || got[1].Record.Level != oplog.LevelFatal || got[2].Record.Text != "Godot Engine v4.4.1.rc.custom_build.abef5e0d2 (2025-03-20 16:29:05 UTC) - https://godotengine.org" {
		for i, e := range got {
			t.Logf("%d: %s %q", i, e.Record.Level, e.Record.Text)
		}
		t.Fatalf("%d records before the quiet second, want banner, dump, banner, renderer line", len(got))
	}
	if strings.Contains(got[1].Record.Stack, "Godot Engine") {
		t.Errorf("the dump took the next run's lines:\n%s", got[1].Record.Stack)
	}
	// Every chunking gives the records of a one-shot parse.
	whole := feed(mustParser(t, "godot"), data)
	for _, size := range []int{1, 7, 64, 500} {
		p := mustParser(t, "godot")
		var es []Entry
		var off int64
		lines := strings.SplitAfter(string(data), "\n")
		for i := 0; i < len(lines); i += size {
			for _, l := range lines[i:min(i+size, len(lines))] {
				if l == "" {
					continue
				}
				off += int64(len(l))
				es = append(es, p.Line(strings.TrimSuffix(l, "\n"), off)...)
			}
			if i%3 == 0 && size > 1 { // the file was quiet between some chunks
				es = append(es, p.Flush()...)
			}
		}
		es = append(es, p.Flush()...)
		if size == 1 && len(es) != len(whole) {
			t.Errorf("chunks of %d lines: %d records, want %d", size, len(es), len(whole))
		}
	}
}

// TestParseGodot_Godot3: Godot 3's "   At: file:line." errors, its crash
// dumps ending at "-- END OF BACKTRACE --" (one after the other), and Mono's
// unhandled exceptions.
func TestParseGodot_Godot3(t *testing.T) {
	_, es := parseSample(t, "godot/godot3.log", "godot", 8,
		map[oplog.Level]int{oplog.LevelError: 5, oplog.LevelFatal: 3})
	checkEntries(t, es, map[int]want{
		0: {level: oplog.LevelError, text: "Testing crash handler.", stack: ptr("at crash (core/bind/core_bind.cpp:1186)")},
		1: {level: oplog.LevelFatal, name: "crash", text: "Program crashed with signal 4"},
		2: {level: oplog.LevelFatal, name: "crash", text: "Program crashed with signal 11", stack: ptr("at __kernel_sigreturn\n-- END OF BACKTRACE --")},
		3: {level: oplog.LevelFatal, name: "crash", text: "Program crashed with signal 11", stack: ptr("at __kernel_sigreturn\n-- END OF BACKTRACE --")},
		4: {level: oplog.LevelError, text: "System.TypeInitializationException: The type initializer for 'Godot.WeakRef' threw an exception.",
			stack: ptr("at debug_send_unhandled_exception_error (modules/mono/mono_gd/gd_mono_utils.cpp:602)")},
		5: {level: oplog.LevelError, text: "Unhandled Exception:",
			stack: ptr("System.NullReferenceException: Object reference not set to an instance of an object.\nat PlayerBase._PhysicsProcess (System.Single dt) [0x00001] in <5b8faf5510df4577ac02e8d379d27c53>:0")},
		6: {level: oplog.LevelError, text: "[ERROR] FATAL UNHANDLED EXCEPTION: System.NullReferenceException: Object reference not set to an instance of an object."},
		7: {level: oplog.LevelError, text: "~List: Condition ' _first != __null ' is true.", stack: ptr("")},
	})
	if s := es[1].Record.Stack; !strings.Contains(s, "\nat _OS::crash (/home/hugo/Documents/Git/godotengine/godot/core/bind/core_bind.cpp:1186)\n") {
		t.Errorf("3.5 dump cut short by the next dump:\n%s", s)
	}
}

// TestParseGodot_CSharp: C# exceptions Godot 4 logs ("ERROR: System.X"
// with "   at" frames and a C# backtrace), the game's own "[ERROR]" lines
// with frames, and the editor Output panel's "ERROR:    at" lines are each
// one error record with the frames as stack.
func TestParseGodot_CSharp(t *testing.T) {
	_, es := parseSample(t, "godot/csharp.log", "godot", 9, map[oplog.Level]int{oplog.LevelError: 9})
	checkEntries(t, es, map[int]want{
		0: {level: oplog.LevelError, text: "[ERROR] [DirectClient] Handshake rejected: ID Collision (100002)"},
		1: {level: oplog.LevelError, text: "System.ArgumentException: An item with the same key has already been added. Key: <Control#1645794564085>"},
		3: {level: oplog.LevelError, text: "1 RID allocations of type 'N26RendererEnvironmentStorage11EnvironmentE' were leaked at exit.", stack: ptr("")},
		8: {level: oplog.LevelError, text: "/root/godot/modules/mono/glue/GodotSharp/GodotSharp/Core/NativeInterop/ExceptionUtils.cs:113 - System.NullReferenceException: Object reference not set to an instance of an object."},
	})
	for i, n := range map[int]int{0: 7, 1: 12, 2: 4, 8: 4} {
		if got := strings.Count(es[i].Record.Stack, "\n") + 1; got != n {
			t.Errorf("entry %d: %d stack lines, want %d:\n%s", i, got, n, es[i].Record.Stack)
		}
	}
	if s := es[1].Record.Stack; !strings.HasSuffix(s, "\nat Godot.NativeInterop.ExceptionUtils.LogException (:0)\nC# backtrace (most recent call first):\n"+
		"at Godot.GD.PushError\nat Godot.NativeInterop.ExceptionUtils.LogException\nat Godot.DelegateUtils.InvokeWithVariantArgs") {
		t.Errorf("C# backtrace:\n%s", s)
	}
	_, title, _ := crash.Signature(es[8].Record.Stack)
	if title != "crash in ObservableTrackerTab.NotifyOnSessionStart" {
		t.Errorf("Output panel exception title %q", title)
	}
}

// TestParseGodot_Variants: hand-written cases of shapes the real files
// above do not hold.
func TestParseGodot_Variants(t *testing.T) {
	f := func(input string, n int, i int, w want) {
		t.Helper()
		es := parse(t, "godot", input)
		if len(es) != n {
			for j, e := range es {
				t.Logf("%d: %s %q %q", j, e.Record.Level, e.Record.Text, e.Record.Stack)
			}
			t.Fatalf("%q: %d records, want %d", input, len(es), n)
		}
		checkEntry(t, i, es[i], w)
	}
	// A hint line between a message and its "at:" keeps the stack.
	f("ERROR: Can't open file.\nMake sure the path is right.\n   at: open (core/io/file_access.cpp:12)\n", 1, 0,
		want{level: oplog.LevelError, text: "Can't open file.\nMake sure the path is right.", stack: ptr("at open (core/io/file_access.cpp:12)")})
	// A print() line after an error without stack stays a record of its own, in order.
	f("ERROR: Leaked.\nScore: 120\nWARNING: x\n", 3, 1, want{level: oplog.LevelInfo, text: "Score: 120", end: int64(len("ERROR: Leaked.\nScore: 120\n"))})
	f("ERROR: Leaked.\ninventory:\n  sword\n", 3, 1, want{level: oplog.LevelInfo, text: "inventory:"})
	// The C# exception printed by the game: one error with its frames.
	f("Error: System.ArgumentException: bad value\n   at Game.Load(String path) in /src/Game.cs:line 4\n"+
		"   --- End of inner exception stack trace ---\nnext\n", 2, 0,
		want{level: oplog.LevelError, text: "Error: System.ArgumentException: bad value",
			stack: ptr("at Game.Load(String path) in /src/Game.cs:line 4\n--- End of inner exception stack trace ---")})
	// Godot 3's file logger writes the message alone ("probe:" is part of
	// it), its console the function first.
	f("**WARNING**: probe: low ammo warning\n   At: res://x.gd:12:_f() - probe: low ammo warning\n", 1, 0,
		want{level: oplog.LevelWarn, text: "probe: low ammo warning", stack: ptr("at _f (res://x.gd:12)"),
			data: `{"srcFile":"res://x.gd","srcLine":12,"function":"_f"}`})
	f("**ERROR**: save: slot missing\n   At: res://s.gd:3:_save() - save: slot missing\n", 1, 0,
		want{level: oplog.LevelError, text: "save: slot missing", stack: ptr("at _save (res://s.gd:3)")})
	f("**SCRIPT ERROR**: x: bad\n   At: res://s.gd:4:_x() - x: bad\n", 1, 0,
		want{level: oplog.LevelError, name: "script", text: "x: bad", stack: ptr("at _x (res://s.gd:4)")})
	f("WARNING: probe: low ammo\n   At: res://x.gd:12.\n", 1, 0,
		want{level: oplog.LevelWarn, text: "low ammo", stack: ptr("at probe (res://x.gd:12)")})
	f("Saving game\n   at slot 3\n", 2, 0, want{level: oplog.LevelInfo, text: "Saving game", stack: ptr("")})
	// A dump cut short by an error label ends there.
	f("handle_crash: Program crashed with signal 11\n[1] Node::get_child(int, bool) const (??:0)\nERROR: next\n", 2, 0,
		want{level: oplog.LevelFatal, name: "crash", text: "Program crashed with signal 11", stack: ptr("at Node::get_child")})
	// macOS frames.
	f("handle_crash: Program crashed with signal 11\n[1] invoke_previous_action(sigaction*, int, __siginfo*, void*, bool)\n"+
		"[2] 2   libsystem_platform.dylib            0x00000001836a9a24 _sigtramp + 56\n[3] Object* ClassDB::creator<mono_bind::GodotSharp>()\n"+
		"[4] 4   ???                                 0x0000000281051a00 0x0 + 10754529792\n", 1, 0,
		want{level: oplog.LevelFatal, name: "crash", text: "Program crashed with signal 11", stack: ptr("at invoke_previous_action\nat _sigtramp (libsystem_platform.dylib)\nat ClassDB::creator<mono_bind::GodotSharp>\nat ???")})
}

// TestParseGodot_NodePaths: numbered node names and paths do not split one
// error into a crash group per node (the example).
func TestParseGodot_NodePaths(t *testing.T) {
	sig := func(text string) string {
		es := parse(t, "godot", "ERROR: "+text+"\n   at: get_node (scene/main/node.cpp:1638)\n")
		return crash.Parse(es[0].Record.Stack).WithHead(es[0].Record.Text).Signature()
	}
	a := sig("Node not found: /root/Main/Chunk_21/@StaticBody2D@14474.")
	if b := sig("Node not found: /root/Main/Chunk_7/@StaticBody2D@91."); a != b {
		t.Errorf("one error on two numbered nodes: two signatures")
	}
	if b := sig("Parameter \"body\" is null: /root/Main/Chunk_7/@StaticBody2D@91."); a == b {
		t.Errorf("two errors on one node: one signature")
	}
	if sig("Invalid id <Control#1645794564085>.") != sig("Invalid id <Control#619783927240>.") {
		t.Errorf("object ids split one error")
	}
}

// TestParseGodot_CrashGroups: crash grouping on the real fixtures, pair by
// pair: records said to be one crash must share a signature (recall), the
// others must not (precision).
func TestParseGodot_CrashGroups(t *testing.T) {
	type rec struct {
		file  string
		i     int
		group string // records of one group are one crash
	}
	recs := []rec{
		{"crash_runs.log", 1, "sig11-4.7"}, {"crash_runs.log", 4, "set_name"}, {"crash_runs.log", 5, "os-crash-error"},
		{"crash_runs.log", 6, "os-crash"}, {"crash_runs.log", 9, "os-crash"}, {"crash_runs.log", 10, "main-thread-error"},
		{"crash_runs.log", 11, "main-thread"},
		{"godot3.log", 0, "os-crash-error-3"}, {"godot3.log", 1, "os-crash-3"}, {"godot3.log", 2, "linux-gate"},
		{"godot3.log", 3, "linux-gate"}, {"godot3.log", 4, "weakref"}, {"godot3.log", 5, "nre-physics"}, {"godot3.log", 6, "nre-physics"},
		{"csharp.log", 0, "handshake"}, {"csharp.log", 1, "hovertip-merchant"}, {"csharp.log", 2, "hovertip-map"},
		{"csharp.log", 4, "canvas-shader"}, {"csharp.log", 6, "particles-shader"}, {"csharp.log", 7, "resources"},
		{"csharp.log", 8, "r3"},
	}
	parsed := map[string][]Entry{}
	sigs := make([]string, len(recs))
	for k, r := range recs {
		if parsed[r.file] == nil {
			parsed[r.file] = feed(mustParser(t, "godot"), readSample(t, "godot/"+r.file))
		}
		e := parsed[r.file][r.i].Record
		sigs[k] = crash.Parse(e.Stack).WithHead(e.Text).Signature()
	}
	var tp, fp, fn int
	for a := range recs {
		for b := a + 1; b < len(recs); b++ {
			same, merged := recs[a].group == recs[b].group, sigs[a] == sigs[b]
			switch {
			case same && merged:
				tp++
			case merged:
				fp++
				t.Errorf("%v and %v merged", recs[a], recs[b])
			case same:
				fn++
				t.Logf("%v and %v apart (a recall miss)", recs[a], recs[b])
			}
		}
	}
	t.Logf("pairs: %d merged right, %d merged wrong, %d apart wrongly: precision %.2f, recall %.2f",
		tp, fp, fn, float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(tp+fn, 1)))
	if tp < 1 {
		t.Errorf("the repeated linux-gate crash is not merged")
	}
}

// TestParseGodot_GameFatal: the game's own "FATAL: …" line (printerr before
// quit(1)) is fatal, as the generic parser reads it; Godot's labelled
// errors before it stay errors.
func TestParseGodot_GameFatal(t *testing.T) {
	_, es := parseSample(t, "godot/godot3_game_fatal.log", "godot", 5,
		map[oplog.Level]int{oplog.LevelInfo: 2, oplog.LevelError: 2, oplog.LevelFatal: 1})
	if r := es[len(es)-1].Record; r.Level != oplog.LevelFatal || r.Text != "FATAL: enemy script res://enemies/Goblin.gd failed to compile" {
		t.Errorf("the game's last line: %s %q", r.Level, r.Text)
	}
}
