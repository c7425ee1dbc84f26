//go:build !windows

package follow

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// The runtime tests run small games of ours (testdata/engines/runtimes), one
// per language games are written in: Python, C and C++ (with glibc's
// assert, a signal handler's backtrace and the sanitizers), C# on Mono, Java,
// JavaScript on Node and Go. Each ticks a few frames, logs, prints a handled
// error in every run, then crashes deep in its own code the way its runtime
// crashes. Each crash is read three ways, its output decorated three ways:
// under RunCommand, from a file a follower with no parser named follows, and
// from the same file with the generic parser named, which must give the same
// records. The decorations: none (the runtime's own logger), "stamp" (a
// timestamp and a padded level on every line the game writes, crash output
// too where the game can), and "stderr" (a launcher that logs each line the
// game prints as "[WARNING] stderr: LINE", wrapper.py). Whatever the
// decoration, a crash report is one record that says what the runtime said
// and has the frames as its stack, the first crash group names the message
// and the game's own frame, and the run ended as the program did.

// langPrefixes are the decorations of a game's output.
var langPrefixes = []string{"none", "stamp", "stderr"}

// langMaxPage is the most a first find_crashes answer may weigh, in JSON.
const langMaxPage = 4 << 10

// langCase is one way a game ends and what mcplogd must make of it.
type langCase struct {
	name string   // the subtest, and the game's mode unless mode is set
	mode string   // the game's mode; "": name
	prog string   // which build of the game runs (langGame.progs); "": the first
	env  []string // more environment
	// text is a regular expression the crash record's Text must match from
	// its start: the message as the runtime prints it (a logger's record
	// that announces a handled exception: the logger's message).
	text  string
	level oplog.Level // the crash record's level
	// stampLevel, when set, is the crash record's level with the prefix
	// "stamp", where the game's own handler logs the crash, which then
	// says nothing of the process's end.
	stampLevel oplog.Level
	stack      []string // what the crash record's Stack (or Text) must contain
	// class is the first crash group's class; "": the record is no crash
	// (a warning), and the test looks for no group.
	class string
	title string   // what the first group's Title must contain
	where []string // what its Frame (else its Title) must contain: function, file:line
	exits bool     // the game goes on and exits with status 0
	// stopped: a signal asking it to stop ended it (Ctrl-C): its run
	// exited (ended, followed in a file), and it is no crash.
	stopped bool
	// prefixes are decorations the game has beyond langPrefixes.
	prefixes []string
	// unstamped: not run behind "stamp". Behind a prefix, the lines of an
	// exception's message after its first are read as lines of their own
	// (runtimeNotUnder says why).
	unstamped bool
	// early: the game ends before its code runs (a script that does not
	// compile), without the error it prints in every run (handled).
	early bool
}

// langGame is a language's game, built.
type langGame struct {
	dir   string              // where it runs
	progs map[string][]string // its command lines (a build each), but the mode and prefix
	first string              // the key of the build langCase.prog "" names
	env   []string            // the environment it runs in, beyond this process's
	wrap  []string            // the launcher that prefixes "[WARNING] stderr: "
	// handled is what the error the game prints in every run says; it is
	// one record.
	handled string
}

// args returns the command line of c with prefix.
func (g *langGame) args(c langCase, prefix string) []string {
	prog := c.prog
	if prog == "" {
		prog = g.first
	}
	mode := c.mode
	if mode == "" {
		mode = c.name
	}
	game := g.progs[prog]
	if prefix == "stderr" {
		return append(append(slices.Clone(g.wrap), game...), mode, "none")
	}
	return append(slices.Clone(game), mode, prefix)
}

// langWrapper returns the launcher's command line: Python running
// wrapper.py.
func langWrapper(t *testing.T) []string {
	t.Helper()
	wrapper, err := filepath.Abs(filepath.Join("testdata", "engines", "runtimes", "wrapper.py"))
	if err != nil {
		t.Fatal(err)
	}
	return []string{langPython(t), "-u", wrapper}
}

// langPython returns Debian's python3 (what scripts/need-engines installs)
// when there is one, before whatever a version manager put first on PATH,
// whose shims take a second to start.
func langPython(t *testing.T) string {
	t.Helper()
	p := needEngine(t, "python3")
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	return p
}

// needPythonModule makes sure Debian's python3 imports module (loguru,
// rich: python3-loguru, python3-rich, which scripts/need-engines installs).
func needPythonModule(t *testing.T, module string) {
	t.Helper()
	if err := exec.Command(langPython(t), "-c", "import "+module).Run(); err != nil {
		if os.Getenv("MCPLOGD_REQUIRE_ENGINES") == "1" {
			t.Fatalf("%s is not installed (scripts/need-engines installs python3-%s): %v", module, module, err)
		}
		t.Skipf("%s is not installed; scripts/need-engines installs python3-%s", module, module)
	}
}

