package gateway_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/gateway"
)

// BenchmarkGateway_Echo compares an echo call made directly to an upstream
// (a Go MCP server over Streamable HTTP) with the same call through
// mcplogd, which forwards and records it (one append and one completion,
// each fsync'd). It reports p50/p99 of both and the p50 added.
//
//	go test ./gateway -run '^$' -bench Gateway_Echo -benchtime 2000x -count 3
func BenchmarkGateway_Echo(b *testing.B) {
	g := newGame(b)
	e := newEnv(b, gateway.Upstream{Name: "game", URL: g.url()})
	e.waitTool("echo")
	c := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "1"}, nil)
	direct, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: g.url()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()
	args := map[string]any{"message": "hello"}
	measure := func(s *mcp.ClientSession, tool ...string) time.Duration {
		name, a := "echo", any(args)
		if len(tool) > 0 {
			name, a = tool[0], nil
		}
		start := time.Now()
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: a})
		if err != nil || res.IsError {
			b.Fatalf("echo: %v %+v", err, res)
		}
		return time.Since(start)
	}
	pct := func(l []time.Duration, q float64) float64 {
		slices.Sort(l)
		return float64(l[min(len(l)-1, int(q*float64(len(l))))].Microseconds()) / 1000
	}
	var d, p, q []time.Duration
	for b.Loop() { // interleaved, so that drift on the machine hits both alike
		d = append(d, measure(direct))
		p = append(p, measure(e.cs))
		q = append(q, measure(e.cs, "ping"))
	}
	b.ReportMetric(pct(q, 0.5), "ping-p50-ms")
	b.ReportMetric(pct(d, 0.5), "direct-p50-ms")
	b.ReportMetric(pct(d, 0.99), "direct-p99-ms")
	b.ReportMetric(pct(p, 0.5), "proxied-p50-ms")
	b.ReportMetric(pct(p, 0.99), "proxied-p99-ms")
	b.ReportMetric(pct(p, 0.5)-pct(d, 0.5), "added-p50-ms")
}
