package follow

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// The fixtures under testdata/luanti, love, rust and godot/godot3_* are
// what Debian's engines wrote on this machine (provenance in each folder's
// README): the tests below hold their parsers to them.

var (
	luantiStamp = func(hms string) time.Time {
		t, _ := time.ParseInLocation("2006-01-02 15:04:05", "2026-12-02 "+hms, fileDate.Location())
		return t
	}
	luantiMod = "/tmp/engines/luanti/games/logtest/mods/logtest/init.lua"
)

// TestParseLuanti_Debug: 23 runs of a Luanti 5.6.1 server appended to one
// debug.txt; each separator starts a run, a prefixed traceback is one
// record, ServerError and a failed load are fatal, the thread is the name.
func TestParseLuanti_Debug(t *testing.T) {
	_, es := parseSample(t, "luanti/debug.txt", "luanti", 308,
		map[oplog.Level]int{oplog.LevelDebug: 51, oplog.LevelInfo: 194, oplog.LevelWarn: 16, oplog.LevelError: 16, oplog.LevelFatal: 8})
	checkEntries(t, es, map[int]want{
		5:  {level: oplog.LevelError, name: "Main", text: "[logtest] load level error", time: luantiStamp("16:30:33")},
		8:  {level: oplog.LevelInfo, name: "Main", text: "[logtest] load multi\nline\naction message", time: luantiStamp("16:30:33")},
		14: {level: oplog.LevelError, name: "Server", text: "[logtest] runtime level error", time: luantiStamp("16:30:34")},
		25: {level: oplog.LevelFatal, name: "Main", time: luantiStamp("16:30:35"),
			text:  "ModError: Failed to load and run script from " + luantiMod + ":\n" + luantiMod + ":48: boom",
			stack: ptr("stack traceback:\n\t[C]: in function 'error'\n\t" + luantiMod + ":48: in main chunk")},
		33: {level: oplog.LevelFatal, name: "Main", time: luantiStamp("16:30:36"),
			text: "ServerError: AsyncErr: Lua: Runtime error from mod 'logtest' in callback environment_Step(): " + luantiMod + ":54: attempt to index local 't' (a nil value)",
			stack: ptr("stack traceback:\n\t" + luantiMod + ":54: in function 'func'\n" +
				"\t/usr/share/games/minetest/builtin/common/after.lua:20: in function </usr/share/games/minetest/builtin/common/after.lua:5>\n" +
				"\t/usr/share/games/minetest/builtin/game/register.lua:431: in function </usr/share/games/minetest/builtin/game/register.lua:417>")},
		47:  {level: oplog.LevelFatal, name: "Main", time: luantiStamp("16:30:39"), stack: ptr(""), text: "ServerError: AsyncErr: Lua: Runtime error from mod 'logtest' in callback environment_Step(): <no description>"},
		202: {level: oplog.LevelError, name: "Main", time: luantiStamp("16:31:25"), text: "ModError: Runtime error from mod 'logtest' in callback on_shutdown(): " + luantiMod + ":115: attempt to index local 'x' (a nil value)"},
	})
	marked := feed(withMarkers(mustParser(t, "luanti")), readSample(t, "luanti/debug.txt"))
	if runs := countMarkers(marked, oplog.MarkerRun); runs != 23 {
		t.Errorf("%d run markers, want 23 (one per separator)", runs)
	}
	if m := marked[0].Record; m.Kind != oplog.KindMarker || !m.Time.Equal(luantiStamp("16:30:33")) {
		t.Errorf("first entry %+v, want the first run's marker at its first line's time", m)
	}
	if n := crashGroups(es); n != 9 {
		t.Errorf("%d crash groups, want 9 (3 failed loads, 3 runtime errors with a traceback, 1 in on_shutdown, 2 fatal errors without one)", n)
	}
}