// langBuild runs a compiler in dir, failing the test with its output.
func langBuild(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%q: %v\n%s", args, err, out)
	}
}

// langLineOf returns the number of the line of file that has marker.
func langLineOf(t *testing.T, file, marker string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, marker) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", file, marker)
	return 0
}

// runLang runs each case with each prefix, in parallel subtests.
func runLang(t *testing.T, g *langGame, cases []langCase) {
	t.Helper()
	for _, c := range cases {
		for _, prefix := range append(slices.Clone(langPrefixes), c.prefixes...) {
			if prefix == "stamp" && c.unstamped {
				continue
			}
			t.Run(c.name+"/"+prefix, func(t *testing.T) {
				t.Parallel()
				runLangCase(t, g, c, prefix)
			})
		}
	}
}

// runLangCase runs the game once under RunCommand and once into a file
// it follows twice (detected and generic), and checks the three.
func runLangCase(t *testing.T, g *langGame, c langCase, prefix string) {
	if prefix == "loguru" || prefix == "rich" {
		needPythonModule(t, prefix)
	}
	if prefix == "stamp" && c.stampLevel != 0 {
		c.level = c.stampLevel
	}
	args := g.args(c, prefix)
	env := append(append(os.Environ(), g.env...), c.env...)
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	exit, printed := runGame(t, l, "run", CommandOptions{Args: args, Env: env, Dir: g.dir})
	if clean := exit.Code == 0 && exit.Signal == ""; clean != c.exits {
		t.Errorf("%q %s; want a clean exit: %v\n%s", args, exit, c.exits, printed)
	}
	checkLangRun(t, l, "run", g, c)
	path := filepath.Join(t.TempDir(), "game.log")
	langRunToFile(t, args, env, g.dir, path)
	langFollowTwice(t, l, path)
	checkLangRun(t, l, "file", g, c)
	checkLangSame(t, ofSource(t, l, "file"), ofSource(t, l, "generic"))
	langImport(t, l, path)
	checkLangRun(t, l, "import", g, c)
}

// langImport imports path, to its end, as source "import".
func langImport(t *testing.T, l *oplog.Log, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Import(t.Context(), l, f, ImportOptions{Source: "import", File: path}); err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
}

// langRunToFile runs args with their output, both streams, written to path.
func langRunToFile(t *testing.T, args, env []string, dir, path string) {
	t.Helper()
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, w, w
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%q: %v", args, err)
		}
	}
}

// langFollowTwice follows path as source "file" with no parser named and as
// "generic" with the generic parser, until both read every line.
func langFollowTwice(t *testing.T, l *oplog.Log, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(strings.Count(string(b), "\n"))
	auto := mustStart(t, l, Options{Name: "file", Path: path, Poll: 10 * time.Millisecond, Quiet: 100 * time.Millisecond})
	generic := mustStart(t, l, Options{Name: "generic", Path: path, Parser: "generic", Poll: 10 * time.Millisecond, Quiet: 100 * time.Millisecond})
	logtest.Eventually(t, waitFor, fmt.Sprintf("the followers read the %d lines of the file", n), func() bool {
		return auto.Status().Lines >= n && generic.Status().Lines >= n
	})
	mustClose(t, auto)
	mustClose(t, generic)
}

// checkLangRun checks what source ("run", "file" or "import") holds of one
// run of a game ending as c says: the handled error one record, the crash
// one record, no frame a record of its own, how the run ended, the first
// crash group. It prints the records when it failed. A file (followed)
// says nothing of how the game ended, only that the follower stopped: its
// run ended, unless a fatal record crashed it; an error with a stack at
// its end is an error, not the run's crash. An imported file was read to
// its end: a Python traceback that ended the game is its last words, and
// the run's crash.
func checkLangRun(t *testing.T, l *oplog.Log, source string, g *langGame, c langCase) {
	t.Helper()
	recs := ofSource(t, l, source)
	failed := t.Failed()
	defer func() {
		if !failed && t.Failed() {
			logLangRecords(t, source, recs)
		}
	}()
	lines := slices.DeleteFunc(slices.Clone(recs), func(r oplog.Record) bool { return r.Kind != oplog.KindLine })
	handled := func(r *oplog.Record) bool { return strings.Contains(r.Text, g.handled) }
	if n := count(lines, handled); c.early && n != 0 || !c.early && n != 1 {
		t.Errorf("%s: %d records say %q, want 1 (0 when the game ends before it runs: %v)", source, n, g.handled, c.early)
	} else if r, _ := find(lines, handled); !c.early && r.Level < oplog.LevelWarn {
		t.Errorf("%s: the handled error %q is at level %s", source, r.Text, r.Level)
	}
	checkLangOrphans(t, source, lines)
	rec, ok := checkLangCrash(t, source, lines, c)
	if !ok {
		return
	}
	file := source != "run"
	lastWords := source == "import" && !c.exits && !c.stopped && rec.ID == lines[len(lines)-1].ID &&
		(strings.Contains(rec.Stack, "Traceback (most recent call last):") || strings.HasPrefix(rec.Stack, "Full traceback:"))
	switch {
	case !file && (c.exits || c.stopped):
		checkOutcome(t, l, source, 1, oplog.OutcomeExited, oplog.Record{}, oplog.Record{})
	case file && !lastWords && (c.exits || c.stopped || c.level < oplog.LevelFatal):
		checkOutcome(t, l, source, 1, oplog.OutcomeEnded, oplog.Record{}, oplog.Record{})
		if c.class == oplog.ClassCrash {
			c.class = oplog.ClassError
		}
	default:
		checkOutcome(t, l, source, 1, oplog.OutcomeCrashed, oplog.Record{}, rec)
	}
	if c.class != "" {
		checkLangGroup(t, l, source, c, rec)
	}
}

