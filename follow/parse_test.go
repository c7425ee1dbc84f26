package follow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// The samples' file date, and the clock of the tests: the afternoon after
// the samples were written.
var (
	fileDate = time.Date(2026, 3, 1, 15, 0, 0, 0, time.UTC)
	testNow  = time.Date(2026, 3, 1, 16, 0, 0, 0, time.UTC)
)

// mustParser returns the parser called name, dating lines by fileDate.
func mustParser(tb testing.TB, name string) Parser {
	tb.Helper()
	p, err := newParser(name, func() time.Time { return fileDate }, func() time.Time { return testNow })
	if err != nil {
		tb.Fatalf("newParser(%q): %v", name, err)
	}
	return p
}

// readSample reads testdata/name.
func readSample(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// feed gives p the lines of data with their real end offsets, as the
// follower does, then flushes it.
func feed(p Parser, data []byte) []Entry {
	var out []Entry
	var off int64
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data) - 1 // no newline at the end: the follower holds it; not in these samples
		}
		line := cleanLine(data[:i])
		off += int64(i + 1)
		data = data[i+1:]
		out = append(out, p.Line(line, off)...)
	}
	return append(out, p.Flush()...)
}

// parse feeds text to a new parser called name.
func parse(tb testing.TB, name, text string) []Entry {
	tb.Helper()
	return feed(mustParser(tb, name), []byte(text))
}

// lineEnd returns the offset just past the line of data holding needle,
// and past skip more lines after it.
func lineEnd(tb testing.TB, data []byte, needle string, skip int) int64 {
	tb.Helper()
	i := bytes.Index(data, []byte(needle))
	if i < 0 {
		tb.Fatalf("sample has no %q", needle)
	}
	for n := 0; n <= skip; n++ {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			tb.Fatalf("sample ends before %d lines after %q", skip, needle)
		}
		i += j + 1
	}
	return int64(i)
}

// want is what one record should hold; empty fields are not checked
// except Stack, which is checked when stack is true.
type want struct {
	level oplog.Level
	name  string
	text  string
	time  time.Time
	stack *string
	data  string
	end   int64
}

func ptr(s string) *string { return &s }

func checkEntry(t *testing.T, i int, e Entry, w want) {
	t.Helper()
	r := e.Record
	if r.Kind != oplog.KindLine || r.Level != w.level || r.Name != w.name || r.Text != w.text {
		t.Errorf("entry %d = {%s %s name=%q text=%q}, want {line %s name=%q text=%q}",
			i, r.Kind, r.Level, r.Name, r.Text, w.level, w.name, w.text)
	}
	if !r.Time.Equal(w.time) {
		t.Errorf("entry %d (%q): time %v, want %v", i, r.Text, r.Time, w.time)
	}
	if w.stack != nil && r.Stack != *w.stack {
		t.Errorf("entry %d (%q): stack\n%s\nwant\n%s", i, r.Text, r.Stack, *w.stack)
	}
	if w.data != "" && string(r.Data) != w.data {
		t.Errorf("entry %d (%q): data %s, want %s", i, r.Text, r.Data, w.data)
	}
	if w.end != 0 && e.End != w.end {
		t.Errorf("entry %d (%q): end %d, want %d", i, r.Text, e.End, w.end)
	}
}

// checkAll checks what every entry of a sample must satisfy: a valid line
// record, Data a JSON object without the follower's keys, Ends increasing
// up to the file's size.
func checkAll(t *testing.T, es []Entry, size int64) {
	t.Helper()
	var last int64
	for i, e := range es {
		r := e.Record
		if r.Kind == oplog.KindMarker && r.Name == oplog.MarkerRun && i+1 < len(es) && es[i+1].End == e.End {
			continue // a run's start a parser read (Luanti's separator), stored with the entry after it
		}
		if r.Kind != oplog.KindLine || !r.Level.Valid() {
			t.Errorf("entry %d (%q): kind %d level %d", i, r.Text, r.Kind, r.Level)
		}
		if e.End <= last {
			t.Errorf("entry %d (%q): end %d not after %d", i, r.Text, e.End, last)
		}
		last = e.End
		if r.Data != nil {
			var m map[string]any
			if err := json.Unmarshal(r.Data, &m); err != nil {
				t.Errorf("entry %d: data %s: %v", i, r.Data, err)
			}
			for _, k := range []string{"file", "offset", "fileId"} {
				if _, ok := m[k]; ok {
					t.Errorf("entry %d: data %s has the follower's key %q", i, r.Data, k)
				}
			}
		}
	}
	if last != size {
		t.Errorf("last entry ends at %d, want the file size %d", last, size)
	}
}

// levels counts the entries per level.
// find returns the first record of recs that match says is it.
func find(recs []oplog.Record, match func(*oplog.Record) bool) (oplog.Record, bool) {
	for i := range recs {
		if match(&recs[i]) {
			return recs[i], true
		}
	}
	return oplog.Record{}, false
}

func levels(es []Entry) map[oplog.Level]int {
	m := map[oplog.Level]int{}
	for _, e := range es {
		if e.Record.Kind != oplog.KindMarker {
			m[e.Record.Level]++
		}
	}
	return m
}

func checkLevels(t *testing.T, es []Entry, want map[oplog.Level]int) {
	t.Helper()
	got := levels(es)
	for _, l := range oplog.Levels {
		if got[l] != want[l] {
			t.Errorf("%d %s records, want %d (all: %v)", got[l], l, want[l], got)
		}
	}
}

// parseSample feeds testdata/sample to the parser called name and checks
// what every sample must satisfy (checkAll), the number of records and
// their levels.
func parseSample(t *testing.T, sample, name string, n int, want map[oplog.Level]int) ([]byte, []Entry) {
	t.Helper()
	data := readSample(t, sample)
	es := feed(mustParser(t, name), data)
	checkAll(t, es, int64(len(data)))
	if len(es) != n {
		for i, e := range es {
			t.Logf("%d: %s %q", i, e.Record.Level, e.Record.Text)
		}
		t.Fatalf("%d records, want %d", len(es), n)
	}
	checkLevels(t, es, want)
	return data, es
}

// parseOne feeds line to a new parser called name and returns the one
// record it makes; when it makes another number, parseOne reports an error
// and returns false.
func parseOne(t *testing.T, name, line string) (oplog.Record, bool) {
	t.Helper()
	es := parse(t, name, line+"\n")
	if len(es) != 1 {
		t.Errorf("%q: %d entries", line, len(es))
		return oplog.Record{}, false
	}
	return es[0].Record, true
}

// checkEntries checks the entries of es that want names by index.
func checkEntries(t *testing.T, es []Entry, ws map[int]want) {
	t.Helper()
	for i, w := range ws {
		checkEntry(t, i, es[i], w)
	}
}

func TestNewParser_Names(t *testing.T) {
	f := func(name, want string) {
		t.Helper()
		p, err := NewParser(name, nil)
		if err != nil {
			t.Fatalf("NewParser(%q): %v", name, err)
		}
		if p.Name() != want {
			t.Errorf("NewParser(%q).Name() = %q, want %q", name, p.Name(), want)
		}
	}
	f("unity", "unity")
	f("Unity", "unity")
	f("log4j", "log4j")
	f("minecraft", "log4j")
	f("godot", "godot")
	f("generic", "generic")
	f("plain", "plain")
	f("", "auto")
	f("auto", "auto")
}

