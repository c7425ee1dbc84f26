package follow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_Rich: rich's logging handler and tracebacks as a file holds
// them (testdata/runtimes/py_rich.txt: 80 columns, the paths folded over
// two rows, the locals shown): each row one record at its level with its
// time, its message's lines joined and its place after them; the handled
// error's boxed traceback under its message that record's stack, as
// CPython prints one; the uncaught chained exception one record, its
// frames and the line that ran, no source around them and no locals,
// titled where it was raised.
func TestParse_Rich(t *testing.T) {
	const where = "/home/dev/game/a_folder_deep_enough/that_rich_folds_the_path/py_rich.py"
	for _, parser := range []string{"generic", "auto"} {
		recs := recordsOf(feed(mustParser(t, parser), readSample(t, "runtimes/py_rich.txt")))
		var got []string
		for _, r := range recs {
			got = append(got, fmt.Sprintf("%s %s %q", r.Time.Format("15:04:05"), r.Level, r.Text))
		}
		want := []string{
			`01:07:41 info "frame 0  py_rich.py:27"`,
			`01:07:41 info "frame 1  py_rich.py:27"`,
			`01:07:41 warn "the save file is from an older version its scores are kept, its settings reset  py_rich.py:29"`,
			`01:07:41 info "frame 2  py_rich.py:27"`,
			`01:07:41 error "could not load the level caves, falling back to the tutorial  py_rich.py:34"`,
			`01:07:41 info "frame 3  py_rich.py:27"`,
			`00:00:00 error "RuntimeError: no spawn point for orc"`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: records\n%s\nwant\n%s", parser, strings.Join(got, "\n"), strings.Join(want, "\n"))
			continue
		}
		if d := recs[0].Time.Format("2006-01-02"); d != "2026-12-07" {
			t.Errorf("%s: the rows' date %s, want 2026-12-07 (\"[12/07/26 …]\", month first)", parser, d)
		}
		handled := "Traceback (most recent call last):\n" +
			`  File "` + where + `", line 32, in <module>` + "\n" +
			`    load_level("cave` + "\n" +
			`  File "` + where + `", line 15, in load_level` + "\n" +
			`    with open("levels/" + na` + "\n" +
			"FileNotFoundError: [Errno 2] No such file or directory: 'levels/caves.json'"
		if recs[4].Stack != handled {
			t.Errorf("%s: the handled error's stack\n%s\nwant\n%s", parser, recs[4].Stack, handled)
		}
		crashed := recs[6].Stack
		for _, s := range []string{
			`File "` + where + `", line 21, in spawn_enemy`, "KeyError: 'orc'", "The above exception was the direct cause",
			`File "` + where + `", line 36, in <module>`, `    spawn_enemy({"goblin": 1}, "orc")`, `File "` + where + `", line 23, in spawn_enemy`,
		} {
			if !strings.Contains(crashed, s) {
				t.Errorf("%s: the crash's stack has no %q:\n%s", parser, s, crashed)
			}
		}
		for _, s := range []string{"locals", "enemies =", "│", "╭", "except KeyError"} {
			if strings.Contains(crashed, s) || strings.Contains(recs[4].Stack, s) {
				t.Errorf("%s: a stack has %q, which the box drew around the frames", parser, s)
			}
		}
		if f := crash.GameFrame(crashed); !strings.HasSuffix(f, `py_rich.py", line 23, in spawn_enemy`) {
			t.Errorf("%s: game frame %q", parser, f)
		}
	}
}

// structlogRich is structlog's console renderer's error with rich's
// traceback (structlog 22.3 with rich 13.3, colours left out).
const structlogRich = "2026-12-07 01:24:17 [error    ] spawn failed                   kind=orc\n" +
	"╭──── Traceback (most recent call last) ────╮\n│ /tmp/sl.py:8 in <module>                 │\n│                                           │\n" +
	"│ ❱  8 │   spawn({}, \"orc\")                  │\n│   9 except KeyError:                       │\n╰───────────────────────────────────────────╯\n" +
	"KeyError: 'orc'\n"

// TestParse_RichNotRich: lines that only look like rich's are read as they
// came: a row-like line indented under another logger's time, a box that
// is no traceback's, a box cut short; another logger's line before rich's
// traceback (structlog's) keeps it as its stack.
func TestParse_RichNotRich(t *testing.T) {
	for in, want := range map[string][]string{
		// A first line in brackets whose next line is indented as far as
		// the time: an aligned continuation, not a row.
		"[10:00:01] loading\n           INFO is what it said\n": {"info loading"},
		// A table drawn in a box is no traceback.
		"╭──── scores ────╮\n│ ana   12      │\n╰────────────────╯\nbye\n": {"info ╭──── scores ────╮", "info │ ana   12      │", "info ╰────────────────╯", "info bye"},
		// structlog's console with rich: the line that ran's number
		// right-aligned ("❱  8"); the stack is checked below.
		structlogRich: {"error spawn failed                   kind=orc"},
		// A traceback box cut short: the line after it is its own.
		"╭── Traceback (most recent call last) ──╮\n│ /g.py:3 in <module>                   │\n10:00:01 INFO bye\n": {"error Traceback (most recent call last):", "info bye"},
	} {
		var got []string
		for _, r := range recordsOf(feed(mustParser(t, "generic"), []byte(in))) {
			got = append(got, r.Level.String()+" "+r.Text)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	es := feed(mustParser(t, "generic"), []byte(structlogRich))
	want := "Traceback (most recent call last):\n  File \"/tmp/sl.py\", line 8, in <module>\n    spawn({}, \"orc\")\nKeyError: 'orc'"
	if len(es) != 1 || es[0].Record.Stack != want {
		t.Errorf("structlog with rich: %+v, want one record whose stack is\n%s", recordsOf(es), want)
	}
}

// TestParse_RichLong: a row whose message goes on without end is cut into
// records of at most a record's text, not held whole: every line is read.
func TestParse_RichLong(t *testing.T) {
	var b strings.Builder
	b.WriteString("[12/07/26 00:59:04] INFO     a long message  game.py:21\n")
	line := strings.Repeat(" ", 29) + strings.Repeat("x", 999) + "\n"
	for range 2 * oplog.MaxTextBytes / 1000 {
		b.WriteString(line)
	}
	b.WriteString("[12/07/26 00:59:05] INFO     next  game.py:22\n")
	recs := recordsOf(feed(mustParser(t, "generic"), []byte(b.String())))
	total := 0
	for _, r := range recs {
		if len(r.Text) > oplog.MaxTextBytes+1000 {
			t.Fatalf("a record of %d bytes of text", len(r.Text))
		}
		total += strings.Count(r.Text, "x") + strings.Count(r.Stack, "x")
	}
	if want := 999 * (2 * oplog.MaxTextBytes / 1000); total < want || recs[len(recs)-1].Text != "next  game.py:22" {
		t.Fatalf("%d records, %d x's read of %d, last %q", len(recs), total, want, recs[len(recs)-1].Text)
	}
}
