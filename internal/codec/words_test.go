package codec_test

import (
	"bytes"
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// wordsBlock seals one line record for each of texts (padded to 8
// records) and reads the block back, failing unless it keeps its texts as
// words and every value comes back byte for byte.
func wordsBlock(t testing.TB, texts []string) {
	t.Helper()
	for len(texts) < 8 {
		texts = append(texts, "")
	}
	base := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	var ids []uint64
	var vals [][]byte
	for i, text := range texts {
		r := oplog.Record{Level: oplog.LevelInfo, Source: "game", Name: "console", Text: text, Time: base.Add(time.Duration(i))}
		ids, vals = append(ids, uint64(i+1)), append(vals, codec.Append(nil, &r))
	}
	v, err := codec.AppendBlock(nil, 3, ids, vals, false)
	if err != nil {
		t.Fatal(err)
	}
	if v[0] != codec.BlockZstdWords {
		t.Fatalf("block format %d; want %d, its texts as words", v[0], codec.BlockZstdWords)
	}
	b, err := codec.DecodeBlock(v)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b.Len() {
		// a value of 256 bytes or more went in compressed (format 3)
		// and comes out expanded: the record is what is compared
		r, err := codec.Decode(b.ID(i), b.Value(i))
		if err != nil || r.Text != texts[i] || b.Value(i)[0] != codec.Format {
			t.Fatalf("text %d reads %q (%v); want %q", i, oplog.ClipBytes(r.Text, 200), err, oplog.ClipBytes(texts[i], 200))
		}
		if len(vals[i]) > 0 && vals[i][0] == codec.Format && !bytes.Equal(b.Value(i), vals[i]) {
			t.Fatalf("value %d reads %x; want %x", i, b.Value(i), vals[i])
		}
	}
}

// TestBlock_Words_ExactBytes: texts come back byte for byte whatever they
// hold: nothing, separators only, spaces at either end, numbers
// canonical and not (leading zeros, 19 and 20 digits, past uint64),
// numbers glued to letters, UTF-8, bytes that are not UTF-8, NUL,
// several lines.
func TestBlock_Words_ExactBytes(t *testing.T) {
	wordsBlock(t, []string{
		"",
		" ",
		"  --  ",
		"  Loading scene Main  ",
		"id=0 007 00 42 123456789012345678 1234567890123456789 18446744073709551615 99999999999999999999999",
		"Chunk 12,-7 streamed in 16ms; 3.14159 1e9 0x1F -0",
		"naïve café — Größe 日本語 ok",
		"\xff\xfe broken \xc3 utf8 \x80",
		"a\x00b\x00\x00c",
		"NullReferenceException: Object reference not set\n  at Player.Update () [0x00012] in Player.cs:42\r\n",
		"\ttabs\tand  double  spaces\t",
		"42",
		"_ __ _x_ x_1",
	})
}

// TestBlock_Words_Widths: a block of more than 256 and more than 65,536
// distinct words keeps their ranks in two and three bytes.
func TestBlock_Words_Widths(t *testing.T) {
	for _, distinct := range []int{200, 300, 70_000} {
		var texts []string
		var b strings.Builder
		for i := range distinct {
			fmt.Fprintf(&b, "w%x ", i)
			if (i+1)%(distinct/8) == 0 {
				texts = append(texts, b.String())
				b.Reset()
			}
		}
		texts = append(texts, b.String(), "w0 w1 w0 w0")
		wordsBlock(t, texts)
	}
}

func FuzzBlockWords(f *testing.F) {
	f.Add([]byte("Loading scene 12 of 40\x1eid=007 café\x1e\xff\x00 x"))
	f.Add([]byte("a b a b 1 1 01\x1e\x1e  "))
	f.Fuzz(func(t *testing.T, data []byte) {
		wordsBlock(t, strings.Split(string(data), "\x1e"))
	})
}

// TestBlock_Words_RealLogs: the lines of every engine and runtime log the
// parsers' tests keep (follow/testdata: Unity, Godot, Luanti, Minecraft,
// Unreal, LÖVE, Rust, the runtimes' crash reports, JSON loggers; their
// provenance is written beside them) come back byte for byte from blocks,
// one line a text, and each file whole as one text too.
func TestBlock_Words_RealLogs(t *testing.T) {
	var texts []string
	files := 0
	err := filepath.WalkDir("../../follow/testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "fuzz" {
			return cmp.Or(err, fs.SkipDir)
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		texts = append(texts, string(b))
		texts = append(texts, strings.Split(string(b), "\n")...)
		return nil
	})
	if err != nil || files < 20 {
		t.Fatalf("%d log files read (%v); want the parsers' fixtures", files, err)
	}
	for len(texts) > 0 {
		n := min(len(texts), 500)
		wordsBlock(t, texts[:n])
		texts = texts[n:]
	}
}
