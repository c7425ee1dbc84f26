package follow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_LoguruCpp: emilk/loguru's lines (C++; testdata/runtimes
// cpp_loguru_*.txt): each its time, its level (ERR an error, WARN a
// warning, FATL fatal), its place's file the name, its text after the bar.
// A failed CHECK_F prints its frames before its fatal line: they are that
// line's stack, after its place. A caught signal's headline, frames and
// fatal line saying the signal again are one fatal record. No frame is a
// record of its own.
func TestParse_LoguruCpp(t *testing.T) {
	for _, parser := range []string{"generic", "auto"} {
		for file, last := range map[string]string{
			"cpp_loguru_check.txt": "fatal game.cpp \"CHECK FAILED:  enemies.size() > 0  no enemies loaded\"",
			"cpp_loguru_segv.txt":  "fatal  \"Loguru caught a signal: SIGSEGV\"",
		} {
			recs := recordsOf(feed(mustParser(t, parser), readSample(t, "runtimes/"+file)))
			var got []string
			for _, r := range recs {
				got = append(got, fmt.Sprintf("%s %s %q", r.Level, r.Name, r.Text))
			}
			if n := len(got); n < 3 || got[n-1] != last || !strings.Contains(strings.Join(got, "\n"), "error game.cpp \"could not load texture grass.png\"") ||
				!strings.Contains(strings.Join(got, "\n"), "info game.cpp \"frame 2\"") {
				t.Errorf("%s %s: records\n%s\nwant the error, the frames and last %s", parser, file, strings.Join(got, "\n"), last)
				continue
			}
			for _, r := range recs[:len(recs)-1] {
				if loguruFrame(r.Text) || r.Text == loguruStack {
					t.Errorf("%s %s: a record of its own: %q", parser, file, r.Text)
				}
			}
			crashed := recs[len(recs)-1]
			if !strings.Contains(crashed.Stack, "__libc_start_main + 133") {
				t.Errorf("%s %s: the crash's stack has not its frames: %+v", parser, file, crashed)
			}
			if file == "cpp_loguru_check.txt" && (!strings.HasPrefix(crashed.Stack, "at game.cpp:25\nStack trace:\n3       0x") ||
				crashed.Time.Format("15:04:05.000") != "01:27:35.390") {
				t.Errorf("%s %s: the failed check at %s, its stack:\n%s", parser, file, crashed.Time, crashed.Stack)
			}
			if file == "cpp_loguru_segv.txt" && !strings.Contains(crashed.Stack, "FATL| Signal: SIGSEGV") {
				t.Errorf("%s %s: the fatal line saying the signal again is not the crash's: %q", parser, file, crashed.Stack)
			}
			if crashed.Level != oplog.LevelFatal {
				t.Errorf("%s %s: level %s", parser, file, crashed.Level)
			}
		}
	}
	// A "Stack trace:" no fatal line follows is a record of its own, its
	// frames its stack.
	es := feed(mustParser(t, "generic"), []byte("Stack trace:\n1       0x5637da005e76 main + 696\n0       0x7fd908a5a050 /lib/x86_64-linux-gnu/libc.so.6(+0x3c050) [0x7fd908a5a050]\n10:00:01 INFO next\n"))
	if recs := recordsOf(es); len(recs) != 2 || recs[0].Text != "Stack trace:" || !strings.HasPrefix(recs[0].Stack, "1       0x5637da005e76 main + 696\n0 ") || recs[1].Text != "next" {
		t.Errorf("a stack trace alone: %+v", recs)
	}
}

// TestParse_StackTraceNotLoguru: a "Stack trace:" line no loguru frame
// follows reads as before: part of the error it follows, with its frames.
func TestParse_StackTraceNotLoguru(t *testing.T) {
	in := "2026-12-07 10:00:01 ERROR could not spawn\nStack trace:\n  at World.Spawn() in World.cs:12\n2026-12-07 10:00:02 INFO next\n"
	recs := recordsOf(feed(mustParser(t, "generic"), []byte(in)))
	if len(recs) != 2 || recs[0].Text != "could not spawn" || recs[0].Stack != "Stack trace:\n  at World.Spawn() in World.cs:12" || recs[1].Text != "next" {
		t.Errorf("%+v", recs)
	}
}

// TestParse_LoguruFramesBounded: frames that never end hold no more than
// loguruMaxFrames; every line is read.
func TestParse_LoguruFramesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("Stack trace:\n")
	n := 3 * loguruMaxFrames
	for i := range n {
		fmt.Fprintf(&b, "%d       0x5637da005e76 main + %d\n", i, i)
	}
	recs := recordsOf(feed(mustParser(t, "generic"), []byte(b.String())))
	var all strings.Builder
	for _, r := range recs {
		all.WriteString(r.Text + "\n" + r.Stack + "\n")
	}
	for i := range n {
		if !strings.Contains(all.String(), fmt.Sprintf("main + %d\n", i)) {
			t.Fatalf("%d records: frame %d is in none of them", len(recs), i)
		}
	}
}