// checkLangCrash returns the one record whose text matches c.text,
// failing unless there is one, at c.level, with c.stack.
func checkLangCrash(t *testing.T, source string, lines []oplog.Record, c langCase) (oplog.Record, bool) {
	t.Helper()
	re := regexp.MustCompile(`^(?:` + c.text + `)`)
	match := func(r *oplog.Record) bool { return re.MatchString(r.Text) }
	if n := count(lines, match); n != 1 {
		t.Errorf("%s: %d records match %q, want 1", source, n, c.text)
		return oplog.Record{}, false
	}
	rec, _ := find(lines, match)
	if rec.Level != c.level {
		t.Errorf("%s: the crash %.80q is at level %s, want %s", source, rec.Text, rec.Level, c.level)
	}
	for _, s := range c.stack {
		if !strings.Contains(rec.Stack, s) && !strings.Contains(rec.Text, s) {
			t.Errorf("%s: the crash's stack has no %q:\n%s", source, s, rec.Stack)
		}
	}
	return rec, true
}

// checkLangGroup checks the first answer of find_crashes for source: its
// weight, and that its group is rec's, of c.class, naming c.title and c.where.
func checkLangGroup(t *testing.T, l *oplog.Log, source string, c langCase, rec oplog.Record) {
	t.Helper()
	page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: source, Classes: oplog.CrashClasses, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(page)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > langMaxPage {
		t.Errorf("%s: the first find_crashes answer is %d bytes, more than %d", source, len(b), langMaxPage)
	}
	if len(page.Groups) == 0 {
		t.Errorf("%s: find_crashes found no crash (the crash record %d: %.80q)", source, rec.ID, rec.Text)
		return
	}
	gr := page.Groups[0]
	var d []string
	if gr.LastID != rec.ID {
		d = append(d, fmt.Sprintf("newest occurrence %d, want the crash record %d", gr.LastID, rec.ID))
	}
	if gr.Class != c.class {
		d = append(d, "class "+gr.Class+", want "+c.class)
	}
	if !strings.Contains(gr.Title, c.title) {
		d = append(d, fmt.Sprintf("the title has no %q", c.title))
	}
	for _, w := range c.where {
		if !strings.Contains(gr.Frame, w) && (gr.Frame != "" || !strings.Contains(gr.Title, w)) {
			d = append(d, fmt.Sprintf("the frame has no %q", w))
		}
	}
	if len(d) > 0 {
		t.Errorf("%s: the first crash group: %s\n title   %q\n message %q\n frame   %q\n frames  %q\n last    %q",
			source, strings.Join(d, "; "), gr.Title, gr.Message, gr.Frame, gr.Frames, gr.LastFrames)
	}
}

// langOrphans are lines of a crash report or a stack that must never be a
// record of their own: frames of every runtime, tracebacks' headers and
// chains, sanitizers' sections, source lines shown under a frame (ours
// carry a CRASH: marker) and their carets.
var langOrphans = regexp.MustCompile(`^(?:` + strings.Join([]string{
	`\s*File "[^"]*", line \d+(?:[^:\d]|$)`, `Traceback \(most recent call last\)`, `During handling of the above exception`,
	`The above exception was the direct cause`, `\s*\^+\s*$`, `Current thread 0x`,
	`\s*at `, `Caused by: `, `\s*\.\.\. \d+ more`, `goroutine \d+ \[`, `\s*#\d+ 0x`,
	`SUMMARY: `, `Shadow bytes`, `Shadow byte legend`, `freed by thread`, `previously allocated by`,
	`READ of size`, `Direct leak of`, `==\d+==ABORTING`, `=+$`, `\s*what\(\): `,
	`\S+\(\S*\+0x[0-9a-f]+\)\[0x`, `main\.\S+\(`, `\t/\S+\.go:\d+`, `Node\.js v\d+`,
	`Unhandled Exception:`, `\[ERROR\] FATAL UNHANDLED EXCEPTION`, `File name: '`,
	`.*CRASH:`, `\s*warnings\.warn\(`, `\s*\}$`, `\s*\[cause\]:`,
	`==\d+== +(?:at|by) 0x`, `==\d+== +(?:Address 0x|Block was alloc'd|Access not within|Locks held:)`, `==\d+== This conflicts with`,
}, "|") + `)`)

