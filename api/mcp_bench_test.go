package api_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
)

var benchRecords = flag.Int("mcp.records", 100_000, "records in the store of the MCP benchmarks (the workload of internal/workload)")

// BenchmarkMCP_ConsoleTail measures console_tail (the newest 200 lines)
// through the whole path: go-sdk client, HTTP on 127.0.0.1, Echo, the SDK's
// Streamable HTTP handler, the tool, bbolt. p50-ms and p99-ms are per call.
func BenchmarkMCP_ConsoleTail(b *testing.B) {
	benchMCP(b, "console_tail", map[string]any{"limit": 200})
}

// BenchmarkMCP_ConsoleTailPoll measures the call a poller makes most: a
// sinceId 10 records before the newest, so a handful of lines come back.
func BenchmarkMCP_ConsoleTailPoll(b *testing.B) {
	benchMCP(b, "console_tail", map[string]any{"limit": 200, "sinceId": *benchRecords - 10})
}

// BenchmarkMCP_Ping measures the ping tool on the same path: the floor.
func BenchmarkMCP_Ping(b *testing.B) {
	benchMCP(b, "ping", map[string]any{})
}

func benchMCP(b *testing.B, tool string, args map[string]any) {
	url := benchServer(b)
	// Both protocol generations: a 2025-11-25 session, and 2026-07-28's
	// stateless requests (a session of the SDK's own per request).
	for _, proto := range []string{"2025-11-25", "2026-07-28"} {
		for _, clients := range []int{1, 32} {
			benchMCPClients(b, url, proto, clients, tool, args)
		}
	}
}

// benchMCPClients runs tool with clients concurrent clients speaking proto.
func benchMCPClients(b *testing.B, url, proto string, clients int, tool string, args map[string]any) {
	b.Run(fmt.Sprintf("proto=%s/records=%d/clients=%d", proto, *benchRecords, clients), func(b *testing.B) {
		sessions := make([]*mcp.ClientSession, clients)
		for i := range sessions {
			c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			sessions[i] = cs
		}
		var (
			mu        sync.Mutex
			latencies []time.Duration
			wg        sync.WaitGroup
			failed    = make(chan error, clients)
		)
		calls := make(chan struct{}, 1024)
		b.ReportAllocs()
		b.ResetTimer()
		for _, cs := range sessions {
			wg.Go(func() {
				var mine []time.Duration
				for range calls {
					start := time.Now()
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
					if err == nil && res.IsError {
						err = fmt.Errorf("tool error: %v", res.Content)
					}
					if err != nil {
						failed <- err
						return
					}
					mine = append(mine, time.Since(start))
				}
				mu.Lock()
				latencies = append(latencies, mine...)
				mu.Unlock()
			})
		}
		for range b.N {
			calls <- struct{}{}
		}
		close(calls)
		wg.Wait()
		b.StopTimer()
		select {
		case err := <-failed:
			b.Fatal(err)
		default:
		}
		slices.Sort(latencies)
		b.ReportMetric(ms(latencies[len(latencies)/2]), "p50-ms")
		b.ReportMetric(ms(latencies[len(latencies)*99/100]), "p99-ms")
	})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// benchServer serves a store pre-filled with -mcp.records records of the
// workload; the store and server are shared by the benchmark's runs.
func benchServer(b *testing.B) string {
	b.Helper()
	ts := httptest.NewServer(benchHandler(b))
	b.Cleanup(ts.Close)
	return ts.URL + "/mcp/" + testToken
}

// benchHandler is the server's handler over a store of -mcp.records
// records of the workload.
func benchHandler(b *testing.B) http.Handler {
	b.Helper()
	l, _ := logtest.MustOpenLog(b, nil)
	g := workload.New(1)
	recs := make([]oplog.Record, 1000)
	for n := 0; n < *benchRecords; n += len(recs) {
		batch := recs[:min(len(recs), *benchRecords-n)]
		g.Fill(batch)
		if err := l.Append(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	s, err := api.New(l, &api.Options{Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	return s.Handler()
}
