package api_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/api/apitest"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// hostileBodies are the worst bodies of each kind at the default body
// limit (1 MiB) for POST /api/v1/logs, and the status each gets.
func hostileBodies() []struct {
	name string
	body []byte
	want int
} {
	fill := func(line string) []byte {
		return bytes.Repeat([]byte(line), (1<<20)/len(line))
	}
	deep := func(n int) []byte {
		return []byte(`{"level":"info","data":{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`)
	}
	return []struct {
		name string
		body []byte
		want int
	}{
		{"tiny-lines", fill(`{"level":"info"}` + "\n"), http.StatusRequestEntityTooLarge},
		{"tiny-lines-accepted", fill(`{"level":"info"}` + "\n")[:16384*17], http.StatusOK},
		{"empty-objects", fill("{}\n"), http.StatusBadRequest},
		{"deep-data", deep(500_000), http.StatusBadRequest},
		{"deep-data-accepted", deep(9_000), http.StatusOK},
		{"accepted=193B-lines", fill(`{"level":"info","name":"Player","source":"unity","text":"spawned entity at (3, 4) after loading the level geometry and the navigation mesh; frame 4242, which took 48 ms","data":{"frame":4242}}` + "\n"), http.StatusOK},
	}
}

// BenchmarkAPI_HostileIngest posts each of hostileBodies to a real server
// over a real store and reports the peak RSS and Go heap it took above what
// the process held before:
//
//	go test ./api -run '^$' -bench BenchmarkAPI_HostileIngest -benchtime 1x
func BenchmarkAPI_HostileIngest(b *testing.B) {
	for _, c := range hostileBodies() {
		b.Run(c.name, func(b *testing.B) {
			h := apitest.MustServe(b, nil)
			body := c.body
			b.SetBytes(int64(len(body)))
			p := logtest.MeasurePeak(func() {
				for range b.N {
					status, a, err := h.Send(context.Background(), http.MethodPost, "/api/v1/logs", "Bearer "+apitest.Token, bytes.NewReader(body))
					if err != nil || status != c.want {
						b.Fatalf("status %d, want %d: %.300s %v", status, c.want, a, err)
					}
				}
			})
			b.ReportMetric(float64(p.RSS)/(1<<20), "peak-RSS-MB")
			b.ReportMetric(float64(p.Heap)/(1<<20), "peak-heap-MB")
		})
	}
}
