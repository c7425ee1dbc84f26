//go:build !windows

package follow

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// cutMarkRe reads the mark of a cut line: the line's bytes and the bytes dropped.
var cutMarkRe = regexp.MustCompile(` … \[line cut: (\d+) bytes, (\d+) dropped\]$`)

// TestRunCommand_LongLineCut: a program that prints a 50 MB line is
// recorded with one record of that line, its head within a record's text
// and a mark saying how long the line was and how many bytes were
// dropped; the lines after it are recorded as usual.
func TestRunCommand_LongLineCut(t *testing.T) {
	l := mustLog(t)
	const n = 50_000_000
	runCmd(t, l, CommandOptions{Args: []string{"sh", "-c", fmt.Sprintf("echo before; head -c %d /dev/zero | tr '\\0' a; echo; echo after", n)}})
	var lines []oplog.Record
	for _, r := range all(t, l) {
		if r.Kind == oplog.KindLine {
			lines = append(lines, r)
		}
	}
	if len(lines) != 3 || lines[0].Text != "before" || lines[2].Text != "after" {
		t.Fatalf("%d lines, want before, the long line, after: %.200v", len(lines), lines)
	}
	text := lines[1].Text
	m := cutMarkRe.FindStringSubmatch(text)
	if m == nil || len(text) > oplog.MaxTextBytes {
		t.Fatalf("the long line: %d bytes ending %q; want at most %d ending in the cut mark", len(text), text[max(len(text)-100, 0):], oplog.MaxTextBytes)
	}
	total, _ := strconv.ParseInt(m[1], 10, 64)
	dropped, _ := strconv.ParseInt(m[2], 10, 64)
	head := strings.TrimSuffix(text, m[0])
	if total < n || total > n+1 || total-dropped != int64(len(head)) || strings.Trim(head, "a") != "" || len(head) < oplog.CutHead {
		t.Fatalf("the mark says %d bytes, %d dropped; the head kept is %d bytes (%q...)", total, dropped, len(head), head[:min(len(head), 20)])
	}
}

// TestLineCutter_Split: lines split across chunks are joined, a line over
// maxLine is handed over once with its mark, and the next line is whole.
func TestLineCutter_Split(t *testing.T) {
	long := strings.Repeat("é", maxLine) // 2 bytes each: cut inside a character
	in := "one\ntw" + "o\n" + long + "\nthree\n"
	var l lineCutter
	var got []string
	var ends []int64
	for off := 0; off < len(in); off += 4096 {
		chunk := in[off:min(off+4096, len(in))]
		l.split([]byte(chunk), int64(off+len(chunk)), func(line []byte, end int64) {
			got, ends = append(got, string(line)), append(ends, end)
		})
	}
	if len(got) != 4 || got[0] != "one" || got[1] != "two" || got[3] != "three" || l.held() {
		t.Fatalf("lines %.80q", got)
	}
	m := cutMarkRe.FindStringSubmatch(got[2])
	head := strings.TrimSuffix(got[2], m[0])
	if m == nil || m[1] != strconv.Itoa(len(long)) || strings.Trim(head, "é") != "" || m[2] != strconv.Itoa(len(long)-len(head)) || len(got[2]) > oplog.MaxTextBytes {
		t.Fatalf("the long line: %d bytes, mark %q", len(got[2]), m)
	}
	if want := []int64{4, 8, int64(9 + len(long)), int64(len(in))}; fmt.Sprint(ends) != fmt.Sprint(want) {
		t.Fatalf("ends %v, want %v", ends, want)
	}
}

// TestRunCommand_LongLineWithoutNewline: a cut line whose newline does not
// come is stored once output was quiet for Quiet, marked cut.
func TestRunCommand_LongLineWithoutNewline(t *testing.T) {
	l := mustLog(t)
	runCmd(t, l, CommandOptions{Quiet: 100 * time.Millisecond,
		Args: []string{"sh", "-c", fmt.Sprintf("head -c %d /dev/zero | tr '\\0' b; sleep 1; echo; echo after", 3*maxLine)}})
	var texts []string
	for _, r := range all(t, l) {
		if r.Kind == oplog.KindLine {
			texts = append(texts, r.Text)
		}
	}
	if len(texts) != 2 || texts[1] != "after" || cutMarkRe.FindStringSubmatch(texts[0]) == nil {
		t.Fatalf("lines %.100q", texts)
	}
}
