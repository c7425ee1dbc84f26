package follow

import (
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// pmmp5Crash is PocketMine-MP 5's server.log around a crash, as its
// MainLogger writes it: an exception's frames are lines of its message,
// without headers; the crash's lines follow, one of its own in between.
const pmmp5Crash = `2024-05-01 [12:00:00.123] [Server thread/INFO]: Loading server configuration
2024-05-01 [12:00:00.200] [Server thread/NOTICE]: Online mode is enabled.
2024-05-01 [12:00:01.000] [Server thread/WARNING]: [Arena] No arenas configured
2024-05-01 [12:00:05.456] [Server thread/CRITICAL]: pocketmine\plugin\PluginException: "Plugin tried to register a listener for an event that does not exist" (EXCEPTION) in "pmsrc/src/plugin/PluginManager" at line 612
--- Stack trace ---
  #0 pmsrc/src/plugin/PluginManager(580): pocketmine\plugin\PluginManager->registerEvent(string[33] pocketmine\event\player\PlayerJoin, int 0)
  #1 plugins/Arena.phar/src/me/arena/Main(41): pocketmine\plugin\PluginManager->registerEvents(object me\arena\EventListener#91011)
  #2 pmsrc/src/plugin/PluginBase(123): me\arena\Main->onEnable()
--- End of exception information ---
2024-05-01 [12:00:05.460] [Server thread/EMERGENCY]: An unrecoverable error has occurred and the server has crashed. Creating a crash dump
2024-05-01 [12:00:05.470] [Server thread/EMERGENCY]: Please upload the "/srv/pmmp/crashdumps/Wed_May_1-12.00.05-UTC_2024.log" file to the Crash Archive and submit the link to the Bug Reporting page. Give as much info as you can.
2024-05-01 [12:00:05.471] [Server thread/DEBUG]: Not sending crashdump due to locally modified
2024-05-01 [12:00:05.490] [Server thread/INFO]: Disabling Arena v1.0.0
`

// TestParse_PocketMine: PocketMine-MP's server.log, detected: the date and
// the time of every line, PSR-3's levels (CRITICAL, an exception it caught,
// is an error; EMERGENCY, its crash, fatal), an exception's frames joined
// whether they came with headers (version 3, at DEBUG) or without (5),
// after the place it was thrown; the crash's lines on the exception, now
// fatal.
func TestParse_PocketMine(t *testing.T) {
	v3 := readSample(t, "minecraft/codex/pocketmine-plugin-runtime-problem.log")
	for _, c := range []struct {
		name, log string
		want      []struct {
			level        oplog.Level
			text, stack0 string
			lines        int
		}
		at time.Time // the crash's time
	}{
		{"v3", string(v3), []struct {
			level        oplog.Level
			text, stack0 string
			lines        int
		}{
			{oplog.LevelWarn, "[AdvancedKits] Bad configuration in kit starter kit.", "", 0},
			{oplog.LevelFatal, `Error: Call to undefined method pocketmine\command\ConsoleCommandSender::dataPacket()`,
				`at shelly7w7\VanillaCoordinates\command\CoordinateCommand->execute() (plugins/VanillaCoordinates.phar/src/shelly7w7/VanillaCoordinates/command/CoordinateCommand:37)`, 14},
		}, time.Date(2020, 2, 22, 22, 2, 37, 0, time.UTC)},
		{"v5", pmmp5Crash, []struct {
			level        oplog.Level
			text, stack0 string
			lines        int
		}{
			{oplog.LevelWarn, "[Arena] No arenas configured", "", 0},
			{oplog.LevelFatal, "pocketmine\\plugin\\PluginException: Plugin tried to register a listener for an event that does not exist",
				"--- Stack trace ---", 8},
		}, time.Date(2024, 5, 1, 12, 0, 5, 456e6, time.UTC)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := mustParser(t, "auto")
			entries := feed(p, []byte(c.log))
			if p.Name() != "log4j" {
				t.Fatalf("parser %q, want log4j", p.Name())
			}
			var notable []Entry
			for _, e := range entries {
				if e.Record.Level >= oplog.LevelWarn {
					notable = append(notable, e)
				}
				if e.Record.Time.IsZero() || e.Record.Time.Year() != c.at.Year() {
					t.Errorf("%q at %v: want its line's date", e.Record.Text, e.Record.Time)
				}
				if strings.HasPrefix(strings.TrimSpace(e.Record.Text), "#") {
					t.Errorf("a frame alone: %q", e.Record.Text)
				}
			}
			if len(notable) != len(c.want) {
				t.Fatalf("%d records at warn and above, want %d: %+v", len(notable), len(c.want), notable)
			}
			for i, w := range c.want {
				r := notable[i].Record
				first, _, _ := strings.Cut(r.Stack, "\n")
				if r.Level != w.level || !strings.HasPrefix(r.Text, w.text) || first != w.stack0 || strings.Count(r.Stack, "\n")+1 != max(w.lines, 1) && w.lines > 0 {
					t.Errorf("record %d: %v %q, stack %q; want %v %q, stack from %q, %d lines", i, r.Level, r.Text, r.Stack, w.level, w.text, w.stack0, w.lines)
				}
			}
			crashRec := notable[len(notable)-1].Record
			if !crashRec.Time.Equal(c.at) || !strings.Contains(crashRec.Stack, "Please upload the ") {
				t.Errorf("the crash at %v, stack %q; want %v and the crash's lines", crashRec.Time, crashRec.Stack, c.at)
			}
		})
	}
}

