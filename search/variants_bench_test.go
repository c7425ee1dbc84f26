package search_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/mcplogd/mcplogd/internal/cputime"
	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

var settleTimeout = flag.Duration("search.variant.settle", 5*time.Minute, "how long BenchmarkIndexVariants waits for merges to end")

var variantRecords = flag.Int("search.variant.records", 200_000, "records of the store BenchmarkIndexVariants indexes")

var variantWorkload = flag.String("search.variant.workload", "game", "the records BenchmarkIndexVariants indexes: game (the benchmark's) or words (random words)")

// indexVariant is a way of building the index that BenchmarkIndexVariants
// measures beside the others: set changes it and returns what restores it.
type indexVariant struct {
	name string
	opts search.Options
	set  func() (restore func())
}

var noChange = func() func() { return func() {} }

// oldFieldOptions indexes fields with their frequencies and lengths, as
// mapping version 8 did.
func oldFieldOptions() func() { return search.SetFieldOptions(index.IndexField, index.IndexField) }

// both returns a func that runs a and b.
func both(a, b func()) func() { return func() { a(); b() } }

// indexVariants are the variants measured; "baseline" is the index as it
// is built.
var indexVariants = []indexVariant{
	{name: "before", set: func() func() { return both(oldFieldOptions(), search.SetCompactSealed(false)) }},
	{name: "skipFreqNorm", set: func() func() { return search.SetCompactSealed(false) }},
	{name: "compactSealed", set: oldFieldOptions},
	{name: "now", set: noChange},
	{name: "skipFreqNorm=all", set: func() func() {
		return both(search.SetFieldOptions(index.IndexField|index.SkipFreqNorm, index.IndexField|index.SkipFreqNorm), search.SetUniqueOptions(index.IndexField|index.SkipFreqNorm))
	}},
	{name: "noTemplate", set: search.SetOmitTemplates},
	{name: "fieldsOnly", set: search.SetOmitText},
	{name: "batch=20000", opts: search.Options{BatchSize: 20_000}, set: noChange},
	{name: "batch=5000", opts: search.Options{BatchSize: 5_000}, set: noChange},
	{name: "parallel=2", opts: search.Options{Parallel: 2}, set: noChange},
	{name: "analysisWorkers=2", set: func() func() {
		return search.SetScorchTuning(map[string]any{"numAnalysisWorkers": 2})
	}},
	{name: "persisterNap=200", set: func() func() {
		return search.SetScorchTuning(map[string]any{"scorchPersisterOptions": map[string]any{
			"PersisterNapTimeMSec": 200, "PersisterNapUnderNumFiles": 1000}})
	}},
	{name: "floor=20000", set: func() func() {
		return search.SetScorchTuning(map[string]any{"scorchMergePlanOptions": map[string]any{
			"MaxSegmentsPerTier": 10, "MaxSegmentSize": 5_000_000, "TierGrowth": 10.0,
			"SegmentsPerMergeTask": 10, "FloorSegmentSize": 20_000, "ReclaimDeletesWeight": 2.0}})
	}},
	{name: "tier=4", set: func() func() {
		return search.SetScorchTuning(map[string]any{"scorchMergePlanOptions": map[string]any{
			"MaxSegmentsPerTier": 4, "MaxSegmentSize": 5_000_000, "TierGrowth": 10.0,
			"SegmentsPerMergeTask": 10, "FloorSegmentSize": 2000, "ReclaimDeletesWeight": 2.0}})
	}},
	{name: "oneFile", set: func() func() {
		return search.SetScorchTuning(map[string]any{"scorchMergePlanOptions": map[string]any{
			"MaxSegmentsPerTier": 1, "MaxSegmentSize": 1 << 30, "TierGrowth": 1.0,
			"SegmentsPerMergeTask": 10, "FloorSegmentSize": 1 << 30, "ReclaimDeletesWeight": 2.0,
			"FloorSegmentFileSize": 1 << 40, "MaxSegmentFileSize": 1 << 40}})
	}},
}

var (
	variantOnce  sync.Once
	variantStore *store.DB
	variantDir   string
	variantErr   error
)

// variantFixture is a store of -search.variant.records workload records,
// built once.
func variantFixture(b *testing.B) (*store.DB, string) {
	b.Helper()
	variantOnce.Do(func() {
		variantDir, variantErr = os.MkdirTemp("", "mcplogd-variants-")
		if variantErr != nil {
			return
		}
		variantStore, variantErr = store.Open(filepath.Join(variantDir, "log.db"), nil)
		if variantErr != nil {
			return
		}
		log := oplog.New(variantStore, nil)
		g := workload.New(1)
		if *variantWorkload == "words" {
			g = workload.NewWords(1)
		}
		batch := make([]oplog.Record, 1000)
		for n := 0; n < *variantRecords && variantErr == nil; n += len(batch) {
			g.Fill(batch)
			variantErr = log.Append(context.Background(), batch)
		}
	})
	if variantErr != nil {
		b.Fatal(variantErr)
	}
	return variantStore, variantDir
}

// BenchmarkIndexVariants indexes the same store into a new index with each
// variant of indexVariants (-bench 'IndexVariants/<name>' picks some),
// from empty to every record in a segment: records/s (wall) and per CPU
// second (both cores count), then waits for the segments' merges to end
// and reports the index's bytes per record (of the files in use, and of
// all files: those merged away go at the next persist) and files, the seconds the
// merges took after the records were in, and records per CPU second
// through them (settled/cpu-s).
func BenchmarkIndexVariants(b *testing.B) {
	db, root := variantFixture(b)
	last := db.Stats().LastID
	for _, v := range indexVariants {
		b.Run(v.name, func(b *testing.B) {
			restore := v.set()
			defer restore()
			var wall, cpu, settle, cpuAll time.Duration
			var bytes, live, files uint64
			n := 0
			for b.Loop() {
				dir := filepath.Join(root, "index-"+v.name)
				opts := v.opts
				opts.Interval = 10 * time.Millisecond
				start, c0 := time.Now(), cputime.Self()
				idx, err := search.Open(dir, db, &opts)
				if err != nil {
					b.Fatal(err)
				}
				if err := idx.WaitIndexed(context.Background(), last, nil); err != nil {
					b.Fatal(err)
				}
				wall += time.Since(start)
				cpu += cputime.Self() - c0
				in := time.Now()
				by, lv, fs, err := idx.Settle(*settleTimeout)
				if err != nil {
					b.Fatal(err)
				}
				settle += time.Since(in)
				cpuAll += cputime.Self() - c0
				bytes, live, files = bytes+by, live+lv, files+fs
				if err := idx.Close(); err != nil {
					b.Fatal(err)
				}
				n++
				_ = os.RemoveAll(dir)
			}
			recs := float64(n) * float64(last)
			b.ReportMetric(recs/wall.Seconds(), "records/s")
			b.ReportMetric(recs/cpu.Seconds(), "records/cpu-s")
			b.ReportMetric(recs/cpuAll.Seconds(), "settled/cpu-s")
			b.ReportMetric(float64(live)/recs, "indexB/record")
			b.ReportMetric(float64(bytes)/recs, "diskB/record")
			b.ReportMetric(float64(files)/float64(n), "files")
			b.ReportMetric(settle.Seconds()/float64(n), "settle-s")
		})
	}
}