// TestParseLuanti_ActionsEndingInColon: a player leaving an empty server
// is "rex leaves game. List of players:" (stujones11/minetest-3d_armor
// issue 61): each such action is a record of its own, where a warning or
// error ending in ':' goes on on the next line under the same header.
func TestParseLuanti_ActionsEndingInColon(t *testing.T) {
	data := "2016-06-22 09:28:02: ACTION[Server]: rex leaves game. List of players:\n" +
		"2016-06-22 09:28:02: ACTION[Server]: karhui leaves game. List of players:\n" +
		"2016-06-22 09:28:02: ACTION[Server]: xuan leaves game. List of players: lcx\n" +
		"2016-06-22 09:28:03: ERROR[Main]: ModError: Failed to load and run script from /m/init.lua:\n" +
		"2016-06-22 09:28:03: ERROR[Main]: /m/init.lua:48: boom\n"
	var texts []string
	for _, e := range feed(mustParser(t, "luanti"), []byte(data)) {
		texts = append(texts, e.Record.Text)
	}
	want := []string{"rex leaves game. List of players:", "karhui leaves game. List of players:", "xuan leaves game. List of players: lcx",
		"ModError: Failed to load and run script from /m/init.lua:\n/m/init.lua:48: boom"}
	if !slices.Equal(texts, want) {
		t.Errorf("records %q, want %q", texts, want)
	}
}

// TestParseLuanti_Console: the server's console (stderr, and stdout's
// print() lines with it): the ASCII banner is one record, not another
// line's continuation.
func TestParseLuanti_Console(t *testing.T) {
	_, es := parseSample(t, "luanti/console_crash.txt", "luanti", 8, map[oplog.Level]int{oplog.LevelInfo: 7, oplog.LevelFatal: 1})
	if r := es[2].Record; !strings.HasPrefix(r.Text, "         __.") || strings.Count(r.Text, "\n") != 5 || r.Name != "" {
		t.Errorf("banner record %q", r.Text)
	}
	if r := es[1].Record; r.Text != "[logtest] init, mode=crash_runtime" {
		t.Errorf("the line before the banner %q", r.Text)
	}
	if r := es[7].Record; r.Level != oplog.LevelFatal || !strings.HasPrefix(r.Stack, "stack traceback:\n\t"+luantiMod+":54:") {
		t.Errorf("crash %s %q %q", r.Level, r.Text, r.Stack)
	}
}

// TestParseLove: LÖVE 11.4's error handler under a pseudo-terminal, and
// the standalone interpreters: one fatal record with the game's message,
// its location in Data, the traceback (both of a thread's) as stack.
func TestParseLove(t *testing.T) {
	_, es := parseSample(t, "love/error_update.txt", "lua", 12,
		map[oplog.Level]int{oplog.LevelDebug: 4, oplog.LevelInfo: 5, oplog.LevelWarn: 1, oplog.LevelError: 1, oplog.LevelFatal: 1})
	checkEntries(t, es, map[int]want{
		0: {level: oplog.LevelInfo, text: "logprobe starting, mode=error"},
		7: {level: oplog.LevelError, text: "this is a game-printed error-looking line (not a real error)"},
		11: {level: oplog.LevelFatal, text: "main.lua:79: attempt to index local 'player' (a nil value)", data: `{"srcFile":"main.lua","srcLine":79}`,
			stack: ptr("stack traceback:\n\t[love \"boot.lua\"]:345: in function '__index'\n\tmain.lua:79: in function 'update'\n" +
				"\t[love \"callbacks.lua\"]:162: in function <[love \"callbacks.lua\"]:144>\n\t[C]: in function 'xpcall'")},
	})
	_, es = parseSample(t, "love/thread_error.txt", "lua", 12,
		map[oplog.Level]int{oplog.LevelDebug: 4, oplog.LevelInfo: 5, oplog.LevelWarn: 1, oplog.LevelError: 1, oplog.LevelFatal: 1})
	if r := es[11].Record; r.Level != oplog.LevelFatal || r.Text != "Thread error (Thread: 0x5584eefb98b0)\nworker.lua:4: attempt to index local 'n' (a nil value)" ||
		strings.Count(r.Stack, "stack traceback:") != 2 {
		t.Errorf("thread error %s %q %q", r.Level, r.Text, r.Stack)
	}
	_, es = parseSample(t, "love/badpath.txt", "lua", 1, map[oplog.Level]int{oplog.LevelFatal: 1})
	if r := es[0].Record; !strings.HasSuffix(r.Text, "'.\nMake sure a folder exists at the specified path.") {
		t.Errorf("bad path %q", r.Text)
	}
	for _, f := range []string{"love/lua51_error.txt", "love/luajit_error.txt"} {
		_, es = parseSample(t, f, "lua", 2, map[oplog.Level]int{oplog.LevelInfo: 1, oplog.LevelFatal: 1})
		if r := es[1].Record; r.Text != "main.lua:5: boom" || !strings.HasPrefix(r.Stack, "stack traceback:\n\t[C]: in function 'error'\n\tmain.lua:5: in function 'boom'") {
			t.Errorf("%s: %q %q", f, r.Text, r.Stack)
		}
	}
	// An "Error:" line no traceback follows is the generic parser's.
	es = parse(t, "lua", "Error: could not open save\n[INFO] going on\n")
	if len(es) != 2 || es[0].Record.Level != oplog.LevelError || es[0].Record.Text != "could not open save" || es[1].Record.Text != "going on" {
		t.Errorf("Error: without a traceback: %+v", es)
	}
}

