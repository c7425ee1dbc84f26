package follow

import "strings"

// Formats auto detection scores.
const (
	fmtUnity = iota
	fmtLog4j
	fmtGodot
	fmtUnreal
	fmtLuanti
	fmtRust
	fmtJSON
	fmtLua
	fmtLogcat
	numFormats
)

// autoParser holds the first lines until their format is clear (a line
// only one format writes), detectLines lines came, or a flush, then hands
// them to the chosen parser and delegates to it. Its name is "auto" until
// then.
type autoParser struct {
	clk       *clock
	p         Parser
	lines     []string
	ends      []int64
	score     [numFormats]int
	godotErr  bool // the previous line was "ERROR: ..." or "WARNING: ..."
	sure      int  // the format a line proved, or -1
	sureFound bool
	// late is how many more lines are looked at for a format once the
	// generic parser was chosen for want of one: a launcher's or a
	// wrapper's lines may come before the game's log (Prism Launcher
	// prints over a hundred), and the first line that proves the game's
	// format switches to its parser.
	late int
}

// lateLines bounds the lines looked at after generic was chosen.
const lateLines = 1000

func (a *autoParser) Name() string {
	if a.p != nil {
		return a.p.Name()
	}
	return "auto"
}

func (a *autoParser) Line(line string, end int64) []Entry {
	if a.p != nil {
		if a.late > 0 {
			return a.lateLine(line, end)
		}
		return a.p.Line(line, end)
	}
	a.lines = append(a.lines, line)
	a.ends = append(a.ends, end)
	if a.look(line) || len(a.lines) >= detectLines {
		return a.choose()
	}
	return nil
}

func (a *autoParser) Flush() []Entry {
	if a.p == nil {
		if len(a.lines) == 0 {
			return nil
		}
		out := a.choose()
		return append(out, a.p.Flush()...)
	}
	return a.p.Flush()
}

func (a *autoParser) waiting() bool { return a.p != nil && waitingFor(a.p) }

// settle chooses the parser with the lines held (settler): the output went
// quiet, as before a flush.
func (a *autoParser) settle() []Entry {
	if a.p == nil && len(a.lines) > 0 {
		return a.choose()
	}
	return nil
}

// lateLine reads a line after generic was chosen for want of a format:
// a header that proves a format ends the generic parser's entries and
// starts its parser's.
func (a *autoParser) lateLine(line string, end int64) []Entry {
	a.late--
	a.sureFound = false
	if !a.look(line) || !a.sureFound || !headerProof(a.sure) {
		return a.p.Line(line, end)
	}
	a.late = 0
	out := a.p.Flush()
	a.p = withRuntimes(detectedParser(a.sure, a.clk))
	return append(out, a.p.Line(line, end)...)
}

// headerProof reports a format whose proof is a line that starts an
// entry (a header of the format's, a crash report's banner): its parser
// takes over there. Not the others': LÖVE's frames and Unity's are proofs
// too, inside a traceback the generic parser holds.
func headerProof(format int) bool {
	switch format {
	case fmtLog4j, fmtMcCrash, fmtUnreal, fmtLuanti, fmtRust, fmtLogcat:
		return true
	}
	return false
}

// choose picks the parser and replays the lines held into it.
func (a *autoParser) choose() []Entry {
	f := a.pick()
	if f < 0 {
		a.late = lateLines
	}
	a.p = detectedParser(f, a.clk)
	a.p = withRuntimes(a.p)
	var out []Entry
	for i, l := range a.lines {
		out = append(out, a.p.Line(l, a.ends[i])...)
	}
	a.lines, a.ends = nil, nil
	return out
}

// pick returns the format detected, or -1 for generic.
func (a *autoParser) pick() int {
	if a.sureFound {
		return a.sure
	}
	best, bestScore := -1, 1 // a single weak hint is not enough
	for f, s := range a.score {
		if s > bestScore {
			best, bestScore = f, s
		}
	}
	return best
}

// unityMarkers start lines that Unity's Editor.log and Player.log have
// near their start, and often after.
var unityMarkers = []string{
	"[Licensing::", "Built from '", "Mono path[0]", "Mono config path", "Initialize engine version",
	"[Package Manager]", "Unity Editor version", "[Subsystems]", "GfxDevice:", "[ScriptCompilation]",
	"Refreshing native plugins", "Preloading ", "Loading GUID <-> Path mappings", "[Physics::Module]",
	"Asset Pipeline Refresh", "Begin MonoManager", "Initialize mono", "UnloadTime:", "Found path:",
	"Input System module state changed", "Player connection [",
}

