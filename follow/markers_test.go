package follow

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// markSample parses testdata/name with parser and markers, and returns the
// entries.
func markSample(t *testing.T, name, parser string) []Entry {
	t.Helper()
	return feed(withMarkers(mustParser(t, parser)), readSample(t, name))
}

// markerTrail writes each marker with the text of the line next to it:
// "run<Godot Engine v4...", the entry after a marker put before its entry,
// "compile.failed>Asset Pipeline..." the entry before an outcome.
func markerTrail(es []Entry) []string {
	var out []string
	for i, e := range es {
		if e.Record.Kind != oplog.KindMarker {
			continue
		}
		var next string
		if e.Record.Name == oplog.MarkerCompileOK || e.Record.Name == oplog.MarkerCompileFailed {
			for j := i - 1; j >= 0; j-- {
				if es[j].Record.Kind != oplog.KindMarker {
					next = ">" + es[j].Record.Text
					break
				}
			}
		} else {
			for j := i + 1; j < len(es); j++ {
				if es[j].Record.Kind != oplog.KindMarker {
					next = "<" + es[j].Record.Text
					break
				}
			}
		}
		if len(next) > 40 {
			next = next[:40]
		}
		out = append(out, e.Record.Name+next)
	}
	return out
}

// TestMarkers_Fixtures checks the markers of real logs (and the
// hand-written Editor.log): where they are, their order, one run marker per run.
func TestMarkers_Fixtures(t *testing.T) {
	for _, c := range []struct {
		file, parser string
		want         []string
	}{
		{"unity_editor.log", "unity", []string{
			"run<[Licensing::Module] Trying to connect t",
			"compile.start<[ScriptCompilation] Requested script co", "compile.failed>Asset Pipeline Refresh (id=2c3f5a1e8d7b",
			"compile.start<Reloading assemblies after forced synch", "compile.ok>Mono: successfully reloaded assembly",
			"compile.start<[ScriptCompilation] Requested script co"}},
		// "Mono path[0]" and "Initialize engine version" start one run.
		{"unity/player-2019.4-mod-errors.log", "unity", []string{"run<Mono path[0] = 'C:/Program Files (x86)/"}},
		{"unity/editor-5.5-import-crash.log", "unity", []string{"compile.start<- starting compile Library/ScriptAssemb"}},
		// Three runs; the crash dumps' "Engine version: Godot Engine v" start none.
		{"godot/crash_runs.log", "godot", []string{"run<Godot Engine v4.7.1.stable.official.a13",
			"run<Godot Engine v4.4.1.rc.custom_build.abe", "run<Godot Engine v4.4.1.rc.custom_build.abe"}},
		{"godot.log", "godot", []string{"run<Godot Engine v4.2.1.stable.official.b09"}},
		// A launch's lines before its banner are its run's: the marker goes
		// before the first of them.
		{"minecraft_latest.log", "log4j", []string{"run<Environment: Environment[sessionHost=ht", "exit<Saving players"}},
		{"minecraft/latest-neoforge-1.21.1.log", "log4j", []string{"run<JVM identified as Eclipse Adoptium Open"}},
		{"minecraft/latest-forge-1.12.2.log", "log4j", nil}, // a log's tail: no start
		{"minecraft/crash-2023-12-28_13.21.22-client.txt", "mccrash", nil},
	} {
		t.Run(c.file, func(t *testing.T) {
			es := markSample(t, c.file, c.parser)
			if got := markerTrail(es); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("markers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			plain := feed(mustParser(t, c.parser), readSample(t, c.file))
			var lines []Entry
			for _, e := range es {
				if e.Record.Kind == oplog.KindMarker {
					if !e.Record.Time.Equal(timeOfNext(es, e)) && e.Record.Name == oplog.MarkerRun {
						t.Errorf("run marker time %v, not its line's", e.Record.Time)
					}
					continue
				}
				lines = append(lines, e)
			}
			if len(lines) != len(plain) {
				t.Fatalf("%d records besides the markers, want the parser's %d", len(lines), len(plain))
			}
		})
	}
}

// timeOfNext returns the time of the first record after marker m.
func timeOfNext(es []Entry, m Entry) (zero time.Time) {
	for i := range es {
		if es[i].End == m.End && es[i].Record.Kind != oplog.KindMarker {
			return es[i].Record.Time
		}
	}
	return zero
}

// TestMarkers_Lines is the closure table of the marker rules on single lines.
func TestMarkers_Lines(t *testing.T) {
	for _, c := range []struct {
		parser, text string
		want         []string // "name|level|text" of each marker, in order
	}{
		{"unity", "Built from '2022.3/staging' branch; Version is '2022.3.10f1 (ff3792e53c62) revision 16750306'; Using compiler version '193229919'; Build Type 'Release'\n",
			[]string{"run|info|run started: Unity 2022.3.10f1 (Editor)"}},
		{"unity", "Initialize engine version: 2019.4.30f1 (e8c891080a1f)\n", []string{"run|info|run started: Unity 2019.4.30f1"}},
		{"unity", "- Starting script compilation\nAssets/A.cs(1,2): error CS0103: The name 'x' does not exist in the current context\n" +
			"Assets/A.cs(3,2): error CS0103: The name 'y' does not exist in the current context\n- Finished script compilation in 1.2 seconds\n",
			[]string{"compile.start|info|compile started", "compile.failed|error|compile failed: 2 errors"}},
		{"unity", "-----CompilerOutput:-stdout--exitcode: 1--compilationhadfailure: True--outfile: Temp/Assembly-CSharp.dll\n" +
			"-----EndCompilerOutput---------------\n", nil}, // no start seen: no outcome either
		{"unity", "[ScriptCompilation] Requested script compilation because: Assetdatabase observed changes in script compilation related files\n" +
			"Reloading assemblies after forced synchronous recompile.\nBegin MonoManager ReloadAssembly\n- Completed reload, in  0.421 seconds\n",
			[]string{"compile.start|info|compile started", "compile.ok|info|compile succeeded"}},
		// A domain reload at start-up is no compile.
		{"unity", "Begin MonoManager ReloadAssembly\n- Completed reload, in  0.111 seconds\n", nil},
		{"godot", "Godot Engine v3.5.3.stable.official.6c814135b - https://godotengine.org\n",
			[]string{"run|info|run started: Godot Engine v3.5.3.stable.official.6c814135b"}},
		{"godot", "Engine version: Godot Engine v4.5.dev.custom_build (6a6a1168a5a7b14ef988f3516303b6d67a985ebd)\n", nil},
		{"log4j", "[12:00:00] [main/INFO]: Loading Minecraft 1.20.1 with Fabric Loader 0.14.21\n[12:00:05] [Render thread/INFO]: Setting user: Steve\n",
			[]string{"run|info|run started: Minecraft 1.20.1 (Fabric)"}},
		{"log4j", "[12:00:05] [Render thread/INFO]: Setting user: Steve\n", []string{"run|info|run started: Minecraft client"}},
		{"log4j", "[12:00:00] [main/INFO]: ModLauncher running: args [--launchTarget, forgeclient]\n", []string{"run|info|run started: Minecraft (ModLauncher)"}},
		// The loaders' first lines (real ones: aternosorg/codex-minecraft's logs),
		// then a later banner of the same launch, which starts no other run.
		{"log4j", "[22:50:06] [main/DEBUG] [FML/]: Injecting tracing printstreams for STDOUT/STDERR.\n" +
			"[22:50:07] [main/INFO] [FML/]: Forge Mod Loader version 7.99.40.1614 for Minecraft 1.7.10 loading\n" +
			"[22:50:07] [main/INFO] [LaunchWrapper/]: Loading tweak class name cpw.mods.fml.common.launcher.FMLInjectionAndSortingTweaker\n",
			[]string{"run|info|run started: Minecraft 1.7.10 (Forge)"}},
		{"log4j", "[14:38:52] [main/INFO]: Loading Minecraft 1.19 with Quilt Loader 0.17.1\n[14:39:03] [Render thread/INFO]: Setting user: TayouVR\n",
			[]string{"run|info|run started: Minecraft 1.19 (Quilt)"}},
		{"log4j", "[30Mar2026 12:21:02.922] [main/INFO] [net.neoforged.fml.loading.FMLLoader/]: Starting FancyModLoader version 11.0.3 (CLIENT in DEV)\n",
			[]string{"run|info|run started: Minecraft (NeoForge)"}},
		{"log4j", "[18:38:44] [ServerMain/INFO]: [bootstrap] Loading Paper 1.21.1-115-master@ba3c29b (2024-09-30T02:19:06Z) for Minecraft 1.21.1\n" +
			"[18:39:00] [Server thread/INFO]: Starting minecraft server version 1.21.1\n",
			[]string{"run|info|run started: Minecraft server 1.21.1 (Paper)"}},
		{"unreal", "Log file open, 05/03/19 19:02:29\n", []string{"run|info|run started: Unreal Engine"}},
	} {
		t.Run(c.text, func(t *testing.T) {
			var got []string
			for _, e := range feed(withMarkers(mustParser(t, c.parser)), []byte(c.text)) {
				if r := e.Record; r.Kind == oplog.KindMarker {
					got = append(got, r.Name+"|"+r.Level.String()+"|"+r.Text)
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("markers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestMarkers_BannerAfterCoremods: Forge 1.12's server logs 21 lines
// (binary patches, coremods) before LaunchWrapper's banner; they are the
// launch's, so the run's marker goes before the first of them.
func TestMarkers_BannerAfterCoremods(t *testing.T) {
	var b strings.Builder
	for i := range 21 {
		fmt.Fprintf(&b, "[17:25:43] [main/DEBUG] [FML]: Coremod plugin class Plugin%d run successfully\n", i)
	}
	b.WriteString("[17:25:44] [main/INFO] [LaunchWrapper]: Loading tweak class name net.minecraftforge.fml.common.launcher.TerminalTweaker\n")
	es := feed(withMarkers(mustParser(t, "log4j")), []byte(b.String()))
	var runs []int
	for i, e := range es {
		if e.Record.Kind == oplog.KindMarker && e.Record.Name == oplog.MarkerRun {
			runs = append(runs, i)
		}
	}
	if len(runs) != 1 || runs[0] != 0 {
		t.Fatalf("run markers at %v of %d records; want one, first", runs, len(es))
	}
}

// TestMarkers_StartRun: after a truncation the first entry starts a run,
// once, whether it is a banner or not.
func TestMarkers_StartRun(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"Godot Engine v4.2.1.stable.official.b09f793f5 - https://godotengine.org\nhello\n", "run started: Godot Engine v4.2.1.stable.official.b09f793f5"},
		{"hello\nworld\n", "run started: the log file was truncated"},
	} {
		p := withMarkers(mustParser(t, "godot"))
		p.(*marking).startRun("truncated")
		var got []string
		for _, e := range feed(p, []byte(c.text)) {
			if e.Record.Kind == oplog.KindMarker {
				got = append(got, e.Record.Text)
			}
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%q: markers %q, want one %q", c.text, got, c.want)
		}
	}
}

// TestMarkers_PrefixesListed: every prefix a marker rule compares is in
// markerPrefixes, which lets an entry that matches none skip the rules.
func TestMarkers_PrefixesListed(t *testing.T) {
	src, err := os.ReadFile("markers.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`HasPrefix\(s, ("[^"]*")\)`).FindAllSubmatch(src, -1) {
		p, err := strconv.Unquote(string(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		if !mayMark(p) {
			t.Errorf("the rule prefix %q is not in markerPrefixes: entries starting with it would skip the rules", p)
		}
	}
}

// TestMarkers_Shutdown: an engine's clean-shutdown line is followed by an
// exit marker (level info), so that its run ends exited; a line that only
// looks like one is not.
func TestMarkers_Shutdown(t *testing.T) {
	for _, c := range []struct {
		parser, text string
		exit         bool
	}{
		{"luanti", "2026-12-02 16:30:34: ACTION[Main]: Server: Shutting down", true},
		{"luanti", "2026-12-02 16:30:34: ACTION[Main]: [mymod] Server: Shutting down soon", false},
		{"log4j", "[12:00:01] [Render thread/INFO]: Stopping!", true},
		{"log4j", "[12:00:01] [Server thread/INFO]: Stopping server", true},
		{"unreal", "[2026.03.21-09.17.53:751][  3]LogExit: Exiting.", true},
		{"unreal", "[2026.03.21-09.17.53:751][  3]LogExit: Executing StaticShutdownAfterError", false},
		{"unity", "Exiting batchmode successfully now!", true},
		{"godot", "Exiting.", false},
	} {
		p := withMarkers(mustParser(t, c.parser))
		es := append(p.Line(c.text, int64(len(c.text)+1)), p.Flush()...)
		var exits []oplog.Record
		for _, e := range es {
			if e.Record.Kind == oplog.KindMarker && e.Record.Name == oplog.MarkerExit {
				exits = append(exits, e.Record)
			}
		}
		switch {
		case !c.exit && len(exits) > 0:
			t.Errorf("%s %q: exit marker %+v", c.parser, c.text, exits[0])
		case c.exit && (len(exits) != 1 || exits[0].Level != oplog.LevelInfo || string(exits[0].Data) != `{"reason":"shutdown"}` ||
			es[len(es)-1].Record.Name != oplog.MarkerExit):
			t.Errorf("%s %q: entries %+v, want the line then one exit marker", c.parser, c.text, es)
		}
	}
}

// TestMarkers_Relaunch: in a log the game appends to, its first line again
// right after a line that ended it (a traceback, a fatal line) starts a
// run, whatever numbers differ; after any other line it does not, nor
// when the run printed its first line again before.
func TestMarkers_Relaunch(t *testing.T) {
	tb := "Traceback (most recent call last):\n  File \"g.py\", line 3, in <module>\nKeyError: 'x'\n"
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Game 1.0 (seed 123)\ntick\n" + tb + "Game 1.0 (seed 456)\ntick\n" + tb + "Game 1.0 (seed 789)\ntick\n",
			[]string{"run<Game 1.0 (seed 456)", "run<Game 1.0 (seed 789)"}},
		{"Game 1.0\ntick\nFATAL: out of memory\nGame 1.0\n", []string{"run<Game 1.0"}},
		{"Game 1.0\ntick\nGame 1.0\n" + tb + "tick\n", nil},
		{"Game 1.0\ntick\n" + tb + "Game 1.0 (safe mode)\n", nil},
		// A first line the game prints every frame: after a handled
		// error's traceback the frames go on.
		{"tick 0\ntick 1\n" + tb + "tick 2\n", nil},
		{"tick 0\nload\n" + tb + "tick 0\ntick 1\n" + tb + "tick 2\n", []string{"run<tick 0"}},
	} {
		if got := markerTrail(feed(withMarkers(mustParser(t, "generic")), []byte(c.text))); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: markers %q, want %q", c.text, got, c.want)
		}
	}
}
