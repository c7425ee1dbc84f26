package crash_test

import (
	"context"
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
)

// benchRecords is how many workload records the benchmarks find in their
// store; docs/benchmarks.md's figures are for -crash.records=1000000.
var benchRecords = flag.Int("crash.records", 100_000, "records of the workload in the find_crashes benchmarks' store")

// BenchmarkFindCrashes fills a store with the workload (5% errors, every one
// with one of 200 traces; 1% operations), then measures:
//
//   - Build: a new Index's first answer, i.e. reading every record's
//     header and grouping every crash, as at start (one op is one build);
//   - Query/*: FindCrashes on the built index, with p50 and p99 reported.
func BenchmarkFindCrashes(b *testing.B) {
	l, _ := logtest.MustOpenLog(b, nil)
	g := workload.New(1)
	batch := make([]oplog.Record, 1000)
	ctx := context.Background()
	for n := 0; n < *benchRecords; n += len(batch) {
		g.Fill(batch[:min(len(batch), *benchRecords-n)])
		if err := l.Append(ctx, batch[:min(len(batch), *benchRecords-n)]); err != nil {
			b.Fatal(err)
		}
	}
	st := l.Stats()
	last := st.LastID
	b.Logf("store: %d records, %d errors", st.Records, st.Count(0, oplog.LevelError))

	b.Run("Build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x := crash.New(lagging{l}, &crash.Options{Interval: time.Hour})
			p, err := x.FindCrashes(ctx, oplog.CrashQuery{Limit: 20})
			if err != nil || p.LastID != last {
				b.Fatalf("%+v, %v", p, err)
			}
			x.Close()
		}
		b.ReportMetric(float64(*benchRecords)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})

	x := crash.New(l, nil)
	l.SetCrashes(x)
	if _, err := l.FindCrashes(ctx, oplog.CrashQuery{}); err != nil {
		b.Fatal(err)
	}
	// The mean gap between records is 1 ms: the newest tenth of the time.
	recent := workload.Epoch.Add(time.Duration(*benchRecords) * 9 * time.Millisecond / 10)
	for _, q := range []struct {
		name string
		q    oplog.CrashQuery
	}{
		{"All", oplog.CrashQuery{}},
		{"NewestTenth", oplog.CrashQuery{Since: recent}},
		{"Source", oplog.CrashQuery{Source: "lua-ecs"}},
	} {
		b.Run("Query/"+q.name, func(b *testing.B) {
			b.ReportAllocs()
			var d []time.Duration
			for b.Loop() {
				start := time.Now()
				p, err := l.FindCrashes(ctx, q.q)
				d = append(d, time.Since(start))
				if err != nil || p.Total == 0 {
					b.Fatalf("%+v, %v", p, err)
				}
			}
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(d[min(len(d)-1, len(d)*99/100)].Microseconds()), "p99-µs")
		})
	}
}