// TestParse_PocketMineLevels: a plugin that failed to load (CRITICAL) is
// an error, not a crash; NOTICE is info; a log4j header with a date before
// it that is not PocketMine's shape is not read as one.
func TestParse_PocketMineLevels(t *testing.T) {
	loc := time.UTC
	for _, c := range []struct {
		line  string
		ok    bool
		level oplog.Level
		msg   string
	}{
		{"2020-11-26 [11:19:58] [Server thread/CRITICAL]: Could not load plugin 'QuestPlugin': Unknown dependency: Slapper", true, oplog.LevelError, "Could not load plugin 'QuestPlugin': Unknown dependency: Slapper"},
		{"2020-11-26 [11:19:58] [Server thread/ERROR]: Could not load plugin 'Slapper'", true, oplog.LevelError, "Could not load plugin 'Slapper'"},
		{"2020-11-26 [11:20:03] [Server thread/WARNING]: [SkyBlock] Disable the spawn protection", true, oplog.LevelWarn, "[SkyBlock] Disable the spawn protection"},
		{"2019-02-16 [00:48:04] [Server thread/NOTICE]: Online mode is enabled.", true, oplog.LevelInfo, "Online mode is enabled."},
		{"2022-03-29 [00:38:19.573] [Server thread/EMERGENCY]: An unrecoverable error has occurred", true, oplog.LevelFatal, "An unrecoverable error has occurred"},
		{"2020-11-26 [11:19:58] [ALERT]: no thread", false, 0, ""},
		{"2020-13-26 [11:19:58] [Server thread/INFO]: no such month", false, 0, ""},
		{"2020-11-26 [2020-11-26 11:19:58] [Server thread/INFO]: a date twice", false, 0, ""},
	} {
		h, ok := parseLog4jHeader(c.line, loc)
		if ok != c.ok || ok && (h.level != c.level || h.msg != c.msg || !h.date || h.t.Day() != 26 && h.t.Day() != 16 && h.t.Day() != 29) {
			t.Errorf("%q: %v %+v; want %v, %v %q, its date", c.line, ok, h, c.ok, c.level, c.msg)
		}
	}
}

// TestCrashTitles_PocketMine5: PocketMine-MP 5's crash, imported: one
// crash, titled by the exception and the plugin's line past the server's
// frames, that ended the run.
func TestCrashTitles_PocketMine5(t *testing.T) {
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	mustImport(t, l, []byte(pmmp5Crash), ImportOptions{Source: "server"})
	page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: "server", Classes: oplog.CrashClasses, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := `pocketmine\plugin\PluginException: Plugin tried to register a listener for an event that does not exist in me\arena\Main->onEnable() (plugins/Arena.phar/src/me/arena/Main:41)`
	if len(page.Groups) != 1 || page.Groups[0].Class != "crash" || page.Groups[0].Title != want {
		t.Fatalf("groups %+v; want one crash titled %q", page.Groups, want)
	}
	runs, err := l.Runs(t.Context(), "server")
	if err != nil || len(runs) != 1 || runs[0].Outcome != oplog.OutcomeCrashed || runs[0].CrashID != page.Groups[0].LastID {
		t.Errorf("runs %+v (%v); want one, crashed of #%d", runs, err, page.Groups[0].LastID)
	}
}
