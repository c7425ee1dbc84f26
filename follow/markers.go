package follow

import (
	"strconv"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// Markers: a marking parser wraps a format's parser and puts marker records
// (oplog.KindMarker) among its entries: a run marker just before the entry
// that starts a run of the game or editor (its start banner), and compile
// markers around a compile: compile.start before the entry that starts it,
// compile.ok or compile.failed after the entry that ends it. The parsers
// stay what they were; the markers are read from the records they complete.
//
// One run marker per run: a run's start is often several banner lines
// (Unity's "Mono path[0]" then "Initialize engine version", a Minecraft
// launcher's first line then "Setting user:"), so a banner line within
// bannerWindow entries of the last run marker starts no other. A file read
// again after it was truncated or rewritten starts a run too (startRun):
// at its first entry, unless that entry is a banner.

// bannerWindow is how many entries after a run marker may still be banner
// lines of the same run, by format: Unity's and Minecraft's logs are one
// file per run (the start block is long: a modded Minecraft lists its mods
// first); Godot's banner is one line.
func bannerWindow(format string) int {
	switch format {
	case "unity":
		return 200
	case "log4j":
		return 5000
	}
	return 0
}

// marking is a Parser that adds markers to another's entries.
type marking struct {
	p         Parser
	sinceRun  int     // entries since the last run marker; -1 before any
	newRun    string  // set by startRun: why the next entry starts a run
	launched  bool    // the runs are launches (mcplogd run): no banner or parser starts one
	owned     bool    // another writer starts and ends the runs (Options.RunsOwned): no run or exit marker at all
	unit      string  // the systemd service whose starts and ends are the runs (markers_systemd.go)
	unitEnded bool    // its run's end was read
	compiling bool    // a compile started and has no outcome yet
	errors    int     // its compile errors so far
	held      []Entry // a file's first entries, until its banner says whether they start its run (hold)
	early     int     // entries looked at for a banner before any run marker
	skip      int     // entries through the banner whose run marker hold put before them
	relaunchState

	before, after []oplog.Record // markers' room, reused: mark copies what it returns
}

// withMarkers returns p with markers added to its entries.
func withMarkers(p Parser) Parser {
	return &marking{p: p, sinceRun: -1, relaunchState: relaunchState{firstDue: true}}
}

func (m *marking) waiting() bool   { return waitingFor(m.p) }
func (m *marking) settle() []Entry { return m.hold(settle(m.p), false) }

// withMarkersOwned is withMarkers when owned is false; when it is true,
// another writer starts and ends the runs: compile markers only.
func withMarkersOwned(p Parser, owned bool) Parser {
	return &marking{p: p, sinceRun: -1, launched: owned, owned: owned, relaunchState: relaunchState{firstDue: true}}
}

func (m *marking) Name() string { return m.p.Name() }

func (m *marking) Line(line string, end int64) []Entry { return m.hold(m.p.Line(line, end), false) }

// Flush gives up what the parser holds, and a file's first entries held
// for a banner: a quiet file shows what it wrote (its banner, if it comes
// later, starts a run of its own).
func (m *marking) Flush() []Entry { return m.hold(m.p.Flush(), true) }

// preBanner is how many entries at a file's start may come before the
// banner of the run they belong to: a vanilla Minecraft server's
// "Environment:" lines, NeoForge's "JVM identified", a Unity player's
// first lines, Forge 1.12's binary patches and coremods (21 lines before
// LaunchWrapper's). preBannerBytes bounds where they may be: a follower that
// resumes within a file does not hold.
const (
	preBanner      = 32
	preBannerBytes = 8 << 10
)

// hold keeps a file's first entries (of a format with a banner) until its
// banner comes, so that the run marker goes before the first of them:
// one launch is one run, not a run of two lines that ended and then the
// launch. Without a banner in the first preBanner entries, or at a flush
// (the file was quiet, or ended), they go on as they are.
func (m *marking) hold(entries []Entry, flush bool) []Entry {
	if len(m.held) == 0 && (len(entries) == 0 || !m.holding(entries)) {
		return m.mark(entries)
	}
	m.held = append(m.held, entries...)
	banner := -1
	for i := range m.held {
		r := &m.held[i].Record
		if r.Kind == oplog.KindMarker {
			continue
		}
		if _, ok := runBanner(m.p.Name(), r); ok {
			banner = i
			break
		}
	}
	if banner < 0 && !flush && len(m.held) < preBanner {
		return nil
	}
	held := m.held
	m.held, m.early = nil, preBanner
	if banner <= 0 {
		return m.mark(held)
	}
	b, _ := runBanner(m.p.Name(), &held[banner].Record)
	first := &held[0]
	out := []Entry{{Record: marker(&first.Record, oplog.MarkerRun, oplog.LevelInfo, "run started: "+b.text, b.data()), End: first.End}}
	m.runStarted()
	m.skip = banner + 1
	return append(out, m.mark(held)...)
}

// holding reports whether entries are a file's first, of a format whose
// runs begin with a banner, before any run marker.
func (m *marking) holding(entries []Entry) bool {
	if m.sinceRun >= 0 || m.launched || m.newRun != "" || m.early >= preBanner || len(entries) == 0 {
		return false
	}
	switch m.p.Name() {
	case "unity", "log4j", "godot", "unreal":
	default:
		return false
	}
	if entries[0].End > preBannerBytes {
		m.early = preBanner // entered mid-file: never hold
		return false
	}
	return true
}

// startRun says that the next entry begins a new run (the file was
// truncated or rewritten), unless it is a banner, which says so itself.
func (m *marking) startRun(why string) {
	if !m.owned {
		m.newRun = why
	}
}

// mark returns entries with the markers they call for.
func (m *marking) mark(entries []Entry) []Entry {
	if len(entries) == 0 {
		return entries
	}
	var out []Entry
	for i := range entries {
		e := &entries[i] // not a copy: an Entry is large, and most are passed over
		if m.foreign(&e.Record) {
			if out == nil {
				out = append(make([]Entry, 0, len(entries)), entries[:i]...)
			}
			continue
		}
		m.end = e.End
		before, after := m.markers(&e.Record)
		if len(before) == 0 && len(after) == 0 {
			if out != nil {
				out = append(out, *e)
			}
			continue
		}
		if out == nil {
			out = append(make([]Entry, 0, len(entries)+2), entries[:i]...)
		}
		for _, r := range before {
			out = append(out, Entry{Record: r, End: e.End}) // stored with its entry (Follower.store)
		}
		out = append(out, *e)
		for _, r := range after {
			out = append(out, Entry{Record: r, End: e.End})
		}
	}
	if out == nil {
		return entries
	}
	return out
}

// foreign reports a run's start or end the parser read where another
// decides them: a launch is the run, not the parser's start of one (but
// a device's log's: adb is no game); where another writer owns the runs,
// no start or end the parser read is one.
func (m *marking) foreign(r *oplog.Record) bool {
	if r.Kind != oplog.KindMarker {
		return false
	}
	switch {
	case m.owned:
		return r.Name == oplog.MarkerRun || r.Name == oplog.MarkerExit
	case m.launched:
		return r.Name == oplog.MarkerRun && m.p.Name() != "logcat"
	}
	return false
}

// shutdownLine reports the engine's own line of a clean exit, which an
// exit marker follows: Luanti's "Server: Shutting down" (a crash while
// shutting down comes after it and still makes the run crashed),
// Minecraft's "Stopping!" (the client) and "Stopping server", Unreal's
// "LogExit: Exiting.", Unity's batch mode's last line. Godot, LÖVE and
// Rust games print none: their runs end with the process (mcplogd run) or
// the next run.
func shutdownLine(format string, r *oplog.Record) bool {
	switch format {
	case "luanti":
		return r.Text == "Server: Shutting down"
	case "log4j":
		return r.Text == "Stopping!" || r.Text == "Stopping server"
	case "unreal":
		return r.Text == "Exiting." && r.Name == "LogExit"
	case "unity":
		return r.Text == "Exiting batchmode successfully now!"
	}
	return false
}

// markerPrefixes are the beginnings of every line a banner or compile rule
// reads, by first byte: any other entry is passed over after one or two
// comparisons (most entries of a log are neither). A rule added below must
// add its prefix here (TestMarkers_PrefixesListed checks it).
var markerPrefixes = func() (t [256][]string) {
	for _, p := range []string{
		"- Completed reload",
		"- Finished resetting the current domain",
		"- Finished script compilation",
		"- Starting script compilation",
		"- starting compile ",
		"-----CompilerOutput:",
		"-----EndCompilerOutput",
		"Asset Pipeline Refresh (id=",
		"Built from '",
		"COMMAND LINE ARGUMENTS:",
		"Compilation failed: ",
		"CompileScripts:",
		"Exiting batchmode successfully now!",
		"Exiting.",
		"Godot Engine v",
		"Initialize engine version: ",
		"Loading Minecraft ",
		"Forge Mod Loader version ",
		"Starting FancyModLoader version ",
		"[bootstrap] Loading Paper ",
		"MultiMC version: ",
		"PolyMC version: ",
		"PollyMC version: ",
		"Prism Launcher version: ",
		"Loading tweak class name ",
		"Log file open",
		"ModLauncher ",
		"ModLauncher running:",
		"Mono path[0] = ",
		"Mono: successfully reloaded assembly",
		"Reloading assemblies after ",
		"Scripts have compiler errors",
		"Server: Shutting down",
		"Setting user: ",
		"Starting minecraft server version ",
		"Stopping server",
		"Stopping!",
		"[Licensing::Module] Trying to connect to existing licensing client channel",
		"[ScriptCompilation] Requested script compilation",
	} {
		t[p[0]] = append(t[p[0]], p)
	}
	return t
}()

// mayMark reports whether s begins like a line some marker rule reads.
func mayMark(s string) bool {
	if s == "" {
		return false
	}
	for _, p := range markerPrefixes[s[0]] {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// markers returns the markers to put before and after r.
func (m *marking) markers(r *oplog.Record) (before, after []oplog.Record) {
	if r.Kind == oplog.KindMarker {
		if r.Name == oplog.MarkerRun { // the parser read a run's start itself
			m.runStarted()
		}
		return nil, nil
	}
	again := !m.launched && m.bannerless() && m.relaunch(r)
	if m.newRun == "" && !again && r.Name != "compiler" && r.Name != "systemd" && !mayMark(r.Text) {
		m.noteFirst(r, m.sinceRun >= 0)
		if m.sinceRun >= 0 {
			m.sinceRun++
		}
		return nil, nil
	}
	before, after = m.before[:0], m.after[:0]
	defer func() { m.before, m.after = before, after }()
	format := m.p.Name()
	var b runInfo
	ok := false
	if m.skip > 0 {
		m.skip-- // hold put this run's marker before its first entry
	} else if !m.launched && (m.sinceRun < 0 || m.sinceRun > bannerWindow(format) || m.newRun != "") {
		b, ok = runBanner(format, r) // not within a run's banner: Unity's is many lines
	}
	if ok {
		before = append(before, marker(r, oplog.MarkerRun, oplog.LevelInfo, "run started: "+b.text, b.data()))
		m.runStarted()
	} else if m.newRun != "" {
		before = append(before, marker(r, oplog.MarkerRun, oplog.LevelInfo, "run started: the log file was "+m.newRun,
			(&runInfo{reason: m.newRun}).data()))
		m.runStarted()
	} else if again {
		before = append(before, marker(r, oplog.MarkerRun, oplog.LevelInfo, "run started: the game's first line again, after its last line ended it",
			(&runInfo{reason: "relaunched"}).data()))
		m.runStarted()
	}
	if !ok && m.newRun == "" && !again {
		before, after = m.systemdMarkers(r, before, after)
	}
	m.noteFirst(r, m.sinceRun >= 0)
	if m.sinceRun >= 0 {
		m.sinceRun++
	}
	if !m.owned && shutdownLine(format, r) {
		after = append(after, marker(r, oplog.MarkerExit, oplog.LevelInfo, "exited: "+r.Text, []byte(`{"reason":"shutdown"}`)))
	}
	if format != "unity" {
		return before, after
	}
	switch unityCompile(r) {
	case compileStart:
		if !m.compiling {
			before = append(before, marker(r, oplog.MarkerCompileStart, oplog.LevelInfo, "compile started", nil))
			m.compiling, m.errors = true, 0
		}
	case compileReloaded:
		// A domain reload after a recompile: the compile succeeded, even
		// when it started unseen (a reload after errors with no new ones).
		if !m.compiling {
			before = append(before, marker(r, oplog.MarkerCompileStart, oplog.LevelInfo, "compile started", nil))
			m.compiling, m.errors = true, 0
		}
	case compileError:
		if m.compiling {
			m.errors++
		}
	case compileEnd:
		if m.compiling && m.errors > 0 {
			after = append(after, m.outcome(r))
		}
	case compileDone:
		if m.compiling {
			after = append(after, m.outcome(r))
		}
	}
	return before, after
}

// runStarted resets the state of a run: no compile is under way.
func (m *marking) runStarted() {
	m.sinceRun, m.newRun = 0, ""
	m.started()
	m.compiling, m.errors = false, 0
}

// outcome ends the compile under way: failed when it had errors.
func (m *marking) outcome(r *oplog.Record) oplog.Record {
	n := m.errors
	m.compiling, m.errors = false, 0
	if n == 0 {
		return marker(r, oplog.MarkerCompileOK, oplog.LevelInfo, "compile succeeded", nil)
	}
	word := " errors"
	if n == 1 {
		word = " error"
	}
	var o object
	o.num("errors", n)
	return marker(r, oplog.MarkerCompileFailed, oplog.LevelError, "compile failed: "+strconv.Itoa(n)+word, o.bytes())
}

// marker makes a marker record at r's time.
func marker(r *oplog.Record, name string, level oplog.Level, text string, data []byte) oplog.Record {
	return oplog.Record{Kind: oplog.KindMarker, Name: name, Level: level, Time: r.Time, Text: text, Data: data}
}

// runInfo is what a run marker says of the run.
type runInfo struct {
	text    string // "Unity 2022.3.21f1 (Editor)"
	engine  string
	version string
	reason  string // "banner", "truncated", "rewritten"
}

func (i *runInfo) data() []byte {
	var o object
	o.str("engine", i.engine)
	o.str("version", i.version)
	o.str("reason", i.reason)
	return o.bytes()
}

// runBanner reports whether r is a line a run of its format begins with.
func runBanner(format string, r *oplog.Record) (runInfo, bool) {
	s := r.Text
	switch format {
	case "unity":
		return unityBanner(s)
	case "godot":
		// Not a crash dump's "Engine version: Godot Engine v...".
		if strings.HasPrefix(s, "Godot Engine v") {
			v, _, _ := strings.Cut(s[len("Godot Engine "):], " ")
			return runInfo{text: "Godot Engine " + v, engine: "godot", version: strings.TrimPrefix(v, "v"), reason: "banner"}, true
		}
	case "log4j":
		if i, ok := launcherBanner(s); ok {
			return i, true
		}
		return minecraftBanner(s)
	case "generic":
		return launcherBanner(s) // the game's log4j lines come after its lines: a late switch (autoParser.late)
	case "unreal":
		if strings.HasPrefix(s, "Log file open") {
			return runInfo{text: "Unreal Engine", engine: "unreal", reason: "banner"}, true
		}
	}
	return runInfo{}, false
}

// unityBanner reads the first lines of an Editor.log or a Player.log.
func unityBanner(s string) (runInfo, bool) {
	i := runInfo{engine: "unity", reason: "banner"}
	switch {
	case strings.HasPrefix(s, "[Licensing::Module] Trying to connect to existing licensing client channel"),
		strings.HasPrefix(s, "COMMAND LINE ARGUMENTS:"):
		i.text = "Unity (Editor)"
	case strings.HasPrefix(s, "Built from '") && strings.Contains(s, "Version is '"):
		v := s[strings.Index(s, "Version is '")+len("Version is '"):]
		v, _, _ = strings.Cut(v, " ")
		i.version = strings.TrimSuffix(v, "'")
		i.text = "Unity " + i.version + " (Editor)"
	case strings.HasPrefix(s, "Mono path[0] = "):
		i.text = "Unity"
	case strings.HasPrefix(s, "Initialize engine version: "):
		v, _, _ := strings.Cut(s[len("Initialize engine version: "):], " ")
		i.version = v
		i.text = "Unity " + v
	default:
		return i, false
	}
	return i, true
}

// minecraftBanner reads Minecraft's start: a loader's first lines
// (Fabric's, Quilt's, Forge's, NeoForge's, Paper's bootstrap), the
// client's "Setting user:", the server's "Starting minecraft server".
func minecraftBanner(s string) (runInfo, bool) {
	i := runInfo{engine: "minecraft", reason: "banner"}
	switch {
	case strings.HasPrefix(s, "Loading Minecraft ") && strings.Contains(s, " with Fabric Loader"):
		i.version, _, _ = strings.Cut(s[len("Loading Minecraft "):], " ")
		i.text = "Minecraft " + i.version + " (Fabric)"
	case strings.HasPrefix(s, "Loading Minecraft ") && strings.Contains(s, " with Quilt Loader"):
		i.version, _, _ = strings.Cut(s[len("Loading Minecraft "):], " ")
		i.text = "Minecraft " + i.version + " (Quilt)"
	case strings.HasPrefix(s, "Forge Mod Loader version ") && strings.HasSuffix(s, " loading"):
		// Forge 1.7 to 1.12, on its second line: "… 7.99.40.1614 for Minecraft 1.7.10 loading".
		if _, v, ok := strings.Cut(strings.TrimSuffix(s, " loading"), " for Minecraft "); ok {
			i.version = v
		}
		i.text = strings.TrimSpace("Minecraft " + i.version + " (Forge)")
	case strings.HasPrefix(s, "Starting FancyModLoader version "):
		i.text = "Minecraft (NeoForge)" // NeoForge's since 1.21.9, before ModLauncher's line
	case strings.HasPrefix(s, "[bootstrap] Loading Paper ") && strings.Contains(s, " for Minecraft "):
		_, i.version, _ = strings.Cut(s, " for Minecraft ")
		i.text = "Minecraft server " + i.version + " (Paper)"
	case strings.HasPrefix(s, "Starting minecraft server version "):
		i.version = strings.TrimSpace(s[len("Starting minecraft server version "):])
		i.text = "Minecraft server " + i.version
	case strings.HasPrefix(s, "ModLauncher ") && (strings.Contains(s, " starting:") || strings.HasPrefix(s, "ModLauncher running:")):
		i.text = "Minecraft (ModLauncher)"
	case strings.HasPrefix(s, "Loading tweak class name "):
		i.text = "Minecraft (LaunchWrapper)"
	case strings.HasPrefix(s, "Setting user: "):
		i.text = "Minecraft client"
	default:
		return i, false
	}
	return i, true
}

// launcherBanner reads the first line a Minecraft launcher writes into an
// instance's log before the game's output: Prism Launcher's, PolyMC's,
// MultiMC's "Prism Launcher version: 11.0.2 (official)".
func launcherBanner(s string) (runInfo, bool) {
	for _, name := range []string{"Prism Launcher", "PolyMC", "MultiMC", "PollyMC"} {
		if v, ok := strings.CutPrefix(s, name+" version: "); ok {
			v, _, _ = strings.Cut(v, " ")
			return runInfo{engine: "minecraft", reason: "banner", text: "Minecraft (" + name + " " + v + ")"}, true
		}
	}
	return runInfo{}, false
}

// compileEvent is what a Unity record says of a script compile.
type compileEvent int

const (
	compileNone     compileEvent = iota
	compileStart                 // a compile starts
	compileError                 // a compile error
	compileEnd                   // a compile (or the refresh around it) ended, either way
	compileReloaded              // the domain is reloaded after a recompile
	compileDone                  // the reload finished: the compile succeeded
)

// unityCompile reads the lines Unity prints around a script compile, from
// 5.x ("- starting compile Library/ScriptAssemblies/...", mcs's
// "-----CompilerOutput:-stdout--exitcode: 1--compilationhadfailure: True")
// to 2021+ ("[ScriptCompilation] Requested script compilation because:",
// "Asset Pipeline Refresh (id=...)", "Reloading assemblies after forced
// synchronous recompile.", "Begin MonoManager ReloadAssembly", "- Completed
// reload", "Mono: successfully reloaded assembly").
func unityCompile(r *oplog.Record) compileEvent {
	s := r.Text
	switch {
	case r.Name == "compiler" && r.Level >= oplog.LevelError:
		return compileError
	case strings.HasPrefix(s, "[ScriptCompilation] Requested script compilation"),
		strings.HasPrefix(s, "- Starting script compilation"),
		strings.HasPrefix(s, "- starting compile "),
		strings.HasPrefix(s, "CompileScripts:"):
		return compileStart
	case strings.HasPrefix(s, "-----CompilerOutput:") && strings.Contains(s, "compilationhadfailure: True"),
		strings.HasPrefix(s, "Compilation failed: "):
		return compileError
	case strings.HasPrefix(s, "Asset Pipeline Refresh (id="),
		strings.HasPrefix(s, "- Finished script compilation"),
		strings.HasPrefix(s, "-----EndCompilerOutput"),
		strings.HasPrefix(s, "Scripts have compiler errors"):
		return compileEnd
	case strings.HasPrefix(s, "Reloading assemblies after "):
		return compileReloaded
	case strings.HasPrefix(s, "Mono: successfully reloaded assembly"),
		strings.HasPrefix(s, "- Completed reload"),
		strings.HasPrefix(s, "- Finished resetting the current domain"):
		return compileDone
	}
	return compileNone
}
