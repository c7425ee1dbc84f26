package api_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/mcplogd/mcplogd/api"
)

// BenchmarkDecodeLines decodes a batch of 1,000 typical lines.
func BenchmarkDecodeLines(b *testing.B) {
	for _, format := range []string{"Array", "NDJSON"} {
		b.Run(format, func(b *testing.B) {
			var buf bytes.Buffer
			sep := "\n"
			if format == "Array" {
				buf.WriteString("[")
				sep = ","
			}
			for i := range 1000 {
				if i > 0 {
					buf.WriteString(sep)
				}
				fmt.Fprintf(&buf, `{"time":"2026-01-02T15:04:05.%09dZ","level":"info","name":"Player%d","source":"unity","text":"spawned entity %d at (3, 4) after loading the level geometry and the navigation mesh","data":{"frame":%d}}`, i, i%50, i, i)
			}
			if format == "Array" {
				buf.WriteString("]")
			}
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				recs, err := api.DecodeLines(bytes.NewReader(buf.Bytes()))
				if err != nil || len(recs) != 1000 {
					b.Fatalf("%d records, %v", len(recs), err)
				}
			}
		})
	}
}
