package oplog_test

import (
	"testing"

	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
)

// BenchmarkTemplate: what TextTemplateID (the template and its ID) costs
// a record of the benchmark workload (internal/workload), as the index,
// the evaluator above the watermark and the studio's rows compute it. One
// op is one record; bytes are the text's.
func BenchmarkTemplate(b *testing.B) {
	recs := make([]oplog.Record, 4096)
	workload.New(1).Fill(recs)
	var text int
	for i := range recs {
		text += len(recs[i].Text)
	}
	b.SetBytes(int64(text / len(recs)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = oplog.TextTemplateID(recs[i%len(recs)].Text)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