// langDecoration is what a record's text may still begin with when a layer
// left a prefix on it: our stamp, our launcher's.
var langDecoration = regexp.MustCompile(`^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[[A-Z ]{7}\] |(?:\[WARNING\] )?stderr: )+`)

// checkLangOrphans fails for each record that is a line of a crash report or
// a stack.
func checkLangOrphans(t *testing.T, source string, lines []oplog.Record) {
	t.Helper()
	for _, r := range lines {
		if text := langDecoration.ReplaceAllString(r.Text, ""); langOrphans.MatchString(text) {
			t.Errorf("%s: record %d is a line of a stack or a crash report: %s %q", source, r.ID, r.Level, r.Text)
		}
	}
}

// checkLangSame fails unless the parser detected and the generic parser
// made the same lines of the same file.
func checkLangSame(t *testing.T, auto, generic []oplog.Record) {
	t.Helper()
	key := func(recs []oplog.Record) []string {
		var out []string
		for _, r := range recs {
			if r.Kind == oplog.KindLine {
				out = append(out, fmt.Sprintf("%s %q\n\t\tstack %q", r.Level, r.Text, langClip(r.Stack, 300)))
			}
		}
		return out
	}
	a, g := key(auto), key(generic)
	if slices.Equal(a, g) {
		return
	}
	var d strings.Builder
	for i := range max(len(a), len(g)) {
		x, y := "(none)", "(none)"
		if i < len(a) {
			x = a[i]
		}
		if i < len(g) {
			y = g[i]
		}
		if x != y {
			fmt.Fprintf(&d, "\n  %d detected: %s\n  %d generic:  %s", i, x, i, y)
		}
	}
	t.Errorf("the file followed with no parser named (%d records) and with the generic parser (%d) differ:%s", len(a), len(g), d.String())
}

// logLangRecords prints the records of source.
func logLangRecords(t *testing.T, source string, recs []oplog.Record) {
	t.Helper()
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "\n  %d run %d %s %s %q", r.ID, r.Run, r.Kind, r.Level, r.Text)
		if r.Stack != "" {
			fmt.Fprintf(&b, "\n      stack %q", langClip(r.Stack, 400))
		}
	}
	t.Logf("%s has %d records:%s", source, len(recs), b.String())
}

// langClip cuts s to n bytes.
func langClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// checkLangGroups runs the game once per mode of modes under RunCommand,
// as one source, and checks the crash groups: one per distinct mode, with
// as many occurrences, and runs ended, as the mode ran.
func checkLangGroups(t *testing.T, g *langGame, titles map[string]string, modes ...string) {
	t.Helper()
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	want := map[string]int{}
	for _, mode := range modes {
		runGame(t, l, "game", CommandOptions{Args: g.args(langCase{name: mode}, "none"), Env: append(os.Environ(), g.env...), Dir: g.dir})
		want[mode]++
	}
	page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: "game", Classes: []string{oplog.ClassCrash}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, gr := range page.Groups {
		got = append(got, fmt.Sprintf("%d/%d %s", gr.Count, gr.RunsEnded, gr.Title))
	}
	if len(page.Groups) != len(want) {
		t.Errorf("%d crash groups, want %d:\n%s", len(page.Groups), len(want), strings.Join(got, "\n"))
	}
	for mode, n := range want {
		i := slices.IndexFunc(page.Groups, func(gr oplog.CrashGroup) bool { return strings.Contains(gr.Title, titles[mode]) })
		if i < 0 || page.Groups[i].Count != n || page.Groups[i].RunsEnded != n {
			t.Errorf("no group of %d occurrences ending %d runs titled %q among (count/runs ended title):\n%s", n, n, titles[mode], strings.Join(got, "\n"))
		}
	}
	if t.Failed() {
		logLangRecords(t, "game", ofSource(t, l, "game"))
	}
}

// langPythonGame copies the Python game.
func langPythonGame(t *testing.T) (*langGame, string) {
	t.Helper()
	python := langPython(t)
	dir := copyGame(t, "runtimes/python")
	return &langGame{dir: dir, progs: map[string][]string{"py": {python, filepath.Join(dir, "game.py")}}, first: "py",
		wrap: langWrapper(t), handled: "missing texture enemy.png, using the placeholder"}, filepath.Join(dir, "game.py")
}

