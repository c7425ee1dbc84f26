package workload_test

import (
	"testing"

	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
)

// BenchmarkGenerator_Fill measures what generating the workload costs an
// ingest benchmark: one op is one record.
func BenchmarkGenerator_Fill(b *testing.B) {
	g := workload.New(1)
	batch := make([]oplog.Record, 1000)
	g.Fill(batch)
	var payload int
	for i := range batch {
		payload += workload.Payload(&batch[i])
	}
	b.SetBytes(int64(payload / len(batch)))
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n += len(batch) {
		g.Fill(batch[:min(len(batch), b.N-n)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