// TestParseRust: tracing-subscriber 0.3.16's fmt lines with and without
// colours, and panics of Rust 1.63 (the old form), 1.85 and 1.95, with
// and without backtraces.
func TestParseRust(t *testing.T) {
	for _, f := range []string{"rust/tracing.log", "rust/tracing_ansi.log", "rust/tracing_threads.log"} {
		_, es := parseSample(t, f, "rust", 12, map[oplog.Level]int{oplog.LevelDebug: 2, oplog.LevelInfo: 6, oplog.LevelWarn: 2, oplog.LevelError: 2})
		if r := es[2].Record; r.Name != "bevy_render::renderer" || !strings.HasPrefix(r.Text, "AdapterInfo { name: \"llvmpipe") || r.Time.IsZero() {
			t.Errorf("%s: AdapterInfo line %q %q %v", f, r.Name, r.Text, r.Time)
		}
		if r := es[7].Record; r.Name != "game::loader" || r.Text != "multi-line message:\nsecond line\n  third line indented" {
			t.Errorf("%s: multi-line message %q", f, r.Text)
		}
		if r := es[11].Record; r.Level != oplog.LevelError || r.Name != "game" || r.Text != "inside three spans" ||
			!strings.Contains(string(r.Data), `"spans":"frame{n=1}:system{name=\"movement\" id=3}:nofields"`) {
			t.Errorf("%s: span line %q %q %s", f, r.Name, r.Text, r.Data)
		}
	}
	for f, stack := range map[string]string{
		"rust/panic_bt_unset_rustup195.txt": "at src/main.rs:98:13",
		"rust/panic_bt_unset_debian163.txt": "at src/main.rs:98:13",
		"rust/panic_bt_1_rust185.txt":       "at rust_begin_unwind (/usr/src/rustc-1.85.0/library/std/src/panicking.rs:692:5)\n",
		"rust/panic_bt_1_rustup195.txt":     "at __rustc::rust_begin_unwind (/rustc/",
		"rust/panic_bt_full_rustup195.txt":  "at __rustc::rust_begin_unwind (/rustc/",
	} {
		_, es := parseSample(t, f, "rust", 2, map[oplog.Level]int{oplog.LevelInfo: 1, oplog.LevelFatal: 1})
		r := es[1].Record
		if r.Name != "panic" || r.Text != "boom: something went wrong (len=0)" || !strings.HasPrefix(r.Stack, stack) ||
			!strings.Contains(string(r.Data), `"thread":"main"`) || !strings.Contains(string(r.Data), `"location":"src/main.rs:98:13"`) {
			t.Errorf("%s: %q %q %s", f, r.Text, r.Stack, r.Data)
		}
		if strings.Contains(f, "bt_1") || strings.Contains(f, "full") {
			if !strings.Contains(r.Stack, "\nat game::main (") || strings.Contains(r.Stack, "::h") {
				t.Errorf("%s: frames %q", f, r.Stack)
			}
		}
	}
	_, es := parseSample(t, "rust/panic_multiline_debian163.txt", "rust", 2, map[oplog.Level]int{oplog.LevelInfo: 1, oplog.LevelFatal: 1})
	if r := es[1].Record; r.Text != "first line of panic\nsecond line\n  third line" || r.Stack != "at src/main.rs:80:17" {
		t.Errorf("old multi-line panic %q %q", r.Text, r.Stack)
	}
	_, es = parseSample(t, "rust/panic_thread.txt", "rust", 5, map[oplog.Level]int{oplog.LevelInfo: 2, oplog.LevelError: 3})
	if r := es[2].Record; r.Name != "panic" || r.Text != "worker failed: bad state" || !strings.Contains(string(r.Data), `"thread":"worker"`) {
		t.Errorf("thread panic %q %s", r.Text, r.Data)
	}
	// One panic in two builds, one signature.
	a, _ := crash.RecordSignature(&parseSampleQuiet(t, "rust/panic_bt_1_rustup195.txt")[1].Record)
	b, _ := crash.RecordSignature(&parseSampleQuiet(t, "rust/panic_bt_full_rustup195.txt")[1].Record)
	if a == "" || a != b {
		t.Errorf("RUST_BACKTRACE=1 and full: signatures %q and %q differ", a, b)
	}
	if c, _ := crash.RecordSignature(&parseSampleQuiet(t, "rust/panic_bt_unset_rustup195.txt")[1].Record); c != a {
		t.Errorf("RUST_BACKTRACE unset and 1: signatures %q and %q differ", c, a)
	}
	// A panic in a function main calls: the backtrace holds two of the
	// crate's frames, the panic without one its place alone.
	panicOf := func(sample string) oplog.Record {
		for _, e := range parseSampleQuiet(t, sample) {
			if e.Record.Stack != "" {
				return e.Record
			}
		}
		t.Fatalf("%s: no panic read", sample)
		return oplog.Record{}
	}
	unset, one := panicOf("rust/panic_nested_bt_unset_rustup195.txt"), panicOf("rust/panic_nested_bt_1_rustup195.txt")
	c, _ := crash.RecordSignature(&unset)
	d, _ := crash.RecordSignature(&one)
	if c == "" || c != d || !strings.Contains(one.Stack, "game::main") {
		t.Errorf("a nested panic with RUST_BACKTRACE 0 and 1: signatures %q and %q differ (stack %q)", c, d, one.Stack)
	}
}

