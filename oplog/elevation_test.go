package oplog_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// appendMinutes appends a run of source game: a run marker (but for the
// first run), then for each minute of mins, perMin[text] lines of each
// text (%d takes a number), spread over the minute.
func appendMinutes(t testing.TB, l *oplog.Log, start time.Time, first bool, mins int, perMin map[string]int, level map[string]oplog.Level) {
	t.Helper()
	var recs []oplog.Record
	if !first {
		recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "game", Text: "run", Time: start})
	}
	n := 0
	for m := range mins {
		for text, k := range perMin {
			for i := range k {
				n++
				at := start.Add(time.Duration(m)*time.Minute + time.Duration(i)*time.Minute/time.Duration(k) + time.Second)
				lv := level[text]
				if lv == 0 {
					lv = oplog.LevelInfo
				}
				recs = append(recs, oplog.Record{Source: "game", Level: lv, Text: fmt.Sprintf(text, n), Time: at})
			}
		}
	}
	logtest.MustAppend(t, l, recs...)
}

// TestLog_CompareRuns_Louder: a template heard 10× as often per minute is
// louder, with both rates; a template as frequent per minute in a run
// twice as long is not, nor a new info line heard once; a new warning is
// new, not also louder.
func TestLog_CompareRuns_Louder(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	levels := map[string]oplog.Level{"Texture %d.png missing": oplog.LevelWarn}
	appendMinutes(t, l, t0, true, 10, map[string]int{"Chunk %d streamed": 2, "Player moved to %d": 6}, levels)
	appendMinutes(t, l, t0.Add(time.Hour), false, 20, map[string]int{"Chunk %d streamed": 20, "Player moved to %d": 6}, levels)
	// Once each in the second run: a new warning, a new info line.
	logtest.MustAppend(t, l, oplog.Record{Source: "game", Level: oplog.LevelWarn, Text: "Texture 7.png missing", Time: t0.Add(time.Hour + 20*time.Minute)},
		oplog.Record{Source: "game", Level: oplog.LevelInfo, Text: "Weather changed to 3", Time: t0.Add(time.Hour + 20*time.Minute)})
	c, err := l.CompareRuns(context.Background(), oplog.CompareQuery{Source: "game"})
	if err != nil || len(c.Sources) != 1 {
		t.Fatalf("CompareRuns: %+v, %v", c, err)
	}
	louder := c.Sources[0].Louder
	if len(louder) != 1 {
		t.Fatalf("louder: %+v, want the chunk lines alone (the new warning is new, the new info line once)", louder)
	}
	chunk := louder[0]
	if chunk.Text != "Chunk <N> streamed" || chunk.Before != 20 || chunk.After != 400 || chunk.BeforePerMin < 1.9 || chunk.BeforePerMin > 2.3 ||
		chunk.AfterPerMin < 19 || chunk.AfterPerMin > 21 || chunk.Rates() != fmt.Sprintf("%.1f/min → %.0f/min", chunk.BeforePerMin, chunk.AfterPerMin) {
		t.Errorf("the chunk lines: %+v (%s), want 20 → 400, about 2 → 20 a minute", chunk, chunk.Rates())
	}
	if n := c.Sources[0].New; len(n) != 1 || n[0].Text != "Texture <N>.png missing" {
		t.Errorf("new: %+v, want the warning", n)
	}
}

// BenchmarkLog_CompareRuns times compare_runs over two runs of 20,000
// lines each (one template in ten at warn), beside a digest of the later
// run alone, which templates each of its records once.
func BenchmarkLog_CompareRuns(b *testing.B) {
	l, _ := logtest.MustOpenLog(b, nil)
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	texts := map[string]int{"Chunk %d streamed": 1000, "Player moved to %d": 600, "AI path %d found": 300}
	levels := map[string]oplog.Level{"AI path %d found": oplog.LevelWarn}
	appendMinutes(b, l, t0, true, 10, texts, levels)
	appendMinutes(b, l, t0.Add(time.Hour), false, 10, texts, levels)
	ctx := context.Background()
	b.Run("digest", func(b *testing.B) {
		for b.Loop() {
			if _, err := l.Digest(ctx, oplog.DigestQuery{Filter: oplog.Filter{Source: "game"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compare", func(b *testing.B) {
		for b.Loop() {
			if _, err := l.CompareRuns(ctx, oplog.CompareQuery{Source: "game"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
