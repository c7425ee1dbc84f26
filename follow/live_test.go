package follow

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestFollow_LiveEqualsOneShot follows every fixture under testdata (real
// engines' logs and the hand-written ones) as a game writes it, in random
// chunks, and checks that the records are exactly those a one-shot parse
// of the whole file gives: whatever the chunking, an entry ends at its
// format's end, not where a read happened to stop. The seed is logged.
func TestFollow_LiveEqualsOneShot(t *testing.T) {
	var fixtures []string
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".log") || strings.HasSuffix(path, ".txt") || strings.HasSuffix(path, ".jsonl")) {
			fixtures = append(fixtures, path)
		}
		return err
	})
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures under testdata: %v", err)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for _, fx := range fixtures {
		t.Run(strings.TrimPrefix(filepath.ToSlash(fx), "testdata/"), func(t *testing.T) {
			data, err := os.ReadFile(fx)
			if err != nil {
				t.Fatal(err)
			}
			want := oneShot(t, data)
			got := followInChunks(t, data, rand.New(rand.NewPCG(seed, uint64(len(data)))))
			if len(got) != len(want) {
				t.Fatalf("followed live: %d records, a one-shot parse: %d\n got  %q\n want %q", len(got), len(want), clip(texts(got)), clip(texts(want)))
			}
			for i := range want {
				if d := diffRecord(&got[i], &want[i]); d != "" {
					t.Errorf("record %d (%.60q): %s", i, want[i].Text, d)
				}
			}
		})
	}
}

// oneShot parses data at once, as a file read in one go would be: every
// complete line (a last line without its newline is held by a follower
// until it ends, so it is left out here too), then a flush.
func oneShot(t *testing.T, data []byte) []oplog.Record {
	t.Helper()
	np, err := NewParser("auto", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := feedComplete(withMarkers(np), data) // as the follower reads
	recs := make([]oplog.Record, len(entries))
	for i, e := range entries {
		recs[i] = e.Record
	}
	return recs
}

// followInChunks writes data to a new file in random chunks, a few
// milliseconds apart, while a Follower with the auto parser reads it, and
// returns what it stored once closed.
func followInChunks(t *testing.T, data []byte, rng *rand.Rand) []oplog.Record {
	t.Helper()
	l := mustLog(t)
	path := filepath.Join(t.TempDir(), "game.log")
	f := mustStart(t, l, Options{Name: testSource, Path: path, Poll: 2 * time.Millisecond, Quiet: 5 * time.Second})
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(2048))
		if _, err := w.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
		if rng.IntN(3) == 0 {
			time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	waitLines(t, f, uint64(bytes.Count(data, []byte("\n"))))
	mustClose(t, f) // flushes the entry it holds
	return stored(t, l)
}

// waitLines waits until the follower has read n lines.
func waitLines(t *testing.T, f *Follower, n uint64) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for f.Status().Lines < n {
		if time.Now().After(deadline) {
			t.Fatalf("the follower read %d of %d lines", f.Status().Lines, n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// diffRecord compares what the parser decides: level, name, text, stack,
// the time when the parser read one, and its data less the follower's
// position keys.
func diffRecord(got, want *oplog.Record) string {
	var d []string
	if got.Level != want.Level {
		d = append(d, "level "+got.Level.String()+", want "+want.Level.String())
	}
	if got.Name != want.Name {
		d = append(d, "name "+got.Name+", want "+want.Name)
	}
	if got.Text != want.Text {
		d = append(d, "text differs: "+got.Text)
	}
	if got.Stack != want.Stack {
		d = append(d, "stack differs:\n"+got.Stack+"\nwant\n"+want.Stack)
	}
	if !want.Time.IsZero() && !got.Time.Equal(want.Time) {
		d = append(d, "time "+got.Time.String()+", want "+want.Time.String())
	}
	if g, w := parserData(got.Data), parserData(want.Data); g != w {
		d = append(d, "data "+g+", want "+w)
	}
	return strings.Join(d, "; ")
}

// parserData is data without the keys the follower adds.
func parserData(b json.RawMessage) string {
	var m map[string]json.RawMessage
	if len(b) == 0 || json.Unmarshal(b, &m) != nil {
		return string(b)
	}
	delete(m, "file")
	delete(m, "offset")
	delete(m, "fileId")
	if len(m) == 0 {
		return ""
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// feedComplete feeds p every complete line of data, as a follower reads a
// file (a last line without its newline is held, so it is left out), then
// flushes; it returns the entries and the bytes of the complete lines.
func feedComplete(p Parser, data []byte) ([]Entry, int64) {
	var entries []Entry
	var off int64
	for {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		line := cleanLine(data[off : off+int64(i)])
		off += int64(i) + 1
		entries = append(entries, p.Line(line, off)...)
	}
	return append(entries, p.Flush()...), off
}
