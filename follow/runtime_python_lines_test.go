//go:build !windows

package follow

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestRuntime_PythonLineBefore: what a Python game printed just before
// its uncaught exception stays what it was. A prompt written without a
// line break ("press enter to start", input()'s) shares its line of the
// output with "Traceback (most recent call last):"; a logger's warning
// ("sound disabled") comes on the line before it. Run under mcplogd run,
// its output followed and imported: the prompt an info record and the
// warning a warning, neither with a stack; the exception an error record
// with the traceback, the crash of the run, titled by the game's frame.
func TestRuntime_PythonLineBefore(t *testing.T) {
	python := needEngine(t, "python3")
	dir := t.TempDir()
	for name, c := range map[string]struct{ src, before, level, exc string }{
		"prompt": {"print('welcome to the dungeon')\ninput('press enter to start')\nkeys = {}\nprint(keys['boss'])  # CRASH\n",
			"press enter to start", "info", "KeyError: 'boss'"},
		"warning": {"import logging\nlogging.warning('sound disabled: no audio device')\nraise RuntimeError('no display')  # CRASH\n",
			"sound disabled: no audio device", "warn", "RuntimeError: no display"},
	} {
		game := filepath.Join(dir, name+".py")
		if err := os.WriteFile(game, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		frame := fmt.Sprintf("line %d", strings.Count(c.src[:strings.Index(c.src, "# CRASH")], "\n")+1)
		l := mustLog(t)
		l.SetCrashes(crash.New(l, nil))
		_, printed := runGame(t, l, "run", CommandOptions{Args: []string{python, game}, Stdin: strings.NewReader("\n")})
		mustImport(t, l, []byte(printed), ImportOptions{Source: "import"})
		followed := followInChunks(t, []byte(printed), rand.New(rand.NewPCG(3, uint64(len(printed)))))
		for way, recs := range map[string][]oplog.Record{"run": ofSource(t, l, "run"), "import": ofSource(t, l, "import"), "followed": followed} {
			i := slices.IndexFunc(recs, func(r oplog.Record) bool { return r.Text == c.before || strings.HasSuffix(r.Text, ":"+c.before) })
			j := slices.IndexFunc(recs, func(r oplog.Record) bool { return r.Text == c.exc })
			if i < 0 || recs[i].Level.String() != c.level || recs[i].Stack != "" || j < 0 || recs[j].Level != oplog.LevelError ||
				!strings.HasPrefix(recs[j].Stack, "Traceback (most recent call last):") || !strings.Contains(recs[j].Stack, frame) {
				t.Errorf("%s %s: the line before %d, the exception %d, in:", name, way, i, j)
				for _, r := range recs {
					t.Errorf("  %s %q stack %.80q", r.Level, r.Text, r.Stack)
				}
			}
		}
		page, err := l.FindCrashes(t.Context(), oplog.CrashQuery{Source: "run", Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Groups) != 1 || !strings.HasPrefix(page.Groups[0].Title, c.exc+` in File "`) || !strings.Contains(page.Groups[0].Title, frame) {
			t.Errorf("%s: the crash %+v; want %q at %s", name, page.Groups, c.exc, frame)
		}
	}
}
