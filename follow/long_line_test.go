package follow

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// checkCut fails unless text is the head of a line of total bytes of
// the letter c, within a record's text, ending in the mark of a cut line
// whose counts add up.
func checkCut(tb testing.TB, what, text string, total int, c string) {
	tb.Helper()
	m := longCutRe.FindStringSubmatch(text)
	if m == nil || len(text) > oplog.MaxTextBytes {
		tb.Fatalf("%s: %d bytes ending %q; want at most %d ending in the cut mark", what, len(text), text[max(len(text)-80, 0):], oplog.MaxTextBytes)
	}
	head := strings.TrimSuffix(text, m[0])
	dropped, _ := strconv.Atoi(m[2])
	if m[1] != strconv.Itoa(total) || dropped != total-len(head) || strings.Trim(head, c) != "" || len(head) < oplog.CutHead-4 {
		tb.Fatalf("%s: the mark says %s bytes, %s dropped, the head is %d bytes; the line was %d bytes", what, m[1], m[2], len(head), total)
	}
}

// longCutRe reads the mark of a cut line: the line's bytes and the bytes
// dropped (on every platform, unlike command_cut_test.go).
var longCutRe = regexp.MustCompile(` … \[line cut: (\d+) bytes, (\d+) dropped\]$`)

// TestFollower_LongLinesCut: a followed file's line longer than a record's
// text is stored once, its head marked cut with its length, whether it is
// 50 MB (written while the follower reads) or 300 KB (held whole, then cut
// by the parser); the lines around it are whole. Before, the 50 MB line
// became 48 records of 256 KiB with no mark, and the 300 KB one was cut to
// 256 KiB without a word.
func TestFollower_LongLinesCut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "game.log")
	l := mustLog(t)
	appendFile(t, path, "before\n")
	opts := testOptions(path)
	opts.makeParser, opts.Parser = nil, "generic"
	f := mustStart(t, l, opts)
	const big, mid = 50_000_000, 300_000
	piece := strings.Repeat("a", 5_000_000)
	for range big / len(piece) {
		appendFile(t, path, piece)
	}
	appendFile(t, path, "\n"+strings.Repeat("b", mid)+"\nafter\n")
	waitStored(t, l, 4)
	mustClose(t, f)
	recs := stored(t, l)
	var ls []oplog.Record
	for _, r := range recs {
		if r.Kind == oplog.KindLine {
			ls = append(ls, r)
		}
	}
	if len(ls) != 4 || ls[0].Text != "before" || ls[3].Text != "after" {
		t.Fatalf("%d lines, want before, two cut lines, after: %.120q", len(ls), texts(ls))
	}
	checkCut(t, "the 50 MB line", ls[1].Text, big, "a")
	checkCut(t, "the 300 KB line", ls[2].Text, mid, "b")
}

// TestImport_LongLinesCut: an imported log's long lines are cut and
// marked as a followed file's are, by every parser; a line of the wire
// format longer than a record can be is refused naming its line, and one
// within it (a record with a 1 MiB stack) is imported.
func TestImport_LongLinesCut(t *testing.T) {
	const mid = 300_000
	for _, p := range parsers {
		name := p.names[0]
		t.Run(name, func(t *testing.T) {
			l := mustLog(t)
			data := "before\n" + strings.Repeat("b", mid) + "\nafter\n"
			mustImport(t, l, []byte(data), ImportOptions{Parser: name})
			found := false
			for _, r := range stored(t, l) {
				if len(r.Text) > oplog.MaxTextBytes {
					t.Fatalf("a text of %d bytes", len(r.Text))
				}
				if !strings.Contains(r.Text, "bbbb") {
					continue
				}
				// A parser may join the line to the one before it.
				found = true
				m := longCutRe.FindStringSubmatch(r.Text)
				if m == nil {
					t.Fatalf("the long line's record: %d bytes ending %q, no cut mark", len(r.Text), r.Text[max(len(r.Text)-80, 0):])
				}
				total, _ := strconv.Atoi(m[1])
				if total < mid || total > mid+len(data) || m[2] != strconv.Itoa(total-len(strings.TrimSuffix(r.Text, m[0]))) {
					t.Fatalf("the long line's record: %d bytes ending %q", len(r.Text), r.Text[max(len(r.Text)-80, 0):])
				}
			}
			if !found && strings.Contains(fmt.Sprint(texts(stored(t, l))), "after") {
				t.Fatal("the long line is in no record") // a parser of crash reports keeps no plain line
			}
		})
	}

	t.Run("50 MB", func(t *testing.T) {
		l := mustLog(t)
		const big = 50_000_000
		in := io.MultiReader(strings.NewReader("before\n"), io.LimitReader(repeatReader('a'), big), strings.NewReader("\nafter\n"))
		if _, err := Import(context.Background(), l, in, ImportOptions{Source: testSource, Parser: "generic"}); err != nil {
			t.Fatal(err)
		}
		ls := stored(t, l)
		if len(ls) < 3 || ls[0].Text != "before" || ls[2].Text != "after" {
			t.Fatalf("%d records: %.80q", len(ls), texts(ls))
		}
		checkCut(t, "the 50 MB line", ls[1].Text, big, "a")
	})

	t.Run("wire format", func(t *testing.T) {
		decode := func(b []byte) (oplog.Record, error) {
			var r struct{ Text, Stack string }
			if err := json.Unmarshal(b, &r); err != nil {
				return oplog.Record{}, err
			}
			return oplog.Record{Level: oplog.LevelInfo, Text: r.Text, Stack: r.Stack}, nil
		}
		line := func(text, stack string) string {
			b, _ := json.Marshal(map[string]string{"text": text, "stack": stack})
			return string(b) + "\n"
		}
		l := mustLog(t)
		stack := strings.Repeat("at Game.Update()\n", oplog.MaxStackBytes/20)
		data := line("a", "") + line("crash", stack) + line("b", "")
		if res := mustImport(t, l, []byte(data), ImportOptions{Decode: decode}); res.Parser != "ndjson" || res.Records != 3 {
			t.Fatalf("a record of %d bytes: %+v", len(line("crash", stack)), res)
		}
		if got := tailAll(t, l, oplog.Filter{}); len(got) != 3 || got[1].Stack != stack {
			t.Fatalf("%d records, want 3 with the stack kept whole", len(got))
		}
		huge := line(strings.Repeat("x", 9<<20), "")
		_, err := Import(context.Background(), l, strings.NewReader(line("a", "")+huge), ImportOptions{Source: "other", Decode: decode})
		if err == nil || !strings.Contains(err.Error(), "line 2: "+strconv.Itoa(len(huge)-1)+" bytes") {
			t.Fatalf("a line of %d bytes: %v", len(huge), err)
		}
	})
}

// repeatReader reads c forever.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