// TestParseRust_Joined: a thread's panic that main passes on, unwrapping
// the thread's join, is one fatal record, the thread's, with where main gave
// up in Data: bare, with a backtrace, and behind a launcher's prefix; its
// signature is the thread's panic's alone. Without the join, a thread's
// panic stays an error (TestParseRust's panic_thread.txt).
func TestParseRust_Joined(t *testing.T) {
	var sigs []string
	for _, f := range []string{"rust/panic_joined_bt_unset_rustup195.txt", "rust/panic_joined_bt_1_rustup195.txt", "prefixed"} {
		var es []Entry
		if f == "prefixed" {
			b := readSample(t, "rust/panic_joined_bt_unset_rustup195.txt")
			prefixed := regexp.MustCompile(`(?m)^`).ReplaceAll(b, []byte("[WARNING] stderr: "))
			es = feed(mustParser(t, "auto"), prefixed[:len(prefixed)-len("[WARNING] stderr: ")])
		} else {
			es = parseSampleQuiet(t, f)
		}
		var panics []oplog.Record
		for _, e := range es {
			if e.Record.Level >= oplog.LevelError {
				panics = append(panics, e.Record)
			}
		}
		if len(panics) != 1 {
			t.Errorf("%s: %d errors, want 1: %+v", f, len(panics), panics)
			continue
		}
		r := panics[0]
		if r.Level != oplog.LevelFatal || r.Text != "index out of bounds: the len is 2 but the index is 4" ||
			!strings.Contains(string(r.Data), `"thread":"net"`) || !strings.Contains(string(r.Data),
			`"joined":"thread 'main' at game.rs:10:22: called `+"`Result::unwrap()` on an `Err` value: Any { .. }\"") {
			t.Errorf("%s: %s %q %s", f, r.Level, r.Text, r.Data)
		}
		sig, _ := crash.RecordSignature(&r)
		sigs = append(sigs, sig)
	}
	if len(sigs) == 3 && (sigs[0] != sigs[1] || sigs[0] != sigs[2]) {
		t.Errorf("signatures differ: %q", sigs)
	}
}

