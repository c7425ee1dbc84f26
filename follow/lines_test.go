package follow

import (
	"strings"
	"testing"
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
	} {
		if got := cleanLine([]byte(in)); got != want {
			t.Errorf("cleanLine(%q) = %q, want %q", in, got, want)
		}
	}
}