// TestRuntime_Python: an uncaught exception, two chained ones, a syntax
// error in an imported module, logging.exception then a clean exit,
// faulthandler's report of a segmentation fault, warnings.warn, a thread's
// uncaught exception the game exits failing after.
func TestRuntime_Python(t *testing.T) {
	g, src := langPythonGame(t)
	at := func(marker string) int { return langLineOf(t, src, marker) }
	frame := func(marker, fn string) string { return fmt.Sprintf(`game.py", line %d, in %s`, at(marker), fn) }
	broken := langLineOf(t, filepath.Join(g.dir, "levels", "broken_level.py"), "def spawn(")
	cases := []langCase{
		{name: "uncaught", text: regexp.QuoteMeta("ValueError: invalid literal for int() with base 10: 'lots'"), level: oplog.LevelError,
			stack: []string{frame("CRASH:uncaught", "spawn_enemy"), `in tick`}, class: oplog.ClassCrash,
			title: "ValueError: invalid literal for int()", where: []string{frame("CRASH:uncaught", "spawn_enemy")}, prefixes: []string{"loguru", "rich"}},
		{name: "chained", text: regexp.QuoteMeta("RuntimeError: cannot spawn orc"), level: oplog.LevelError,
			stack: []string{"FileNotFoundError: [Errno 2]", "During handling of the above exception", frame("CRASH:chained", "spawn_enemy")},
			class: oplog.ClassCrash, title: "RuntimeError: cannot spawn orc", where: []string{frame("CRASH:chained", "spawn_enemy")}, prefixes: []string{"rich"}},
		{name: "from", text: regexp.QuoteMeta("RuntimeError: cannot spawn orc"), level: oplog.LevelError,
			stack: []string{"FileNotFoundError: [Errno 2]", "The above exception was the direct cause", frame("CRASH:from", "spawn_enemy")},
			class: oplog.ClassCrash, title: "RuntimeError: cannot spawn orc", where: []string{frame("CRASH:from", "spawn_enemy")}, prefixes: []string{"rich"}},
		{name: "syntax", text: regexp.QuoteMeta("SyntaxError: '(' was never closed"), level: oplog.LevelError,
			stack: []string{frame("CRASH:syntax", "spawn_enemy"), fmt.Sprintf(`broken_level.py", line %d`, broken)},
			class: oplog.ClassCrash, title: "SyntaxError: '(' was never closed", where: []string{fmt.Sprintf(`broken_level.py", line %d`, broken)}},
		{name: "handled", text: `.*could not load the sprite of orc`, level: oplog.LevelError,
			stack: []string{"FileNotFoundError: [Errno 2]", frame("CRASH:handled", "spawn_enemy")}, class: oplog.ClassError,
			title: "FileNotFoundError: [Errno 2] No such file or directory: 'assets/orc.png'",
			where: []string{frame("FRAME:load_sprite", "load_sprite")}, exits: true, prefixes: []string{"loguru", "rich"}},
		{name: "segv", text: regexp.QuoteMeta("Fatal Python error: Segmentation fault"), level: oplog.LevelFatal,
			stack: []string{fmt.Sprintf(`game.py", line %d in spawn_enemy`, at("CRASH:segv"))}, class: oplog.ClassCrash,
			title: "Fatal Python error: Segmentation fault", where: []string{fmt.Sprintf(`game.py", line %d in spawn_enemy`, at("CRASH:segv"))}},
		{name: "warn", text: fmt.Sprintf(`(?:.*: )?/\S+/game\.py:%d: UserWarning: sprite sheets are deprecated, use atlases`, at("CRASH:warn")),
			level: oplog.LevelWarn, stack: []string{`warnings.warn("sprite sheets are deprecated`}, exits: true},
		// An uncaught exception group, in its box: one record, the group's
		// line its text, its title the task's failure.
		{name: "group", text: regexp.QuoteMeta("ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)"), level: oplog.LevelError,
			stack: []string{"+ Exception Group Traceback", frame("CRASH:group", "load_all"), "FileNotFoundError: [Errno 2]"},
			class: oplog.ClassCrash, title: "ExceptionGroup: unhandled errors in a TaskGroup", where: []string{frame("FRAME:load_sprite", "load_sprite")}},
		// What Python prints after the exception as it exits: the
		// exception's notes, a destructor's exception it ignores, an exit
		// handler's line. The exception is the crash.
		{name: "notes", text: regexp.QuoteMeta("LookupError: no spawn point for orc"), level: oplog.LevelError,
			stack: []string{frame("CRASH:notes", "spawn_enemy")}, class: oplog.ClassCrash,
			title: "LookupError: no spawn point for orc", where: []string{frame("CRASH:notes", "spawn_enemy")}},
		{name: "ignored", text: regexp.QuoteMeta("KeyError: 'armour'"), level: oplog.LevelError,
			stack: []string{frame("CRASH:ignored", "spawn_enemy")}, class: oplog.ClassCrash,
			title: "KeyError: 'armour'", where: []string{frame("CRASH:ignored", "spawn_enemy")}},
		{name: "atexit", text: regexp.QuoteMeta("IndexError: list index out of range"), level: oplog.LevelError,
			stack: []string{frame("CRASH:atexit", "spawn_enemy")}, class: oplog.ClassCrash,
			title: "IndexError: list index out of range", where: []string{frame("CRASH:atexit", "spawn_enemy")}},
		// asyncio's exception handler: its message, the lines of its
		// context ("future: <Task …>", "handle: <Handle …>"), the
		// traceback; one record, the message its text. The loop goes on.
		{name: "unretrieved", text: `(?:stderr: )?(?:ERROR:asyncio:|asyncio: )?Task exception was never retrieved$`, level: oplog.LevelError,
			stack: []string{"future: <Task finished", frame("FRAME:load_sprite", "load_sprite"), "FileNotFoundError: [Errno 2]"}, class: oplog.ClassError,
			title: "FileNotFoundError: [Errno 2]", where: []string{frame("FRAME:load_sprite", "load_sprite")}, exits: true},
		{name: "callback", text: `(?:stderr: )?(?:ERROR:asyncio:|asyncio: )?Exception in callback World\.spawn_enemy\.<locals>\.on_loaded\(\)`, level: oplog.LevelError,
			stack: []string{"handle: <Handle World.spawn_enemy", frame("CRASH:callback", "on_loaded"), "KeyError: 'sprite'"}, class: oplog.ClassError,
			title: "KeyError: 'sprite'", where: []string{frame("CRASH:callback", "on_loaded")}, exits: true},
		// logging's own error as it formats a record: its line, the
		// traceback in logging's frames, the logging call's stack, its
		// message and arguments; one record, titled by the logging call.
		{name: "logerror", text: `(?:stderr: )?--- Logging error ---$`, level: oplog.LevelError,
			stack: []string{"TypeError: not enough arguments for format string", "Call stack:", frame("CRASH:logerror", "spawn_enemy"),
				"Message: 'spawning %s with %d hp'", "Arguments: ('orc',)"}, class: oplog.ClassError,
			title: "TypeError: not enough arguments for format string", where: []string{frame("CRASH:logerror", "spawn_enemy")}, exits: true},
		// KeyboardInterrupt: Python ends by SIGINT (Ctrl-C at the game's
		// terminal), which the exception explains: the game was stopped,
		// it did not crash.
		{name: "interrupt", text: "KeyboardInterrupt", level: oplog.LevelWarn,
			stack: []string{frame("CRASH:interrupt", "spawn_enemy")}, stopped: true},
		// A thread's uncaught exception, after which the game gives up
		// (a line, then status 1): the thread's exception is the crash. A
		// file says nothing of the exit: it is an error there, as every
		// thread's exception the game goes on after.
		{name: "thread", text: `(?:stderr: )?Exception in thread level-loader:`, level: oplog.LevelError,
			stack: []string{frame("CRASH:thread", "load_level"), "KeyError: 'levels'"}, class: oplog.ClassCrash,
			title: "KeyError: 'levels'", where: []string{frame("CRASH:thread", "load_level")}},
	}
	runLang(t, g, cases)
}