func TestNewParser_ErrUnknown(t *testing.T) {
	_, err := NewParser("cryengine", nil)
	var e *oplog.Error
	if !errors.As(err, &e) || e.Code != oplog.EINVALID {
		t.Fatalf("NewParser(cryengine) = %v, want an EINVALID error", err)
	}
	for _, name := range []string{`"cryengine"`, "unity", "unreal", "log4j", "minecraft", "godot", "generic", "auto"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}

// TestNewParser_NilDate: without a date, a time of day is today's in UTC.
func TestNewParser_NilDate(t *testing.T) {
	p, err := NewParser("log4j", nil)
	if err != nil {
		t.Fatal(err)
	}
	es := feed(p, []byte("[00:00:01] [main/INFO]: early\n"))
	now := time.Now().UTC()
	got := es[0].Record.Time
	if got.Location() != time.UTC || got.Hour() != 0 || got.Minute() != 0 || got.Second() != 1 || now.Sub(got) > 48*time.Hour || got.After(now.Add(time.Hour)) {
		t.Errorf("time %v, want 00:00:01 UTC today (or yesterday when that is in the future) at %v", got, now)
	}
}

func TestParse_UnityEditor(t *testing.T) {
	data, es := parseSample(t, "unity_editor.log", "unity", 24,
		map[oplog.Level]int{oplog.LevelInfo: 17, oplog.LevelWarn: 2, oplog.LevelError: 5})
	nre := "NullReferenceException: Object reference not set to an instance of an object"
	checkEntries(t, es, map[int]want{
		0: {level: oplog.LevelInfo, text: "[Licensing::Module] Trying to connect to existing licensing client channel...",
			stack: ptr(""), end: lineEnd(t, data, "[Licensing::Module]", 0)},
		3: {level: oplog.LevelInfo, text: "BatchMode: 0, IsHumanControllingUs: 1, StartBugReporterOnCrash: 1, Is64bit: 1, IsPro: 0",
			end: lineEnd(t, data, "BatchMode:", 1)}, // with the blank line after it
		8: {level: oplog.LevelError, name: "compiler", text: `Assets\Scripts\Player.cs(57,10): error CS1002: ; expected`,
			stack: ptr("error CS1002: ; expected\n  at Assets\\Scripts\\Player.cs(57,10)"),
			data:  `{"srcFile":"Assets\\Scripts\\Player.cs","srcLine":57,"srcColumn":10,"code":"CS1002"}`,
			end:   lineEnd(t, data, "(Filename: Assets\\Scripts\\Player.cs Line: 57)", 1)},
		9: {level: oplog.LevelWarn, name: "compiler", text: `Assets\Scripts\Enemy.cs(12,13): warning CS0168: The variable 'e' is declared but never used`,
			data: `{"srcFile":"Assets\\Scripts\\Enemy.cs","srcLine":12,"srcColumn":13,"code":"CS0168"}`},
		12: {level: oplog.LevelInfo, text: "Asset Pipeline Refresh (id=2c3f5a1e8d7b4f0a9e6c1b2d3f4a5b6c): Total: 1.283 seconds - Initiated by RefreshV2(NoUpdateAssetOptions)",
			stack: ptr("\tSummary:\n\t\tImports: total=1 (actual=1, local cache=0, cache server=0)\n\t\tAsset DB Process Time: managed=0 ms, native=412 ms")},
		16: {level: oplog.LevelInfo, text: "Player spawned at (0.0, 1.0, 0.0)",
			stack: ptr("UnityEngine.Debug:Log (object)\nPlayer:Start () (at Assets/Scripts/Player.cs:21)"),
			data:  `{"srcFile":"Assets/Scripts/Player.cs","srcLine":21}`,
			end:   lineEnd(t, data, "(Filename: Assets/Scripts/Player.cs Line: 21)", 1)},
		17: {level: oplog.LevelWarn, text: "Health below 20%: 15",
			stack: ptr("UnityEngine.Debug:LogWarning (object)\nPlayer:TakeDamage (int) (at Assets/Scripts/Player.cs:88)\n" +
				"Enemy:OnCollisionEnter (UnityEngine.Collision) (at Assets/Scripts/Enemy.cs:34)"),
			data: `{"srcFile":"Assets/Scripts/Player.cs","srcLine":88}`},
		18: {level: oplog.LevelError, text: nre,
			stack: ptr("Weapon.Fire (UnityEngine.Vector3 direction) (at Assets/Scripts/Weapon.cs:30)\nPlayer.Update () (at Assets/Scripts/Player.cs:42)"),
			data:  `{"srcFile":"Assets/Scripts/Weapon.cs","srcLine":30}`,
			end:   lineEnd(t, data, "(Filename: Assets/Scripts/Weapon.cs Line: 30)", 1)},
		19: {level: oplog.LevelInfo, text: "Unloading 2 Unused Serialized files (Serialized files now loaded: 0)"},
		20: {level: oplog.LevelError, text: nre,
			stack: ptr("Weapon.Fire (UnityEngine.Vector3 direction) (at Assets/Scripts/Weapon.cs:31)\nPlayer.Update () (at Assets/Scripts/Player.cs:48)")},
		21: {level: oplog.LevelError, text: "InvalidOperationException: Sequence contains no elements",
			stack: ptr("  at System.Linq.Enumerable.First[TSource] (System.Collections.Generic.IEnumerable`1[T] source) [0x00010] in <2a7b8e2c1d5f4e3a9b6c0d1e2f3a4b5c>:0\n" +
				`  at LevelLoader.Load (System.String level) [0x0001b] in C:\Users\dev\Projects\SpaceRunner\Assets\Scripts\LevelLoader.cs:27`)},
		23: {level: oplog.LevelError, name: "compiler", text: `Assets\Scripts\Player.cs(61,10): error CS1002: ; expected`,
			stack: ptr("error CS1002: ; expected\n  at Assets\\Scripts\\Player.cs(61,10)"), end: int64(len(data))},
	})
}

func TestParse_MinecraftLatest(t *testing.T) {
	data, es := parseSample(t, "minecraft_latest.log", "minecraft", 26,
		map[oplog.Level]int{oplog.LevelInfo: 21, oplog.LevelWarn: 1, oplog.LevelError: 3, oplog.LevelFatal: 1})
	at := func(h, m, s int) time.Time { return time.Date(2026, 3, 1, h, m, s, 0, time.UTC) }
	ticking := func(line int) *string {
		return ptr("net.minecraft.ReportedException: Ticking block entity\n" +
			"\tat net.minecraft.world.level.Level.tickBlockEntities(Level.java:482) ~[server-1.20.1.jar:?]\n" +
			"\tat net.minecraft.server.level.ServerLevel.tick(ServerLevel.java:363) ~[server-1.20.1.jar:?]\n" +
			"\tat net.minecraft.server.MinecraftServer.tickChildren(MinecraftServer.java:892) ~[server-1.20.1.jar:?]\n" +
			"\tat net.minecraft.server.MinecraftServer.tickServer(MinecraftServer.java:818) ~[server-1.20.1.jar:?]\n" +
			"\tat net.minecraft.server.MinecraftServer.runServer(MinecraftServer.java:677) ~[server-1.20.1.jar:?]\n" +
			"\tat java.lang.Thread.run(Thread.java:833) [?:?]\n" +
			"Caused by: java.lang.NullPointerException: Cannot invoke \"net.minecraft.world.item.ItemStack.getCount()\" because \"stack\" is null\n" +
			fmt.Sprintf("\tat com.example.pipes.PipeBlockEntity.pushItems(PipeBlockEntity.java:%d) ~[pipes-1.4.2.jar:?]\n", line) +
			"\tat com.example.pipes.PipeBlockEntity.serverTick(PipeBlockEntity.java:74) ~[pipes-1.4.2.jar:?]\n" +
			"\tat net.minecraft.world.level.chunk.LevelChunk$BoundTickingBlockEntity.tick(LevelChunk.java:695) ~[server-1.20.1.jar:?]\n" +
			"\t... 6 more")
	}
	checkEntries(t, es, map[int]want{
		0: {level: oplog.LevelInfo, name: "main", time: at(14, 0, 1), stack: ptr(""),
			text: "Environment: Environment[sessionHost=https://sessionserver.mojang.com, servicesHost=https://api.minecraftservices.com, name=PROD]"},
		7: {level: oplog.LevelInfo, name: "User Authenticator #1", time: at(14, 1, 12),
			text: "UUID of player Steve is 8667ba71-b85a-4004-af54-457a9734eed7"},
		10: {level: oplog.LevelWarn, name: "Server thread", time: at(14, 2, 40),
			text: "Can't keep up! Is the server overloaded? Running 2504ms or 50 ticks behind"},
		11: {level: oplog.LevelError, name: "Server thread", time: at(14, 3, 5), stack: ticking(118),
			text: "Failed to handle packet net.minecraft.network.protocol.game.ServerboundUseItemOnPacket@3f2a1b7c, suppressing error",
			end:  lineEnd(t, data, "\t... 6 more", 0)},
		12: {level: oplog.LevelInfo, name: "Server thread", time: at(14, 3, 5), text: "Steve lost connection: Internal server error"},
		17: {level: oplog.LevelError, name: "Server thread", time: at(14, 4, 51), stack: ticking(121),
			text: "Failed to handle packet net.minecraft.network.protocol.game.ServerboundUseItemOnPacket@6b1d09e4, suppressing error"},
		// The server's crash handler: the game stops there.
		20: {level: oplog.LevelFatal, name: "Server thread", time: at(14, 5, 12), text: "Encountered an unexpected exception"},
		21: {level: oplog.LevelError, name: "Server thread", time: at(14, 5, 12), stack: ptr(""),
			text: "This crash report has been saved to: /srv/minecraft/./crash-reports/crash-2026-03-01_14.05.12-server.txt"},
		25: {level: oplog.LevelInfo, name: "Server thread", time: at(14, 5, 13),
			text: "ThreadedAnvilChunkStorage (world): All chunks are saved", end: int64(len(data))},
	})
	if s := es[20].Record.Stack; !strings.HasPrefix(s, "net.minecraft.ReportedException: Exception ticking world\n\tat ") ||
		!strings.Contains(s, "\nCaused by: java.util.ConcurrentModificationException\n\tat java.util.ArrayList$Itr.checkForComodification") ||
		!strings.HasSuffix(s, "\n\t... 5 more") || strings.Count(s, "\n") != 10 {
		t.Errorf("crash stack:\n%s", s)
	}
}

func TestParse_Godot(t *testing.T) {
	data, es := parseSample(t, "godot.log", "godot", 12,
		map[oplog.Level]int{oplog.LevelInfo: 7, oplog.LevelWarn: 1, oplog.LevelError: 4})
	invalid := "Invalid get index 'position' (on base: 'null instance')."
	checkEntries(t, es, map[int]want{
		0: {level: oplog.LevelInfo, text: "Godot Engine v4.2.1.stable.official.b09f793f5 - https://godotengine.org"},
		1: {level: oplog.LevelInfo, text: "Vulkan API 1.3.260 - Forward+ - Using Vulkan Device #0: NVIDIA - NVIDIA GeForce RTX 3060",
			end: lineEnd(t, data, "Vulkan API", 1)},
		5: {level: oplog.LevelError, name: "script", text: invalid, stack: ptr("at _process (res://scripts/player.gd:42)"),
			data: `{"srcFile":"res://scripts/player.gd","srcLine":42,"function":"_process"}`,
			end:  lineEnd(t, data, "   at: _process (res://scripts/player.gd:42)", 0)},
		6: {level: oplog.LevelError, name: "script", text: invalid, stack: ptr("at _process (res://scripts/player.gd:42)")},
		7: {level: oplog.LevelError, text: `Node not found: "HUD/ScoreLabel" (relative to "/root/Main").`,
			stack: ptr("at get_node (scene/main/node.cpp:1638)"),
			data:  `{"srcFile":"scene/main/node.cpp","srcLine":1638,"function":"get_node"}`},
		8: {level: oplog.LevelInfo, text: "Score: 120", stack: ptr("")},
		9: {level: oplog.LevelError, name: "script", text: invalid, stack: ptr("at _process (res://scripts/player.gd:47)")},
		11: {level: oplog.LevelWarn, text: "ObjectDB instances leaked at exit (run with --verbose for details).",
			stack: ptr("at cleanup (core/object/object.cpp:2208)"), end: int64(len(data))},
	})
}

func TestParse_Generic(t *testing.T) {
	data, es := parseSample(t, "generic.log", "generic", 11,
		map[oplog.Level]int{oplog.LevelDebug: 1, oplog.LevelInfo: 4, oplog.LevelWarn: 2, oplog.LevelError: 4})
	ms := func(h, m, s, ms int) time.Time { return time.Date(2026, 3, 1, h, m, s, ms*1e6, time.UTC) }
	checkEntries(t, es, map[int]want{
		0: {level: oplog.LevelInfo, name: "server.Boot", time: ms(14, 0, 0, 120), text: "Starting lobby server v2.4.1"},
		1: {level: oplog.LevelDebug, name: "net.Listener", time: ms(14, 0, 0, 348), text: "Bound to 0.0.0.0:7777"},
		3: {level: oplog.LevelError, name: "lobby.Session", time: ms(14, 0, 7, 911), text: "Session 8812 crashed",
			stack: ptr("java.lang.IllegalStateException: Player 4417 not in lobby\n\tat lobby.Session.kick(Session.java:214)\n" +
				"\tat lobby.Session.tick(Session.java:120)\n\tat lobby.Worker.run(Worker.java:57)\n" +
				"Caused by: java.util.NoSuchElementException: No value present\n\tat java.base/java.util.Optional.get(Optional.java:143)\n" +
				"\tat lobby.Roster.find(Roster.java:33)\n\t... 3 more"),
			end: lineEnd(t, data, "\t... 3 more", 0)},
		5: {level: oplog.LevelInfo, name: "asset_pipeline", time: ms(14, 2, 0, 517), text: "Packing 318 textures"},
		6: {level: oplog.LevelError, name: "asset_pipeline", time: ms(14, 2, 3, 4), text: "Failed to pack atlas ui_main",
			stack: ptr("Traceback (most recent call last):\n  File \"tools/pack.py\", line 88, in pack_atlas\n    img = load(path)\n" +
				"  File \"tools/pack.py\", line 41, in load\n    raise FileNotFoundError(path)\nFileNotFoundError: art/ui/button_hover.png")},
		7:  {level: oplog.LevelError, name: "netcode::session", time: ms(14, 3, 10, 0), text: "peer 10.0.0.7 timed out after 30s"},
		8:  {level: oplog.LevelWarn, name: "netcode::session", time: ms(14, 3, 11, 0), text: "resending 14 unacked packets"},
		9:  {level: oplog.LevelError, name: "root", text: "Could not reach telemetry endpoint"},
		10: {level: oplog.LevelInfo, text: "Server shutting down", end: int64(len(data))},
	})
}

// TestParse_Crashes: the samples' records, appended to a real log, group
// into one crash per kind with the right count, repeats from other lines
// included.
func TestParse_Crashes(t *testing.T) {
	for _, tc := range []struct {
		sample, parser string
		groups         map[string]int // a word of each title: occurrences
	}{
		{"unity_editor.log", "unity", map[string]int{
			"NullReferenceException: Object reference not set to an instance of an object in Weapon.Fire (UnityEngine.Vector3 direction) (at Assets/Scripts/Weapon.cs:31)": 2,
			"error CS1002: ; expected": 2, "InvalidOperationException: Sequence contains no elements in LevelLoader.Load": 1}},
		// The game's (a mod's) own frame, not Minecraft's; a ReportedException's cause.
		{"minecraft_latest.log", "log4j", map[string]int{
			`java.lang.NullPointerException: Cannot invoke "net.minecraft.world.item.ItemStack.getCount()" because "stack" … in com.example.pipes.PipeBlockEntity.pushItems(PipeBlockEntity.java:121)`: 2,
			"java.util.ConcurrentModificationException in com.example.pipes.PipeNetwork.rebuild(PipeNetwork.java:52)":                                                                                  1}},
		{"godot.log", "godot", map[string]int{
			"Invalid get index 'position' (on base: 'null instance'). in _process (res://scripts/player.gd:47)": 3, "Node not found": 1}},
		{"generic.log", "generic", map[string]int{
			"java.lang.IllegalStateException: Player 4417 not in lobby in lobby.Session.kick(Session.java:214)": 1,
			"FileNotFoundError: art/ui/button_hover.png in File \"tools/pack.py\", line 41, in load":            1}},
	} {
		t.Run(tc.parser, func(t *testing.T) {
			l, _ := logtest.MustOpenLog(t, nil)
			l.SetCrashes(crash.New(l, nil))
			es := feed(mustParser(t, tc.parser), readSample(t, tc.sample))
			recs := make([]oplog.Record, len(es))
			for i, e := range es {
				recs[i] = e.Record
				recs[i].Source = "game"
			}
			logtest.MustAppend(t, l, recs...)
			page, err := l.FindCrashes(context.Background(), oplog.CrashQuery{Classes: oplog.CrashClasses})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Groups) != len(tc.groups) {
				for _, g := range page.Groups {
					t.Logf("group %q: %d", g.Title, g.Count)
				}
				t.Fatalf("%d crash groups, want %d", len(page.Groups), len(tc.groups))
			}
			for title, count := range tc.groups {
				found := false
				for _, g := range page.Groups {
					if strings.Contains(g.Title, title) {
						found = true
						if g.Count != count {
							t.Errorf("group %q: count %d, want %d", g.Title, g.Count, count)
						}
					}
				}
				if !found {
					t.Errorf("no crash group titled like %q in %q", title, titles(page.Groups))
				}
			}
		})
	}
}

