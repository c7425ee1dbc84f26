package follow

import (
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestCleanLine: what a parser reads of a line a program printed on a
// terminal: colours and titles dropped, a cursor moved right over blank
// cells a space each (Wine's console draws a space as "\x1b[K\x1b[1C";
// the bytes below are wine64 8.0's for printf("game starting\n") on a
// pseudo-terminal), every carriage return before the newline dropped.
func TestCleanLine(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[1;31mERROR\x1b[0m: boom\r": "ERROR: boom",
		"\x1b]0;My Game\x07ready":        "ready",
		"\x1b[?25lg\x1b[?25h\x1b[?25la\x1b[?25h\x1b[?25lm\x1b[?25h\x1b[?25le\x1b[?25h\x1b[?25l\x1b[K\x1b[1C\x1b[?25h\x1b[?25ls\x1b[?25h\x1b[?25lt\x1b[?25h\x1b[?25la\x1b[?25h\x1b[?25lr\x1b[?25h\x1b[?25lt\x1b[?25h\x1b[?25li\x1b[?25h\x1b[?25ln\x1b[?25h\x1b[?25lg\x1b[?25h\r\r": "game starting",
		"a\x1b[3Cb":           "a   b",
		"a\x1b[Cb":            "a b",
		"a\x1b[99999Cb":       "a" + strings.Repeat(" ", maxCursorForward) + "b",
		"plain":               "plain",
		"cut at the end\x1b[": "cut at the end",
		// A character set's and the keypad's escapes, whole.
		"\x1b(Bready\x1b=\x1b>": "ready",
		// What a curses game drew on the alternate screen is gone once it
		// leaves it (Python's curses.wrapper, then the traceback); a
		// carriage return goes back over the line.
		"\x1b[?1049h\x1b[H\x1b[2J#########\r\x1b[2d#..@....#\x1b[?1049l\x1b[23;0;0t\r\x1b[?1l\x1b>Traceback (most recent call last):\r": "Traceback (most recent call last):",
		"\x1b[32mLoading 10%\rLoading 100%\x1b[0m": "Loading 100%",
		"\x1b[1mabcdef\rXY":                        "XYcdef",
		// A loading bar without colours, drawn again and again; a
		// carriage return in a logged message is its text.
		"Loading 10%\rLoading 20%\rLoading 100%":                                                     "Loading 100%",
		"[logtest] CR\rinside and trailing newline":                                                  "[logtest] CR\rinside and trailing newline",
		"\rLoading assets:   0% |     |\rLoading assets:  50% |##   |\rLoading assets: 100% |#####|": "Loading assets: 100% |#####|",
		"\r 10%|█         | 1/10\r100%|██████████| 10/10":                                            "100%|██████████| 10/10",
	} {
		if got := cleanLine([]byte(in)); got != want {
			t.Errorf("cleanLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestQuietFor_Waiting: a quiet moment ends a held entry, but not a report
// that pauses between its parts: the sanitizers' after their first line
// (they symbolize the frames), Wine's between ntdll's line and winedbg's
// report, until reportPause; after its last line it ends as any entry.
func TestQuietFor_Waiting(t *testing.T) {
	for name, c := range map[string]struct{ begin, last string }{
		"asan": {"==31758==ERROR: AddressSanitizer: heap-use-after-free on address 0x6020000002d8 at pc 0x555ebb5303d4 bp 0x7ffc385d2770 sp 0x7ffc385d2768", "==31758==ABORTING"},
		"wine": {"wine: Unhandled page fault on write access to 0000000000000004 at address 00000001400015F5 (thread 0024), starting debugger...", "    Host version: 6.18.44"},
		// LeakSanitizer's report ends with its summary; ThreadSanitizer's
		// with a ruler.
		"lsan": {"==18093==ERROR: LeakSanitizer: detected memory leaks", "SUMMARY: AddressSanitizer: 64 byte(s) leaked in 1 allocation(s)."},
		"tsan": {"WARNING: ThreadSanitizer: data race (pid=26921)", "=================="},
	} {
		p := mustParser(t, "generic")
		p.Line("game starting", 14)
		p.Line(c.begin, 200)
		if !waitingFor(p) || quietFor(p, time.Second, 2*time.Second) || !quietFor(p, time.Second, reportPause) {
			t.Errorf("%s: after its first line: waiting %v", name, waitingFor(p))
		}
		if name == "tsan" {
			p.Line("SUMMARY: ThreadSanitizer: data race /home/dev/game/game.c:13 in main", 300)
		}
		if name == "wine" {
			p.Line("Unhandled exception: page fault on write access to 0x0000000000000004 in 64-bit code (0x000001400015f5).", 300)
		}
		p.Line(c.last, 400)
		if waitingFor(p) || !quietFor(p, time.Second, 2*time.Second) {
			t.Errorf("%s: after its last line: waiting %v", name, waitingFor(p))
		}
	}
	if p := mustParser(t, "generic"); waitingFor(p) {
		t.Error("an empty parser waits")
	}
	// Ren'Py's report of an exception at init, printed twice (its second
	// copy after it wrote traceback.txt, seconds later on a loaded
	// machine): waited for after the first, not after the second.
	lines := strings.SplitAfter(string(readSample(t, "generic/renpy8_stdout_init.txt")), "\n")
	p := mustParser(t, "generic")
	for i, line := range lines {
		p.Line(strings.TrimSuffix(line, "\n"), int64(i))
		if i == 35 && !waitingFor(p) {
			t.Error("Ren'Py: after the first copy of its report: not waiting")
		}
	}
	if waitingFor(p) {
		t.Error("Ren'Py: after the second copy: waiting")
	}
}

// TestReadTimes_Stamp: a record without a time gets its first line's read
// time; one whose own time says only the second gets the read time when it
// was read within that second (its lines keep their order with the records
// around them), else keeps its own, as one with a fraction of its own does.
func TestReadTimes_Stamp(t *testing.T) {
	sec := time.Date(2026, 12, 6, 10, 0, 1, 0, time.UTC)
	for _, c := range []struct {
		name      string
		own, read time.Time
		want      time.Time
	}{
		{"no time", time.Time{}, sec.Add(400 * time.Millisecond), sec.Add(400 * time.Millisecond)},
		{"its second", sec, sec.Add(400 * time.Millisecond), sec.Add(400 * time.Millisecond)},
		{"a later second", sec, sec.Add(1200 * time.Millisecond), sec},
		{"before it", sec, sec.Add(-300 * time.Millisecond), sec},
		{"a fraction of its own", sec.Add(5 * time.Millisecond), sec.Add(400 * time.Millisecond), sec.Add(5 * time.Millisecond)},
	} {
		var rt readTimes
		rt.read(10, c.read)
		rt.read(20, c.read.Add(time.Second))
		e := Entry{Record: oplog.Record{Time: c.own}, End: 10}
		rt.stamp(&e)
		if !e.Record.Time.Equal(c.want) {
			t.Errorf("%s: %s, want %s", c.name, e.Record.Time, c.want)
		}
		if len(rt.q) != 1 || rt.q[0].end != 20 {
			t.Errorf("%s: the lines left: %+v, want the one past the entry", c.name, rt.q)
		}
	}
}