// TestRuntime_Pygame: a pygame game (its banner, SDL on its dummy video
// driver, ALSA on a sound card that is not there): an image that is not
// there, events polled after pygame.quit(), the mixer opened without a
// sound card (ALSA's own lines, warnings, come just before the traceback,
// which is not theirs), and a segmentation fault pygame's parachute
// reports.
func TestRuntime_Pygame(t *testing.T) {
	needPythonModule(t, "pygame")
	python := langPython(t)
	dir := copyGame(t, "runtimes/pygame")
	src := filepath.Join(dir, "game.py")
	g := &langGame{dir: dir, progs: map[string][]string{"py": {python, src}}, first: "py", wrap: langWrapper(t),
		env:     []string{"SDL_VIDEODRIVER=dummy", "SDL_AUDIODRIVER=alsa", "ALSA_CARD=nosuch"},
		handled: "missing texture enemy.png, using the placeholder"}
	at := func(marker string) int { return langLineOf(t, src, marker) }
	frame := func(marker string) string { return fmt.Sprintf(`game.py", line %d, in spawn_enemy`, at(marker)) }
	runLang(t, g, []langCase{
		{name: "image", text: regexp.QuoteMeta("FileNotFoundError: No file 'assets/orc.png' found in working directory"), level: oplog.LevelError,
			stack: []string{frame("CRASH:image"), "in tick"}, class: oplog.ClassCrash,
			title: "FileNotFoundError: No file 'assets/orc.png'", where: []string{frame("CRASH:image")}},
		{name: "quit", text: regexp.QuoteMeta("pygame.error: video system not initialized"), level: oplog.LevelError,
			stack: []string{frame("CRASH:quit")}, class: oplog.ClassCrash,
			title: "pygame.error: video system not initialized", where: []string{frame("CRASH:quit")}},
		{name: "mixer", text: regexp.QuoteMeta("pygame.error: ALSA: Couldn't open audio device"), level: oplog.LevelError,
			stack: []string{frame("CRASH:mixer")}, class: oplog.ClassCrash,
			title: "pygame.error: ALSA: Couldn't open audio device", where: []string{frame("CRASH:mixer")}},
		{name: "segv", text: regexp.QuoteMeta("Fatal Python error: pygame_parachute: (pygame parachute) Segmentation Fault"), level: oplog.LevelFatal,
			stack: []string{fmt.Sprintf(`game.py", line %d in spawn_enemy`, at("CRASH:segv"))}, class: oplog.ClassCrash,
			title: "Segmentation Fault", where: []string{fmt.Sprintf(`game.py", line %d in spawn_enemy`, at("CRASH:segv"))}},
	})
}

