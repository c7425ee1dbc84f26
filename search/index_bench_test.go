package search_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/cputime"
	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

var burstRecords = flag.Int("search.burst", 200_000, "records appended by BenchmarkIndexBurst")

// BenchmarkIndexBuild indexes the fixture's store into a new index, from
// empty to caught up, each iteration: records/s (wall) and records per CPU
// second (both cores count), and the index's size per record.
func BenchmarkIndexBuild(b *testing.B) {
	f := getFixture(b)
	last := f.db.Stats().LastID
	var wall, cpu time.Duration
	var bytes int64
	n := 0
	for b.Loop() {
		dir := filepath.Join(f.dir, "build")
		start, c0 := time.Now(), cputime.Self()
		idx, err := search.Open(dir, f.db, &search.Options{Interval: 10 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		if err := idx.WaitIndexed(context.Background(), last, nil); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
		cpu += cputime.Self() - c0
		if err := idx.Close(); err != nil {
			b.Fatal(err)
		}
		bytes += idx.Status().Bytes
		n++
		_ = os.RemoveAll(dir)
	}
	recs := float64(n) * float64(last)
	b.ReportMetric(recs/wall.Seconds(), "records/s")
	b.ReportMetric(recs/cpu.Seconds(), "records/cpu-s")
	b.ReportMetric(float64(bytes)/recs, "indexB/record")
}

// BenchmarkIndexBurst appends -search.burst workload records in batches of
// 1,000 as fast as the log takes them while the background indexer runs,
// and reports how long after the last append returned every record was in
// a term set (lag-ms) and every whole chunk's set in the sets file
// (disk-lag-ms), the append rate, and records made searchable (their
// sets written) per second from the first append to caught up.
func BenchmarkIndexBurst(b *testing.B) {
	var lag, termsLag, total, ingest time.Duration
	n := 0
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		db, err := store.Open(filepath.Join(dir, "log.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		log := oplog.New(db, nil)
		idx, err := search.Open(filepath.Join(dir, "index"), db, &search.Options{Changed: log.Changed})
		if err != nil {
			b.Fatal(err)
		}
		log.SetIndex(idx)
		g := workload.New(1)
		batch := make([]oplog.Record, 1000)
		b.StartTimer()
		start := time.Now()
		for range *burstRecords / len(batch) {
			g.Fill(batch)
			if err := log.Append(context.Background(), batch); err != nil {
				b.Fatal(err)
			}
		}
		end := time.Now()
		if err := waitFor(func() bool { return idx.Status().IndexedThrough >= db.Stats().LastID }); err != nil {
			b.Fatal(err)
		}
		searchable := time.Now()
		whole := db.Stats().LastID / 4096 * 4096 // the default chunk: the growing last one is not written
		if err := waitFor(func() bool { return idx.Status().SegmentsThrough >= whole }); err != nil {
			b.Fatal(err)
		}
		done := time.Now()
		b.StopTimer()
		lag += done.Sub(end)
		termsLag += searchable.Sub(end)
		ingest += end.Sub(start)
		total += done.Sub(start)
		n++
		_ = log.Close()
		b.StartTimer()
	}
	recs := float64(n) * float64(*burstRecords/1000*1000)
	b.ReportMetric(float64(termsLag.Milliseconds())/float64(n), "lag-ms")
	b.ReportMetric(float64(lag.Milliseconds())/float64(n), "disk-lag-ms")
	b.ReportMetric(recs/ingest.Seconds(), "appended/s")
	b.ReportMetric(recs/(ingest+termsLag).Seconds(), "searchable/s")
	b.ReportMetric(recs/total.Seconds(), "on-disk/s")
}

// waitFor polls cond closely until it holds (WaitIndexed polls every 50
// ms, too coarse for lag-ms).
func waitFor(cond func() bool) error {
	deadline := time.Now().Add(5 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			return context.DeadlineExceeded
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}