// TestParseGodot3_FileLogger: Godot 3.2.3's godot.log (its file logger's
// "**ERROR**:" and "   At: file:line:func() - msg") reads as its
// console does: the same errors, texts, levels and locations.
func TestParseGodot3_FileLogger(t *testing.T) {
	_, file := parseSample(t, "godot/godot3_file.log", "godot", 23, map[oplog.Level]int{oplog.LevelInfo: 16, oplog.LevelWarn: 1, oplog.LevelError: 6})
	checkEntries(t, file, map[int]want{
		15: {level: oplog.LevelError, text: "[probe] this is push_error", stack: ptr("at call (modules/gdscript/gdscript_functions.cpp:803)"),
			data: `{"srcFile":"modules/gdscript/gdscript_functions.cpp","srcLine":803,"function":"call"}`},
		17: {level: oplog.LevelError, name: "script", text: "Invalid call. Nonexistent function 'some_method' in base 'Nil'.",
			stack: ptr("at _runtime_error_null_call (res://Main.gd:74)"), data: `{"srcFile":"res://Main.gd","srcLine":74,"function":"_runtime_error_null_call"}`},
	})
	console := feed(mustParser(t, "godot"), readSample(t, "godot/godot3_pty_crash.txt"))
	for i := 1; i < 20; i++ { // the same errors up to the crash
		f, c := file[i].Record, console[i].Record
		if f.Level < oplog.LevelWarn && c.Level < oplog.LevelWarn {
			continue // the game's prints: another run's pid
		}
		if f.Level != c.Level || f.Text != c.Text || f.Stack != c.Stack {
			t.Errorf("record %d: file {%s %q %q}, console {%s %q %q}", i, f.Level, f.Text, f.Stack, c.Level, c.Text, c.Stack)
		}
	}
	if r := console[len(console)-1].Record; r.Level != oplog.LevelFatal || r.Text != "Program crashed with signal 11" {
		t.Errorf("console crash %s %q", r.Level, r.Text)
	}
}

// TestParse_EnginesNamedEqualsAuto: each engine's output read with no
// parser named gives the records its parser gives.
func TestParse_EnginesNamedEqualsAuto(t *testing.T) {
	for dir, parser := range map[string]string{"luanti": "luanti", "love": "lua", "rust": "rust", "json": "json", "logcat": "logcat"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
		for _, f := range files {
			if strings.HasSuffix(f, ".md") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			named := feed(withMarkers(mustParser(t, parser)), data)
			auto := mustParser(t, "auto")
			got := feed(withMarkers(auto), data)
			// (A game's plain prints, then a panic: detection stays
			// generic, whose runtime reader takes the panic as rust's does.)
			if auto.Name() != parser && !((parser == "lua" || strings.Contains(f, "panic_nested") || strings.Contains(f, "panic_joined") || strings.Contains(f, "panic_double")) && auto.Name() == "generic") {
				t.Errorf("%s: auto chose %s, want %s", f, auto.Name(), parser)
			}
			if len(got) != len(named) {
				t.Errorf("%s: auto %d records, %s %d", f, len(got), parser, len(named))
				continue
			}
			for i := range got {
				if d := diffRecord(&got[i].Record, &named[i].Record); d != "" {
					t.Errorf("%s: record %d: %s", f, i, d)
				}
			}
		}
	}
}

// countMarkers counts the markers called name among es.
func countMarkers(es []Entry, name string) int {
	n := 0
	for _, e := range es {
		if e.Record.Kind == oplog.KindMarker && e.Record.Name == name {
			n++
		}
	}
	return n
}

// crashGroups counts the crash signatures among es.
func crashGroups(es []Entry) int {
	sigs := map[string]bool{}
	for _, e := range es {
		if s, ok := crash.RecordSignature(&e.Record); ok {
			sigs[s] = true
		}
	}
	return len(sigs)
}

// parseSampleQuiet parses a sample with auto detection.
func parseSampleQuiet(t *testing.T, sample string) []Entry {
	t.Helper()
	return feed(mustParser(t, "auto"), readSample(t, sample))
}

