package otlp_test

import (
	"net/http"
	"strings"
	"testing"

	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// BenchmarkOTLP_Hostile posts the worst requests of each kind at the
// default body limit (1 MiB) to a real server over a real store and
// reports the peak RSS and Go heap they took (peak-RSS-MB, peak-heap-MB,
// above what the process held before) and the status:
//
//	go test ./otlp -run '^$' -bench BenchmarkOTLP_Hostile -benchtime 1x
func BenchmarkOTLP_Hostile(b *testing.B) {
	emptyRecords := func(n int) *collogspb.ExportLogsServiceRequest {
		m := amplified(0, 0, "")
		lrs := make([]*logspb.LogRecord, n)
		for i := range lrs {
			lrs[i] = &logspb.LogRecord{}
		}
		m.ResourceLogs[0].ScopeLogs[0].LogRecords = lrs
		return m
	}
	cases := []struct {
		name   string
		msg    *collogspb.ExportLogsServiceRequest
		asJSON bool
		want   int
	}{
		{"issue=100KB-resource-5000-records", amplified(100<<10, 5000, ""), false, http.StatusRequestEntityTooLarge},
		{"900KB-resource-15000-records", amplified(900<<10, 15_000, ""), false, http.StatusRequestEntityTooLarge},
		{"250B-resource-16000-records", amplified(250, 16_000, ""), false, http.StatusRequestEntityTooLarge},
		{"accepted=250B-resource-10000-records", amplified(250, 10_000, ""), false, http.StatusOK},
		{"1MiB-of-empty-records/protobuf", emptyRecords(500_000), false, http.StatusRequestEntityTooLarge},
		{"1MiB-of-empty-records/json", emptyRecords(250_000), true, http.StatusRequestEntityTooLarge},
		{"usual=1KB-resource-5000-records", amplified(1000, 5000, "frame took 48 ms"), false, http.StatusOK},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			h := mustServe(b, nil)
			body, ct := encode(b, c.msg, c.asJSON)
			if len(body) > 1<<20 {
				b.Fatalf("body of %d bytes, over the limit", len(body))
			}
			b.SetBytes(int64(len(body)))
			b.ResetTimer()
			p := logtest.MeasurePeak(func() {
				for range b.N {
					if status, a := send(b, h, ct, body); status != c.want {
						b.Fatalf("status %d, want %d: %.300s", status, c.want, strings.TrimSpace(string(a)))
					}
				}
			})
			b.ReportMetric(float64(p.RSS)/(1<<20), "peak-RSS-MB")
			b.ReportMetric(float64(p.Heap)/(1<<20), "peak-heap-MB")
		})
	}
}