// look scores one line and reports whether it settles the format.
func (a *autoParser) look(line string) bool {
	s := trimRight(line)
	godotErr := a.godotErr
	a.godotErr = false
	if s == "" {
		return false
	}
	prove := func(f int) bool { a.sure, a.sureFound = f, true; return true }
	if f, ok := a.proof(s); ok {
		return prove(f)
	}
	switch {
	case strings.HasPrefix(s, "---- "):
		if _, ok := reportBanner(s); ok {
			return prove(fmtMcCrash)
		}
	case s[0] == '[':
		if _, _, _, ok := unrealStamp(s); ok {
			return prove(fmtUnreal)
		}
		if _, ok := parseLog4jHeader(s, a.clk.location()); ok {
			return prove(fmtLog4j)
		}
	case len(s) > 12 && isDigit(s[0]) && s[10] == ' ' && s[11] == '[':
		if _, ok := parseLog4jHeader(s, a.clk.location()); ok {
			return prove(fmtLog4j) // PocketMine-MP's
		}
	case strings.HasPrefix(s, "Log file open, "):
		return prove(fmtUnreal)
	case strings.HasPrefix(s, "LogInit: "), strings.HasPrefix(s, "LogConfig: "), strings.HasPrefix(s, "LogWindows: "):
		a.score[fmtUnreal] += 2
	case strings.HasPrefix(s, "(Filename: "), strings.HasPrefix(s, "UnityEngine."),
		strings.HasPrefix(s, "Crash!!!"), strings.HasPrefix(s, "Caught fatal signal - signo:"),
		strings.HasPrefix(s, "0x") && strings.Contains(s, " (Mono JIT Code) "):
		return prove(fmtUnity) // Unity's own words, or its crash dumps (a log may hold only a dump)
	case strings.HasPrefix(s, "Godot Engine v"), strings.HasPrefix(s, "SCRIPT ERROR: "), isGodotFileLabel(s),
		strings.HasPrefix(s, "USER SCRIPT ERROR: "), strings.HasPrefix(s, "SHADER ERROR: "),
		// Its crash handler, which a log excerpt may begin with.
		strings.HasPrefix(s, "handle_crash: Program crashed"), strings.HasPrefix(s, "CrashHandlerException: Program crashed"):
		return prove(fmtGodot)
	case godotErr && (strings.HasPrefix(trimLeft(s), "at: ") || strings.HasPrefix(trimLeft(s), "At: ")) && indented(s):
		return prove(fmtGodot)
	case strings.HasPrefix(s, "ERROR: "), strings.HasPrefix(s, "WARNING: "),
		strings.HasPrefix(s, "USER ERROR: "), strings.HasPrefix(s, "USER WARNING: "):
		// Godot's only when its "at:" line follows (that proves it): games
		// of every engine print "ERROR: ..." lines of their own.
		a.godotErr = true
	}
	if strings.Contains(s, "res://") {
		a.score[fmtGodot] += 2
	}
	if isUnityFrame(s) && strings.Contains(s, " (at ") {
		return prove(fmtUnity)
	}
	for _, m := range unityMarkers {
		if strings.HasPrefix(s, m) {
			a.score[fmtUnity] += 2
			break
		}
	}
	if _, ok := parseCompilerDiag(s); ok {
		a.score[fmtUnity] += 2
	}
	return false
}

// proof reports the formats of this round that one line proves: a
// Luanti header with its date or the separator debug.txt starts with, a
// tracing line with its timestamp, a JSON line of a structured logger,
// LÖVE's own words.
func (a *autoParser) proof(s string) (int, bool) {
	switch {
	case s == luantiSep:
		a.score[fmtLuanti]++
	case strings.TrimSpace(s) == "Separator" && a.score[fmtLuanti] > 0:
		return fmtLuanti, true
	case len(s) > 22 && isDigit(s[0]) && s[10] == ' ' && s[19] == ':':
		if h, ok := parseLuantiHeader(s, a.clk.location()); ok && !h.t.IsZero() {
			return fmtLuanti, true
		}
	case len(s) > 22 && isDigit(s[0]) && s[10] == 'T':
		if t, ok := parseTracing(s, a.clk); ok && !t.t.IsZero() {
			return fmtRust, true
		}
	case s[0] == '{':
		if looksLikeJSONLog(s) {
			return fmtJSON, true
		}
	case strings.Contains(s, `[love "`), strings.HasPrefix(s, "LOVE - Warning: "):
		return fmtLua, true
	}
	if h, _, ok := parseLogcat(s, a.clk); ok {
		if h.proc != "" {
			return fmtLogcat, true // a process in the header: only logcat writes these
		}
		a.score[fmtLogcat]++ // "E/Tag: msg": two of them
	}
	return 0, false
}