// TestParseJSON: the JSON lines of slog, zap, logrus, pino, bunyan,
// winston, structlog, python-json-logger and Serilog, as those loggers
// wrote them: message, level, time, logger and stack from each one's
// keys, the rest kept as data, one record a line.
func TestParseJSON(t *testing.T) {
	for _, tc := range []struct {
		file              string
		i                 int
		level             oplog.Level
		name, text, stack string // stack: its start
		data              string // a piece of Data
	}{
		{"slog.jsonl", 5, oplog.LevelError, "", "payment declined", "", `"source":{"function":"main.runSlog"`},
		{"slog.jsonl", 6, oplog.LevelWarn, "", "custom level between WARN and ERROR", "", ""},
		{"zap.jsonl", 4, oplog.LevelError, "db", "payment declined", "main.runZap\n\t/tmp/jsonlogs/gen-go/main.go:68", `"caller":"gen-go/main.go:68"`},
		{"logrus.jsonl", 3, oplog.LevelWarn, "", "slow request", "", `"duration":1500000000`},
		{"pino.jsonl", 3, oplog.LevelError, "", "request failed", "Error: boom\n    at failingOp (", `"err":{"code":"EBOOM","message":"boom","type":"Error"}`},
		{"bunyan.jsonl", 3, oplog.LevelError, "myapp", "request failed", "Error: boom\n", `"hostname":"vm"`},
		{"winston.jsonl", 3, oplog.LevelError, "", "request failed boom", "Error: boom\n", `"code":"EBOOM"`},
		{"structlog.jsonl", 4, oplog.LevelError, "myapp.api", "request failed", "Traceback (most recent call last):\n", `"attempt":3`},
		{"python-json-logger.jsonl", 3, oplog.LevelError, "myapp.api", "request failed", "Traceback (most recent call last):\n", ""},
		{"serilog-compact.jsonl", 3, oplog.LevelError, "", "Something failed", "System.DivideByZeroException: Attempted to divide by zero.", ""},
		{"serilog-compact.jsonl", 5, oplog.LevelInfo, "Microsoft.Hosting.Lifetime", "Now listening on: http://localhost:5000", "", `"address":"http://localhost:5000"`},
		{"serilog-json.jsonl", 0, oplog.LevelInfo, "", "Hello, {\"Name\":\"nblumhardt\",\"Tags\":[1,2,3]}, 123 at 2016-06-07T13:44:57.8532799+10:00", "", ""},
	} {
		data := readSample(t, "json/"+tc.file)
		es := feed(mustParser(t, "json"), data)
		if n := strings.Count(string(data), "\n"); len(es) != n {
			t.Errorf("%s: %d records of %d lines", tc.file, len(es), n)
			continue
		}
		r := es[tc.i].Record
		if r.Level != tc.level || r.Name != tc.name || r.Text != tc.text || !strings.HasPrefix(r.Stack, tc.stack) ||
			!strings.Contains(string(r.Data), tc.data) || tc.stack == "" && r.Stack != "" {
			t.Errorf("%s line %d: {%s %q %q %.40q %s}, want {%s %q %q %.40q %s}", tc.file, tc.i+1, r.Level, r.Name, r.Text, r.Stack, r.Data,
				tc.level, tc.name, tc.text, tc.stack, tc.data)
		}
		if tc.file != "winston.jsonl" && r.Time.IsZero() {
			t.Errorf("%s line %d: no time", tc.file, tc.i+1)
		}
		if strings.Contains(string(r.Data), `"stack"`) {
			t.Errorf("%s line %d: the stack is in Data too: %s", tc.file, tc.i+1, r.Data)
		}
	}
	// pino's numbers, zap's float seconds, Python's comma before the milliseconds.
	for line, want := range map[string]time.Time{
		`{"level":30,"time":1796230878427,"msg":"x"}`:                            time.UnixMilli(1796230878427).UTC(),
		`{"level":"info","ts":1796230846.5,"msg":"x"}`:                           time.Unix(1796230846, 5e8).UTC(),
		`{"levelname":"INFO","asctime":"2026-12-02 17:02:32,623","message":"x"}`: time.Date(2026, 12, 2, 17, 2, 32, 623e6, fileDate.Location()),
	} {
		if r, ok := parseOne(t, "json", line); ok && !r.Time.Equal(want) {
			t.Errorf("%s: time %v, want %v", line, r.Time, want)
		}
	}
	// A line that is no logger's JSON is the generic parser's.
	if r, ok := parseOne(t, "json", `ERROR: not json`); ok && (r.Level != oplog.LevelError || r.Text != "not json") {
		t.Errorf("plain line: %s %q", r.Level, r.Text)
	}
}