// TestParse_Auto: detection picks each sample's parser, and the records
// are the ones that parser gives.
func TestParse_Auto(t *testing.T) {
	for _, tc := range []struct{ sample, parser string }{
		{"unity_editor.log", "unity"}, {"minecraft_latest.log", "log4j"},
		{"godot.log", "godot"}, {"generic.log", "generic"},
	} {
		t.Run(tc.parser, func(t *testing.T) {
			data := readSample(t, tc.sample)
			p := mustParser(t, "auto")
			if p.Name() != "auto" {
				t.Errorf("Name before any line = %q, want auto", p.Name())
			}
			got := feed(p, data)
			if p.Name() != tc.parser {
				t.Errorf("auto chose %q, want %q", p.Name(), tc.parser)
			}
			want := feed(mustParser(t, tc.parser), data)
			if len(got) != len(want) {
				t.Fatalf("auto gave %d records, %s %d", len(got), tc.parser, len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if g.End != w.End || g.Record.Text != w.Record.Text || g.Record.Stack != w.Record.Stack || g.Record.Level != w.Record.Level {
					t.Errorf("record %d: auto %+v, %s %+v", i, g, tc.parser, w)
				}
			}
		})
	}
}

// TestParse_AutoStartMidFile: detection from lines that are not a file's
// first (a follower that starts at the end of a long log).
func TestParse_AutoStartMidFile(t *testing.T) {
	f := func(text, parser string) {
		t.Helper()
		p := mustParser(t, "auto")
		es := feed(p, []byte(text)) // fewer lines than detectLines: the flush decides
		if p.Name() != parser {
			t.Errorf("%q: auto chose %q, want %q", text, p.Name(), parser)
		}
		if len(es) == 0 || es[len(es)-1].End != int64(len(text)) {
			t.Errorf("%q: entries %+v do not cover the text", text, es)
		}
	}
	f("Player:Update () (at Assets/Scripts/Player.cs:42)\n\n(Filename: Assets/Scripts/Player.cs Line: 42)\n", "unity")
	f("Refreshing native plugins compatible for Editor in 0.70 ms, found 0 plugins.\nPreloading 0 native plugins for Editor in 0.00 ms.\n", "unity")
	f("[12:00:00] [Render thread/INFO] (Minecraft) Setting user: Dev\n", "log4j")
	f("[29Jun2023 12:00:00.123] [main/INFO] [cpw.mods.modlauncher.Launcher/MODLAUNCHER]: ModLauncher running\n", "log4j")
	f("ERROR: Condition \"!is_inside_tree()\" is true. Returning: Transform3D()\n   at: get_global_transform (scene/3d/node_3d.cpp:343)\n", "godot")
	f("Loading res://levels/level_02.tscn\nenemy spawned\n", "godot")
	f("hello\nworld\n", "generic")
	f("ERROR: disk full\nretrying\n", "generic") // one weak hint is not enough
	// Logs that hold only a Unity crash dump (real excerpts, testdata/unity).
	f("Received signal SIGSEGV\nStack trace:\n0x000001a292aa11c7 (Mono JIT Code) (wrapper managed-to-native) UnityEngine.RectOffset:Remove_Injected (UnityEngine.RectOffset,UnityEngine.Rect&,UnityEngine.Rect&)\n", "unity")
	f("\tScene opening time: \t\t\t0.328 seconds\nCaught fatal signal - signo:11 code:1 errno:0 addr:(nil)\nObtained 12 stack frames.\n#0  0x007f613be3a8a0 in funlockfile\n", "unity")
	f("Crash!!!\nSymInit: Symbol-SearchPath: '.;C:\\Game', symOptions: 530, UserName: 'u'\n", "unity")
}

// TestParse_AutoHoldsUntilSure: nothing comes out while the format is
// unclear; a proving line releases what was held.
func TestParse_AutoHoldsUntilSure(t *testing.T) {
	p := mustParser(t, "auto")
	var off int64
	line := func(s string) []Entry {
		off += int64(len(s) + 1)
		return p.Line(s, off)
	}
	for i := range 5 {
		if es := line(fmt.Sprintf("tick %d", i)); len(es) != 0 {
			t.Fatalf("line %d: %d entries before the format is known", i, len(es))
		}
	}
	es := line("UnityEngine.Debug:Log (object)")
	if p.Name() != "unity" || len(es) != 4 {
		t.Fatalf("after a Unity frame: parser %q, %d entries; want unity, 4 of the 5 held", p.Name(), len(es))
	}
	es = p.Flush()
	if len(es) != 1 || es[0].Record.Text != "tick 4" || es[0].Record.Stack != "UnityEngine.Debug:Log (object)" || es[0].End != off {
		t.Errorf("flushed %+v, want tick 4 with its frame, ending at %d", es, off)
	}
}

// TestParse_AutoGivesUp: after detectLines lines of nothing known, the
// generic parser takes over without a flush.
func TestParse_AutoGivesUp(t *testing.T) {
	p := mustParser(t, "auto")
	var n int
	var off int64
	for i := range detectLines {
		s := fmt.Sprintf("tick %d", i)
		off += int64(len(s) + 1)
		n += len(p.Line(s, off))
	}
	if p.Name() != "generic" || n != detectLines-1 {
		t.Errorf("after %d lines: parser %q, %d entries; want generic, %d", detectLines, p.Name(), n, detectLines-1)
	}
}

func TestParse_Log4jHeaders(t *testing.T) {
	f := func(line string, level oplog.Level, name string, tm time.Time, text, data string) {
		t.Helper()
		r, ok := parseOne(t, "log4j", line)
		if !ok {
			return
		}
		if r.Level != level || r.Name != name || !r.Time.Equal(tm) || r.Text != text || string(r.Data) != data {
			t.Errorf("%q:\n got %s name=%q time=%v text=%q data=%s\nwant %s name=%q time=%v text=%q data=%s",
				line, r.Level, r.Name, r.Time, r.Text, r.Data, level, name, tm, text, data)
		}
	}
	day := func(h, m, s, ms int) time.Time { return time.Date(2026, 3, 1, h, m, s, ms*1e6, time.UTC) }
	f("[12:34:56] [Server thread/INFO]: Starting minecraft server version 1.20.1", oplog.LevelInfo, "Server thread", day(12, 34, 56, 0),
		"Starting minecraft server version 1.20.1", "")
	f("[12:34:56] [Render thread/WARN] (Minecraft) Missing sound for event: minecraft:item.goat_horn.play", oplog.LevelWarn, "Minecraft", day(12, 34, 56, 0),
		"Missing sound for event: minecraft:item.goat_horn.play", `{"thread":"Render thread"}`)
	f("[12:34:56] [main/INFO] [cp.mo.mo.Launcher/MODLAUNCHER]: ModLauncher running: args [--launchTarget, forgeclient]", oplog.LevelInfo, "cp.mo.mo.Launcher",
		day(12, 34, 56, 0), "ModLauncher running: args [--launchTarget, forgeclient]", `{"thread":"main","marker":"MODLAUNCHER"}`)
	// The client's main loop's crash handler: it shows the crash report and stops.
	f("[08Aug.2023 16:21:34.441] [Render thread/ERROR] [net.minecraft.client.Minecraft/FATAL]: Reported exception thrown!", oplog.LevelFatal,
		"net.minecraft.client.Minecraft", time.Date(2023, 8, 8, 16, 21, 34, 441e6, time.UTC), "Reported exception thrown!",
		`{"thread":"Render thread","marker":"FATAL"}`)
	f("[29Jun2023 09:05:00.002] [main/DEBUG] [net.minecraftforge.fml.loading.FMLLoader/CORE]: Found JavaFML", oplog.LevelDebug,
		"net.minecraftforge.fml.loading.FMLLoader", time.Date(2023, 6, 29, 9, 5, 0, 2e6, time.UTC), "Found JavaFML",
		`{"thread":"main","marker":"CORE"}`)
	f("[12:34:56 INFO]: Done (3.214s)! For help, type \"help\"", oplog.LevelInfo, "", day(12, 34, 56, 0), `Done (3.214s)! For help, type "help"`, "")
	f("[12:34:56.789] [Netty Server IO #3/FATAL]: Out of memory", oplog.LevelFatal, "Netty Server IO #3", day(12, 34, 56, 789), "Out of memory", "")
	// A task that threw, logged FATAL: the game goes on.
	f("[12:34:56] [Client thread/FATAL]: Error executing task", oplog.LevelError, "Client thread", day(12, 34, 56, 0), "Error executing task", "")
	f("[12:34:56] [Render thread/FATAL]: Error executing task on Client", oplog.LevelError, "Render thread", day(12, 34, 56, 0), "Error executing task on Client", "")
	f("[2026-02-28 23:00:00] [main/TRACE]: a full date", oplog.LevelDebug, "main", time.Date(2026, 2, 28, 23, 0, 0, 0, time.UTC), "a full date", "")
	f("[12:34:56] [Worker-Main-2/ERROR]:", oplog.LevelError, "Worker-Main-2", day(12, 34, 56, 0), "", "")
}

// TestParse_Log4jNotHeaders: lines that look almost like a header join the
// entry before.
func TestParse_Log4jNotHeaders(t *testing.T) {
	f := func(line string) {
		t.Helper()
		es := parse(t, "log4j", "[10:00:00] [main/INFO]: before\n"+line+"\n")
		if len(es) != 1 || es[0].Record.Stack != line {
			t.Errorf("%q: %+v, want it in the stack of the entry before", line, es)
		}
	}
	f("[12:34:56]")
	f("[12:34:56] plain text")
	f("[12:34:56] [main]: no level")
	f("[12:34:56] [main/LOUD]: unknown level")
	f("[99:00:00] [main/INFO]: bad time")
	f("[STDOUT] hello")
	f("[]")
	f("[1] first")
}

// TestParse_Log4jStderr: printStackTrace through System.err, one log
// call per line, is one error record with the exception as its stack.
func TestParse_Log4jStderr(t *testing.T) {
	text := `[10:00:00] [Render thread/INFO]: [STDERR]: java.io.FileNotFoundException: config/pipes.toml (No such file or directory)
[10:00:00] [Render thread/INFO]: [STDERR]: 	at java.base/java.io.FileInputStream.open0(Native Method)
[10:00:00] [Render thread/INFO]: [STDERR]: 	at com.example.pipes.Config.load(Config.java:40)
[10:00:00] [Render thread/INFO] (Minecraft) [STDERR]: 	at com.example.pipes.PipesMod.onInitialize(PipesMod.java:22)
[10:00:01] [Render thread/INFO]: [STDERR]: done
[10:00:01] [Server thread/INFO]: [STDERR]: 	at other.thread(X.java:1)
`
	es := parse(t, "log4j", text)
	if len(es) != 3 {
		t.Fatalf("%d entries, want 3: %+v", len(es), es)
	}
	r := es[0].Record
	want := "java.io.FileNotFoundException: config/pipes.toml (No such file or directory)\n" +
		"\tat java.base/java.io.FileInputStream.open0(Native Method)\n\tat com.example.pipes.Config.load(Config.java:40)\n" +
		"\tat com.example.pipes.PipesMod.onInitialize(PipesMod.java:22)"
	if r.Level != oplog.LevelError || r.Stack != want || r.Text != "[STDERR]: java.io.FileNotFoundException: config/pipes.toml (No such file or directory)" {
		t.Errorf("stderr trace: %s %q stack\n%s", r.Level, r.Text, r.Stack)
	}
	if es[1].Record.Text != "[STDERR]: done" || es[1].Record.Level != oplog.LevelInfo {
		t.Errorf("entry after the trace: %+v", es[1].Record)
	}
	if es[2].Record.Name != "Server thread" || es[2].Record.Stack != "" {
		t.Errorf("a frame from another thread joined: %+v", es[2].Record)
	}
}

// TestParse_Log4jPrefixedTrace: an exception a logger printed with the
// header on every line is one record, as when its lines come bare; a
// message that starts "at" or a frame of another level stays its own.
func TestParse_Log4jPrefixedTrace(t *testing.T) {
	text := `[18:17:19] [Render thread/INFO]: Building chunk meshes
[18:17:19] [Render thread/FATAL]: Unreported exception thrown!
[18:17:19] [Render thread/FATAL]: java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds for length 3
[18:17:19] [Render thread/FATAL]: 	at Game.tesselate(Game.java:10)
[18:17:19] [Render thread/FATAL]: Caused by: java.lang.IllegalStateException: bad mesh
[18:17:19] [Render thread/FATAL]: 	... 2 more
[18:17:20] [Render thread/ERROR]: java.io.IOException: disk gone
[18:17:20] [Render thread/ERROR]: 	at Save.write(Save.java:4)
[18:17:20] [Render thread/INFO]: 	at Save.flush(Save.java:9)
[18:17:21] [Render thread/INFO]: Waiting for chunks
[18:17:21] [Render thread/INFO]: at least 3 players
[18:17:22] [Render thread/WARN]: Retrying
[18:17:22] [Render thread/WARN]: java.net.SocketException: reset
`
	es := parse(t, "log4j", text)
	var got []string
	for _, e := range es {
		got = append(got, e.Record.Level.String()+" "+e.Record.Text+" | "+strings.ReplaceAll(e.Record.Stack, "\n", " / "))
	}
	want := []string{
		"info Building chunk meshes | ",
		"fatal Unreported exception thrown! | java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds for length 3 / " +
			"\tat Game.tesselate(Game.java:10) / Caused by: java.lang.IllegalStateException: bad mesh / \t... 2 more",
		"error java.io.IOException: disk gone | java.io.IOException: disk gone / \tat Save.write(Save.java:4)",
		"info \tat Save.flush(Save.java:9) | ",
		"info Waiting for chunks | ",
		"info at least 3 players | ",
		"warn Retrying | ",
		"warn java.net.SocketException: reset | ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParse_GenericHeaders(t *testing.T) {
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
	f("2026-03-01T12:00:00Z ERROR something broke", oplog.LevelError, "", "something broke", utc(12, 0, 0, 0))
	f("2026-03-01 12:00:00.250 [WARN] disk at 91%", oplog.LevelWarn, "", "disk at 91%", utc(12, 0, 0, 250))
	f("2026-03-01T14:00:00+02:00 info: zone", oplog.LevelInfo, "", "zone", utc(12, 0, 0, 0))
	f("2026-03-01T14:00:00.5-0130 fatal: zone", oplog.LevelFatal, "", "zone", utc(15, 30, 0, 500))
	f("[2026-03-01 12:00:00] <debug> bracketed", oplog.LevelDebug, "", "bracketed", utc(12, 0, 0, 0))
	f("12:00:01.5 TRACE time of day only", oplog.LevelDebug, "", "time of day only", utc(12, 0, 1, 500))
	f("[12:00:01] CRITICAL reactor", oplog.LevelFatal, "", "reactor", utc(12, 0, 1, 0))
	f("WARNING:py.warnings:deprecated call", oplog.LevelWarn, "py.warnings", "deprecated call", time.Time{})
	// Python's "%(levelname)s %(name)s: %(message)s": a dotted name in lower
	// case is the logger's; a word, an exception's class, is the message's.
	f("2026-03-01 12:00:00,250 ERROR    game.world: spawn failed", oplog.LevelError, "game.world", "spawn failed", utc(12, 0, 0, 250))
	f("[WARNING] game.net.client: reconnecting", oplog.LevelWarn, "game.net.client", "reconnecting", time.Time{})
	f("ERROR failed: no spawn point", oplog.LevelError, "", "failed: no spawn point", time.Time{})
	f("ERROR pygame.error: video system not initialized", oplog.LevelError, "", "pygame.error: video system not initialized", time.Time{})
	// PyInstaller's bootloader: its name, process and level in brackets.
	f("[PYI-14860:ERROR] Failed to execute script 'main' due to unhandled exception!", oplog.LevelError, "PYI",
		"Failed to execute script 'main' due to unhandled exception!", time.Time{})
	// Two level words: the stronger.
	f("FATAL ERROR: could not open config.json", oplog.LevelFatal, "", "could not open config.json", time.Time{})
	f("[12:00:01] SCRIPT ERROR: bad call", oplog.LevelError, "", "bad call", utc(12, 0, 1, 0))
	f("[FATAL ERROR] could not open config.json", oplog.LevelFatal, "", "could not open config.json", time.Time{})
	// What the libraries a game runs on print of their own, the library the name.
	f("libpng warning: iCCP: known incorrect sRGB profile", oplog.LevelWarn, "libpng", "iCCP: known incorrect sRGB profile", time.Time{})
	f("[S_API FAIL] SteamAPI_Init() failed; SteamAPI_IsSteamRunning() failed.", oplog.LevelError, "Steam",
		"SteamAPI_Init() failed; SteamAPI_IsSteamRunning() failed.", time.Time{})
	f("[LWJGL] GLFW_API_UNAVAILABLE error", oplog.LevelError, "LWJGL", "GLFW_API_UNAVAILABLE error", time.Time{})
	f("MESA: error: ZINK: failed to choose pdev", oplog.LevelError, "MESA", "ZINK: failed to choose pdev", time.Time{})
	f("Glfw Error 65544: X11: The DISPLAY environment variable is missing", oplog.LevelError, "Glfw", "X11: The DISPLAY environment variable is missing", time.Time{})
	f("Validation Error: [ VUID-vkCmdDraw-None-02699 ] Object 0: handle = 0x1", oplog.LevelError, "Vulkan",
		"Validation Error: [ VUID-vkCmdDraw-None-02699 ] Object 0: handle = 0x1", time.Time{})
	f("AL lib: (EE) ALCplaybackAlsa_open: Could not open playback device 'default'", oplog.LevelError, "OpenAL",
		"ALCplaybackAlsa_open: Could not open playback device 'default'", time.Time{})
	f("ALSA lib pcm.c:2664:(snd_pcm_open_noupdate) Unknown PCM default", oplog.LevelWarn, "ALSA", "pcm.c:2664:(snd_pcm_open_noupdate) Unknown PCM default", time.Time{})
	f("FATAL error: the save is gone", oplog.LevelFatal, "", "error: the save is gone", time.Time{})
	// Panda3D's Notify: the category its name, the severity in parentheses, none at info.
	f(":display:x11display(error): BadValue (integer parameter out of range for operation)", oplog.LevelError, "display:x11display",
		"BadValue (integer parameter out of range for operation)", time.Time{})
	f(":ShowBase(warning): Unable to open 'onscreen' window.", oplog.LevelWarn, "ShowBase", "Unable to open 'onscreen' window.", time.Time{})
	f(":display: Using threading model Cull/Draw", oplog.LevelInfo, "display", "Using threading model Cull/Draw", time.Time{})
	f(":pnmimage:png(debug): PNG version 10637", oplog.LevelDebug, "pnmimage:png", "PNG version 10637", time.Time{})
	f("12:00:01 [SCRIPT ERROR] bad call", oplog.LevelError, "", "bad call", utc(12, 0, 1, 0))
	f("INFO: no name", oplog.LevelInfo, "", "no name", time.Time{})
	f("Error loading texture ship.png", oplog.LevelError, "", "Error loading texture ship.png", time.Time{})
	f("error: linker failed", oplog.LevelError, "", "linker failed", time.Time{})
	f("Debug mode enabled", oplog.LevelInfo, "", "Debug mode enabled", time.Time{})
	f("Player ERROR count 3", oplog.LevelInfo, "", "Player ERROR count 3", time.Time{})
	// plog (C++): the thread's number is no name, the function is;
	// Boost.Log's thread, an address, neither.
	f("2026-03-01 12:00:01.513 FATAL [4832] [World::spawnEnemy@58] no template for orc", oplog.LevelFatal, "World::spawnEnemy", "no template for orc", utc(12, 0, 1, 513))
	f("2026-03-01 12:00:01.514 WARN  [4832] missing texture", oplog.LevelWarn, "", "missing texture", utc(12, 0, 1, 514))
	f("2026-03-01 12:00:01.515 ERROR [Loader::load@12] could not open level3.dat", oplog.LevelError, "Loader::load", "could not open level3.dat", utc(12, 0, 1, 515))
	f("[2026-03-01 12:00:01.517] [0x00007f1234567890] [error]   Boost.Log says hi", oplog.LevelError, "", "Boost.Log says hi", utc(12, 0, 1, 517))
	f("2026-03-01 12:00:01.518 ERROR [worker-3] [spawn@12] a thread's name stays", oplog.LevelError, "worker-3", "[spawn@12] a thread's name stays", utc(12, 0, 1, 518))
	// Serilog's console ("[HH:mm:ss LVL] msg") and file sink (the zone
	// after a space, the level in brackets).
	f("[12:00:01 ERR] Could not spawn orc", oplog.LevelError, "", "Could not spawn orc", utc(12, 0, 1, 0))
	f("[12:00:01 WRN] slow frame", oplog.LevelWarn, "", "slow frame", utc(12, 0, 1, 0))
	f("2026-03-01 13:00:00.123 +01:00 [ERR] Could not spawn orc", oplog.LevelError, "", "Could not spawn orc", utc(12, 0, 0, 123))
	f("2026-03-01 07:00:00.123 -05:00 [INF] ready", oplog.LevelInfo, "", "ready", utc(12, 0, 0, 123))
	// logfmt (slog's TextHandler, logrus): the message, then the other
	// pairs as written; the time and level are the record's.
	f("time=2026-03-01T12:00:00Z level=warn msg=\"slow frame\" ms=41", oplog.LevelWarn, "", "slow frame ms=41", utc(12, 0, 0, 0))
	f("time=2026-03-01T12:00:00Z level=ERROR source=/home/dev/game/main.go:42 msg=\"say \\\"hi\\\"\" err=\"x y\"", oplog.LevelError, "",
		"say \"hi\" source=/home/dev/game/main.go:42 err=\"x y\"", utc(12, 0, 0, 0))
	f("level=info ts=2026-03-01T12:00:00Z caller=main.go:12 msg=started", oplog.LevelInfo, "", "started caller=main.go:12", utc(12, 0, 0, 0))
	f("2026-03-01 12:00:00,001 - game.ai - ERROR - path not found", oplog.LevelError, "game.ai", "path not found", utc(12, 0, 0, 1))
	f("2026-03-01 12:00:00 [Physics] WARN too many contacts", oplog.LevelWarn, "Physics", "too many contacts", utc(12, 0, 0, 0))
	f("[2026-03-01T12:00:00Z INFO  bevy_render::renderer] AdapterInfo { name: \"llvmpipe\" }", oplog.LevelInfo, "bevy_render::renderer",
		"AdapterInfo { name: \"llvmpipe\" }", utc(12, 0, 0, 0))
	f("0001-01-01T00:00:00Z ERROR year out of range", oplog.LevelError, "", "year out of range", time.Time{})
	f("2026-03-01 12:00:00 [Render thread/WARN]: slow chunk", oplog.LevelWarn, "Render thread", "slow chunk", utc(12, 0, 0, 0))
	f("[main/ERROR] no save", oplog.LevelError, "main", "no save", time.Time{})
	f("[a/b] no level", oplog.LevelInfo, "", "[a/b] no level", time.Time{})
	f("SCRIPT ERROR: spawn_enemy: Invalid get index 'orc'", oplog.LevelError, "", "spawn_enemy: Invalid get index 'orc'", time.Time{})
	f("USER WARNING: low health", oplog.LevelWarn, "", "low health", time.Time{})
	f("GAME OVER: you died", oplog.LevelInfo, "", "GAME OVER: you died", time.Time{})
}

func TestParse_GenericTraces(t *testing.T) {
	// f parses text and checks the number of entries and the first one's
	// level and stack lines.
	f := func(name, text string, n int, level oplog.Level, stackLines int) {
		t.Helper()
		es := parse(t, "generic", text)
		if len(es) != n {
			t.Errorf("%s: %d entries, want %d: %+v", name, len(es), n, es)
			return
		}
		r := es[0].Record
		lines := 0
		if r.Stack != "" {
			lines = strings.Count(r.Stack, "\n") + 1
		}
		if r.Level != level || lines != stackLines {
			t.Errorf("%s: %s with %d stack lines, want %s with %d:\n%s", name, r.Level, lines, level, stackLines, r.Stack)
		}
	}
	f("GoPanic", "panic: runtime error: index out of range [5] with length 3\n\ngoroutine 1 [running]:\nmain.(*World).spawn(0xc000012345)\n"+
		"\t/home/dev/game/world.go:88 +0x1d\nmain.main()\n\t/home/dev/game/main.go:12 +0x25\nexit status 2\n", 1, oplog.LevelFatal, 6)
	f("Lua", "game/ai.lua:12: attempt to index a nil value (field 'target')\nstack traceback:\n\t[C]: in function 'error'\n"+
		"\tgame/ai.lua:12: in method 'think'\nnext line\n", 2, oplog.LevelError, 3)
	f("JavaScript", "TypeError: Cannot read properties of undefined (reading 'x')\n    at update (game.js:40:12)\n    at loop (game.js:90:3)\n", 1, oplog.LevelError, 2)
	f("PythonChained", "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nKeyError: 'a'\n\n"+
		"During handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n"+
		"  File \"a.py\", line 3, in <module>\nValueError: b\nafter\n", 2, oplog.LevelError, 7)
	f("AtProse", "Waiting for players\nat least 2 are needed\n", 2, oplog.LevelInfo, 0)
}

func TestParse_GodotVariants(t *testing.T) {
	t.Run("Godot3", func(t *testing.T) {
		es := parse(t, "godot", "SCRIPT ERROR: _process: Invalid get index 'position' (on base: 'null instance').\n   At: res://player.gd:12.\n"+
			"ERROR: get_node: Node not found: Sprite.\n   At: scene/main/node.cpp:1371.\n")
		if len(es) != 2 {
			t.Fatalf("%d entries", len(es))
		}
		checkEntry(t, 0, es[0], want{level: oplog.LevelError, name: "script", text: "Invalid get index 'position' (on base: 'null instance').",
			stack: ptr("at _process (res://player.gd:12)"), data: `{"srcFile":"res://player.gd","srcLine":12,"function":"_process"}`})
		checkEntry(t, 1, es[1], want{level: oplog.LevelError, text: "Node not found: Sprite.",
			stack: ptr("at get_node (scene/main/node.cpp:1371)")})
	})
	t.Run("Backtrace", func(t *testing.T) {
		es := parse(t, "godot", "USER ERROR: Save failed: disk full\n   at: push_error (core/variant/variant_utility.cpp:1024)\n"+
			"   GDScript backtrace (most recent call first):\n       [0] save_game (res://save.gd:30)\n       [1] _on_quit (res://main.gd:8)\n")
		if len(es) != 1 {
			t.Fatalf("%d entries", len(es))
		}
		checkEntry(t, 0, es[0], want{level: oplog.LevelError, text: "Save failed: disk full",
			stack: ptr("at push_error (core/variant/variant_utility.cpp:1024)\nGDScript backtrace (most recent call first):\n" +
				"at save_game (res://save.gd:30)\nat _on_quit (res://main.gd:8)")})
		_, _, frames := crash.Signature(es[0].Record.Stack)
		if strings.Join(frames, ",") != "push_error,save_game,_on_quit" {
			t.Errorf("crash frames %q", frames)
		}
	})
	t.Run("Crash", func(t *testing.T) {
		text := "Quitting\n================================================================\nhandle_crash: Program crashed with signal 11\n" +
			"Engine version: Godot Engine v4.2.1.stable.official (b09f793f564a6c95dc76acc654b390e68441bd01)\n" +
			"Dumping the backtrace. Please include this when reporting the bug to the project developer.\n" +
			"[1] /lib/x86_64-linux-gnu/libc.so.6(+0x42520) [0x7f1c0d242520] (??:0)\n[2] Node::get_child(int, bool) const (??:0)\n" +
			"-- END OF BACKTRACE --\n================================================================\n"
		es := parse(t, "godot", text)
		if len(es) != 2 {
			t.Fatalf("%d entries: %+v", len(es), es)
		}
		checkEntry(t, 1, es[1], want{level: oplog.LevelFatal, name: "crash", text: "Program crashed with signal 11",
			stack: ptr("at libc.so.6+42520\nat Node::get_child\n-- END OF BACKTRACE --"),
			data:  `{"engineVersion":"Godot Engine v4.2.1.stable.official (b09f793f564a6c95dc76acc654b390e68441bd01)"}`,
			end:   int64(len(text))})
	})
	t.Run("IndentedPrint", func(t *testing.T) {
		es := parse(t, "godot", "inventory:\n  sword\n  shield\n")
		if len(es) != 3 {
			t.Errorf("print output with indentation: %d entries, want 3", len(es))
		}
	})
}

func TestParse_UnityVariants(t *testing.T) {
	t.Run("FullStackLogError", func(t *testing.T) {
		es := parse(t, "unity", "Save failed\nUnityEngine.Debug:ExtractStackTraceNoAlloc (byte*,int,string)\nUnityEngine.StackTraceUtility:ExtractStackTrace ()\n"+
			"UnityEngine.DebugLogHandler:Internal_Log (UnityEngine.LogType,UnityEngine.LogOption,string,UnityEngine.Object)\n"+
			"UnityEngine.Logger:Log (UnityEngine.LogType,object)\nUnityEngine.Debug:LogError (object)\nSaveSystem:Write () (at Assets/SaveSystem.cs:12)\n\n"+
			"(Filename: Assets/SaveSystem.cs Line: 12)\n\n")
		if len(es) != 1 || es[0].Record.Level != oplog.LevelError || strings.Count(es[0].Record.Stack, "\n") != 5 {
			t.Errorf("got %+v", es)
		}
	})
	t.Run("OldStyleFrames", func(t *testing.T) {
		es := parse(t, "unity", "Could not save\nUnityEngine.Debug:LogWarning(Object)\nMapEditor:Save() (at Assets/Scripts/MapEditor.cs:156)\n"+
			"UnityEngine.EventSystems.EventSystem:Update()\n \n(Filename: Assets/Scripts/MapEditor.cs Line: 156)\n\nnext\n")
		if len(es) != 2 || es[0].Record.Level != oplog.LevelWarn || strings.Count(es[0].Record.Stack, "\n") != 2 {
			t.Errorf("got %+v", es)
		}
	})
	t.Run("PlayerRelease", func(t *testing.T) {
		text := "NullReferenceException: Object reference not set to an instance of an object.\n" +
			"  at Player.Update () [0x00012] in <9f3c2a1b0d4e4f6a8b7c6d5e4f3a2b1c>:0 \n \n(Filename: <9f3c2a1b0d4e4f6a8b7c6d5e4f3a2b1c> Line: 0)\n\n"
		es := parse(t, "unity", text)
		if len(es) != 1 {
			t.Fatalf("got %+v", es)
		}
		checkEntry(t, 0, es[0], want{level: oplog.LevelError, text: "NullReferenceException: Object reference not set to an instance of an object.",
			stack: ptr("  at Player.Update () [0x00012] in <9f3c2a1b0d4e4f6a8b7c6d5e4f3a2b1c>:0"),
			data:  `{"srcFile":"<9f3c2a1b0d4e4f6a8b7c6d5e4f3a2b1c>","srcLine":0}`, end: int64(len(text))})
	})
	t.Run("Assertion", func(t *testing.T) {
		es := parse(t, "unity", "Assertion failed: Value was False\nUnityEngine.Assertions.Assert:IsTrue (bool) (at Assets/A.cs:3)\n")
		if len(es) != 1 || es[0].Record.Level != oplog.LevelError {
			t.Errorf("got %+v", es)
		}
	})
	t.Run("NativeCrash", func(t *testing.T) {
		es := parse(t, "unity", "Caught fatal signal - signo:11 code:1 errno:0 addr:(nil)\nObtained 3 stack frames.\n"+
			"#0  0x007f45a8c3e520 in funlockfile\n#1  0x007f45a3b2c1d0 in MonoBehaviour::CallMethodIfAvailable(int)\n"+
			"#2  0x007f45a3b2c9f0 in PlayerLoop()\nUnloading 0 unused Assets\n")
		if len(es) != 2 || es[0].Record.Level != oplog.LevelFatal || strings.Count(es[0].Record.Stack, "\n") != 3 {
			t.Fatalf("got %+v", es)
		}
		if _, _, frames := crash.Signature(es[0].Record.Stack); len(frames) != 3 {
			t.Errorf("crash frames %q", frames)
		}
	})
	t.Run("WindowsCrash", func(t *testing.T) {
		es := parse(t, "unity", "Crash!!!\nSymInit: Symbol-SearchPath: '.;C:\\Games\\Run', symOptions: 534, UserName: 'dev'\n\n"+
			"========== OUTPUTTING STACK TRACE ==================\n\n0x00007FFB3F2A1234 (UnityPlayer) UnityMain\n"+
			"========== END OF STACKTRACE ===========\nA crash has been intercepted by the crash handler.\n")
		if len(es) != 2 || es[0].Record.Level != oplog.LevelFatal || strings.Count(es[0].Record.Stack, "\n") != 3 ||
			es[1].Record.Text != "A crash has been intercepted by the crash handler." {
			t.Errorf("got %+v", es)
		}
	})
	t.Run("Rethrow", func(t *testing.T) {
		es := parse(t, "unity", "InvalidOperationException: load failed\nLoader.Load () (at Assets/Loader.cs:9)\n"+
			"Rethrow as GameException: level 3 missing\nGame.Start () (at Assets/Game.cs:20)\n")
		if len(es) != 1 || strings.Count(es[0].Record.Stack, "\n") != 2 {
			t.Errorf("got %+v", es)
		}
	})
	t.Run("StrayTrailer", func(t *testing.T) {
		es := parse(t, "unity", "(Filename: Assets/Player.cs Line: 3)\n\nHello\n")
		if len(es) != 1 || es[0].Record.Text != "Hello" {
			t.Errorf("got %+v", es)
		}
	})
	t.Run("Timestamps", func(t *testing.T) {
		es := parse(t, "unity", "2026-03-01T12:00:00.500Z|Hello\n2026-03-01T12:00:00.501Z|UnityEngine.Debug:Log (object)\n")
		if len(es) != 1 || es[0].Record.Text != "Hello" || !es[0].Record.Time.Equal(time.Date(2026, 3, 1, 12, 0, 0, 500e6, time.UTC)) ||
			es[0].Record.Stack != "UnityEngine.Debug:Log (object)" {
			t.Errorf("got %+v", es)
		}
	})
	t.Run("CompilerWithoutPlace", func(t *testing.T) {
		es := parse(t, "unity", "error CS0006: Metadata file 'Library/ScriptAssemblies/Game.dll' could not be found\n")
		if len(es) != 1 || es[0].Record.Level != oplog.LevelError || es[0].Record.Name != "compiler" || es[0].Record.Stack != "" ||
			es[0].Record.Data != nil {
			t.Errorf("got %+v", es)
		}
	})
}

// TestParse_Clock: a time of day is on the file's date, in its zone, and
// on the day before when that would be in the future.
func TestParse_Clock(t *testing.T) {
	zone := time.FixedZone("CET", 3600)
	mtime := time.Date(2026, 3, 2, 0, 10, 0, 0, zone) // written just after midnight
	p, err := newParser("log4j", func() time.Time { return mtime }, func() time.Time { return mtime.Add(5 * time.Minute) })
	if err != nil {
		t.Fatal(err)
	}
	es := feed(p, []byte("[23:59:58] [main/INFO]: before midnight\n[00:00:03] [main/INFO]: after midnight\n"))
	if want := time.Date(2026, 3, 1, 23, 59, 58, 0, zone); !es[0].Record.Time.Equal(want) {
		t.Errorf("before midnight: %v, want %v", es[0].Record.Time, want)
	}
	if want := time.Date(2026, 3, 2, 0, 0, 3, 0, zone); !es[1].Record.Time.Equal(want) {
		t.Errorf("after midnight: %v, want %v", es[1].Record.Time, want)
	}
	// Following live: lines newer than the date the parser was made with
	// stay on that day.
	opened := time.Date(2026, 3, 2, 10, 0, 0, 0, zone)
	p, _ = newParser("log4j", func() time.Time { return opened }, func() time.Time { return opened.Add(90 * time.Minute) })
	es = feed(p, []byte("[11:30:00] [main/INFO]: later\n"))
	if want := time.Date(2026, 3, 2, 11, 30, 0, 0, zone); !es[0].Record.Time.Equal(want) {
		t.Errorf("live: %v, want %v", es[0].Record.Time, want)
	}
}

// TestParse_EntryLimits: a run of continuation lines longer than an entry
// may hold is cut into several entries, losing no line.
func TestParse_EntryLimits(t *testing.T) {
	for _, name := range []string{"unity", "log4j", "godot", "generic"} {
		var b strings.Builder
		switch name {
		case "log4j":
			b.WriteString("[10:00:00] [main/ERROR]: huge\n")
		default:
			b.WriteString("ERROR: huge\n")
		}
		n := maxEntryLines + 500
		for i := range n {
			fmt.Fprintf(&b, "    at frame%d (file.x:%d)\n", i, i)
		}
		es := parse(t, name, b.String())
		lines := 0
		for _, e := range es {
			lines++
			if e.Record.Stack != "" {
				lines += strings.Count(e.Record.Stack, "\n") + 1
			}
			if len(e.Record.Stack) > maxEntryStack {
				t.Errorf("%s: a stack of %d bytes", name, len(e.Record.Stack))
			}
		}
		if len(es) < 2 || lines != n+1 || es[len(es)-1].End != int64(b.Len()) {
			t.Errorf("%s: %d entries holding %d lines, want several holding %d", name, len(es), lines, n+1)
		}
	}
}

func TestParse_JSONString(t *testing.T) {
	f := func(s string) {
		t.Helper()
		b := appendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("%q: %s: %v", s, b, err)
			return
		}
		var want strings.Builder
		for _, r := range s {
			want.WriteRune(r) // each invalid byte is U+FFFD
		}
		if got != want.String() {
			t.Errorf("%q: round trip %q", s, got)
		}
	}
	f("plain")
	f(`q"uote\`)
	f("tab\tnl\nnul\x00del\x7f")
	f("é ü 日本")
	f("bad\xff\xfeutf8")
}

func titles(gs []oplog.CrashGroup) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Title
	}
	return out
}