// TestRuntime_Kivy: a Kivy game under Xvfb, its Logger in colour (TERM
// names a colour terminal) and what it catches one space in: an exception
// its loop lets through after "Leaving application in progress...", a
// Logger call whose arguments do not fit its message, and a .kv rule
// that calls code that raises.
func TestRuntime_Kivy(t *testing.T) {
	needPythonModule(t, "kivy")
	xvfb := needEngine(t, "xvfb-run")
	python := langPython(t)
	dir := copyGame(t, "runtimes/kivy")
	src := filepath.Join(dir, "main.py")
	// An authority file of the test's own (see TestEngine_LOVE).
	auth := filepath.Join(t.TempDir(), "Xauthority")
	if err := os.WriteFile(auth, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	g := &langGame{dir: dir, progs: map[string][]string{"py": {xvfb, "-a", "-f", auth, python, src}}, first: "py", wrap: langWrapper(t),
		env:     []string{"KIVY_NO_ARGS=1", "KIVY_HOME=" + filepath.Join(t.TempDir(), "kivy"), "TERM=xterm"},
		handled: "missing texture enemy.png, using the placeholder"}
	frame := func(marker string) string {
		return fmt.Sprintf(`main.py", line %d, in spawn_enemy`, langLineOf(t, src, marker))
	}
	runLang(t, g, []langCase{
		{name: "uncaught", text: regexp.QuoteMeta("KeyError: 'orc'"), level: oplog.LevelError,
			stack: []string{frame("CRASH:uncaught"), "kivy/_clock.pyx"}, class: oplog.ClassCrash,
			title: "KeyError: 'orc'", where: []string{frame("CRASH:uncaught")}},
		{name: "logerror", text: regexp.QuoteMeta("TypeError: not enough arguments for format string"), level: oplog.LevelError,
			stack: []string{frame("CRASH:logerror")}, class: oplog.ClassCrash,
			title: "TypeError: not enough arguments for format string", where: []string{frame("CRASH:logerror")}},
		// A rule of a .kv file calls the game's code, which raises:
		// Kivy's BuilderException, whose message shows the rule and the
		// cause's frames (a blank line among them); one record, titled
		// by the game's frame.
		{name: "kv", text: `kivy\.lang\.builder\.BuilderException: Parser: File "[^"]*enemy\.kv", line 3:`, level: oplog.LevelError,
			stack: []string{`enemy.kv", line 3, in <module>`, fmt.Sprintf(`main.py", line %d, in enemy_name`, langLineOf(t, src, "CRASH:kv"))},
			class: oplog.ClassCrash, title: "BuilderException: Parser: File",
			where: []string{fmt.Sprintf(`main.py", line %d, in enemy_name`, langLineOf(t, src, "CRASH:kv"))}, unstamped: true},
	})
}

// TestRuntime_Renpy: a Ren'Py game (Debian's Ren'Py 8) whose init code
// raises, which Ren'Py reports on its standard output twice, each time
// the traceback through its own frames and the game's, then what it was
// doing and the game's frames alone; and a script with an error Ren'Py's
// compile command reports.
func TestRuntime_Renpy(t *testing.T) {
	renpy := needEngine(t, "renpy", "/usr/games/renpy")
	dir := copyGame(t, "runtimes/renpy")
	src := filepath.Join(dir, "game", "script.rpy")
	g := &langGame{dir: dir, progs: map[string][]string{"rp": {"sh", filepath.Join(dir, "run.sh"), renpy}}, first: "rp",
		wrap: langWrapper(t), handled: "missing image enemy.png, using the placeholder"}
	frame := fmt.Sprintf(`game/script.rpy", line %d, in spawn_enemy`, langLineOf(t, src, "CRASH:init"))
	runLang(t, g, []langCase{
		{name: "init", text: regexp.QuoteMeta("KeyError: 'boss'"), level: oplog.LevelError,
			stack: []string{frame, "While running game code:"}, class: oplog.ClassCrash,
			title: "KeyError: 'boss'", where: []string{frame}},
		{name: "parse", text: regexp.QuoteMeta(`File "game/parse.rpy", line 2: is not terminated with a newline.`), level: oplog.LevelError,
			stack: []string{"$ boss_hp = (100 +"}, class: oplog.ClassCrash,
			title: `File "game/parse.rpy", line 2: is not terminated`, where: []string{`parse.rpy", line 2`}, unstamped: true, early: true},
	})
}

// TestRuntime_Python_Groups: the same uncaught exception in two runs is
// one crash group of two; a chained one in a third run another.
func TestRuntime_Python_Groups(t *testing.T) {
	g, _ := langPythonGame(t)
	checkLangGroups(t, g, map[string]string{"uncaught": "ValueError", "chained": "RuntimeError: cannot spawn orc"}, "uncaught", "uncaught", "chained")
}

// TestRuntime_Python_Reraise: logging.exception, then raise: the logger's
// record and the uncaught traceback print one exception, one crash a
// launch (not two).
func TestRuntime_Python_Reraise(t *testing.T) {
	g, _ := langPythonGame(t)
	checkOnceALaunch(t, g, "reraise", "FileNotFoundError: [Errno 2]")
}

// TestRuntime_Python_Appended: the game launched three times with its
// output appended to one log (game >> game.log), its banner first:
// crashed, crashed, then fixed. Followed live and imported, the log has
// three runs, the first two crashed, the third not.
func TestRuntime_Python_Appended(t *testing.T) {
	g, _ := langPythonGame(t)
	path := filepath.Join(t.TempDir(), "game.log")
	appendFile(t, path, "")
	l := mustLog(t)
	opts := testOptions(path)
	opts.Name, opts.makeParser, opts.Parser = "file", nil, "generic"
	f := mustStart(t, l, opts)
	for _, mode := range []string{"uncaught", "uncaught", "ok"} {
		w, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The game's banner first, its build number different each launch.
		cmd := exec.Command("sh", append([]string{"-c", `echo "Dungeon 0.3 (build $$)"; exec "$@"`, "sh"}, g.args(langCase{name: mode}, "none")...)...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = g.dir, w, w
		_ = cmd.Run() // exits 1 when it crashes
		w.Close()
	}
	all, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	logtest.Eventually(t, waitFor, "the follower read the whole log", func() bool { return f.Status().Offset == int64(len(all)) })
	mustClose(t, f)
	mustImport(t, l, all, ImportOptions{Source: "import", Parser: "generic"})
	for _, source := range []string{"file", "import"} {
		runs, err := l.Runs(t.Context(), source)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range runs {
			got = append(got, r.Outcome)
		}
		if len(got) != 3 || got[0] != oplog.OutcomeCrashed || got[1] != oplog.OutcomeCrashed || got[2] == oplog.OutcomeCrashed {
			t.Errorf("%s: runs %q, want crashed, crashed, then not", source, got)
			logLangRecords(t, source, ofSource(t, l, source))
		}
	}
}

// checkOnceALaunch runs g's mode twice under mcplogd run and imports the
// first launch's output: its crash is one group, titled title, of one
// occurrence a launch.
func checkOnceALaunch(t *testing.T, g *langGame, mode, title string) {
	t.Helper()
	l := mustLog(t)
	l.SetCrashes(crash.New(l, nil))
	for i := range 2 {
		_, printed := runGame(t, l, "run", CommandOptions{Args: g.args(langCase{name: mode}, "none"), Env: os.Environ(), Dir: g.dir})
		if i == 0 { // a second import of the same bytes would be skipped
			mustImport(t, l, []byte(printed), ImportOptions{Source: "import"})
		}
	}
	for source, want := range map[string]int{"run": 2, "import": 1} {
		page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: source})
		if err != nil {
			t.Fatal(err)
		}
		ofIt := slices.DeleteFunc(slices.Clone(page.Groups), func(g oplog.CrashGroup) bool { return !strings.HasPrefix(g.Title, title) })
		if len(ofIt) != 1 || ofIt[0].Count != want {
			t.Errorf("%s: %+v; want one group of %d %s", source, page.Groups, want, title)
			logLangRecords(t, source, ofSource(t, l, source))
		}
	}
}
