package oplog

import (
	"strings"
	"testing"
)

// checkLabel refuses a source or name with a NUL or a line break anywhere,
// naming the field, and takes any other text up to MaxLabelBytes.
func TestCheckLabel(t *testing.T) {
	for _, s := range []string{"", "Physics", "Main Camera/Player (1)", "физика", "a\tb", strings.Repeat("x", MaxLabelBytes)} {
		if err := checkLabel("name", s); err != nil {
			t.Errorf("checkLabel(%q) = %v, want nil", s, err)
		}
	}
	for _, s := range []string{"a\nb", "\r", "end\x00", "\x00start", "x\r\n"} {
		err := checkLabel("name", s)
		if err == nil || !strings.Contains(err.Error(), "name: must not contain NUL or line breaks") {
			t.Errorf("checkLabel(%q) = %v, want the NUL or line break refused", s, err)
		}
	}
	if err := checkLabel("source", strings.Repeat("x", MaxLabelBytes+1)); err == nil || !strings.Contains(err.Error(), "source:") {
		t.Errorf("a label over MaxLabelBytes: %v", err)
	}
}

// OneLine keeps every other byte in place (search fragments rely on it);
// squeezed, it makes a column's cell.
func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		in      string
		squeeze bool
		want    string
	}{
		{"plain text", false, "plain text"},
		{"a\nb\r\nc\td", false, "a b  c d"},
		{"  two  spaces\n", false, "  two  spaces "},
		{"a\nb\r\nc\td", true, "a b c d"},
		{"  two  spaces\n", true, "two spaces"},
		{"", true, ""},
	} {
		if got := OneLine(c.in, c.squeeze); got != c.want {
			t.Errorf("OneLine(%q, %v) = %q; want %q", c.in, c.squeeze, got, c.want)
		}
	}
}
