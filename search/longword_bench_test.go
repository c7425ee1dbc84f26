package search_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// longWord is a word of n random letters and digits, the same for a seed.
func longWord(seed uint64, n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	r := rand.New(rand.NewPCG(seed, 42))
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	return string(b)
}

// BenchmarkIndex_LongWords builds the index of twenty records whose stack
// is one word of 1 MiB (the input: bleve's term dictionary builds a
// node per byte of a word) and reports the peak RSS and Go heap of the
// build above what the process held before:
//
//	go test ./search -run '^$' -bench BenchmarkIndex_LongWords -benchtime 1x
func BenchmarkIndex_LongWords(b *testing.B) {
	l, db := logtest.MustOpenLog(b, nil)
	recs := make([]oplog.Record, 20)
	for i := range recs {
		recs[i] = oplog.Record{Level: oplog.LevelError, Text: "crash", Stack: longWord(uint64(i), oplog.MaxStackBytes)}
	}
	logtest.MustAppend(b, l, recs...)
	last := db.Stats().LastID
	var peak logtest.Peak
	for i := 0; b.Loop(); i++ {
		dir := filepath.Join(b.TempDir(), "index")
		p := logtest.MeasurePeak(func() {
			idx, err := search.Open(dir, db, &search.Options{Interval: 10 * time.Millisecond})
			if err != nil {
				b.Fatal(err)
			}
			if err := idx.WaitIndexed(context.Background(), last, nil); err != nil {
				b.Fatal(err)
			}
			if err := idx.Close(); err != nil {
				b.Fatal(err)
			}
		})
		peak.RSS, peak.Heap = max(peak.RSS, p.RSS), max(peak.Heap, p.Heap)
	}
	b.ReportMetric(float64(peak.RSS)/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(peak.Heap)/(1<<20), "peak-heap-MB")
}
