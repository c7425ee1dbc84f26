package studio_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/cputime"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/studio"
)

// The studio figures of docs/benchmarks.md:
//
//	go test ./studio -run '^$' -bench Forward -benchtime 1x
//
// Each iteration is a burst of burstLines lines appended by 4 writers in
// batches of 1,000 (each batch durable before the writer goes on).
const burstLines = 200_000

// burst appends burstLines lines to l and returns how long it took.
func burst(b *testing.B, l *oplog.Log) time.Duration {
	b.Helper()
	const writers, batch = 4, 1000
	pools := make([][]oplog.Record, writers)
	for w := range pools {
		pools[w] = make([]oplog.Record, batch)
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range burstLines / writers / batch {
				recs := pools[w]
				for j := range recs {
					recs[j] = oplog.Record{Source: "game", Name: "Player", Level: oplog.LevelInfo,
						Text: fmt.Sprintf("writer %d batch %d line %d: player moved to (%d, %d)", w, i, j, i*j%977, j*31%613)}
				}
				if err := l.Append(context.Background(), recs); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// cpuVL is VictoriaLogs' CPU time, from its own /metrics.
func cpuVL(b *testing.B, v *vltest.VL) time.Duration {
	resp, err := http.Get(v.URL + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "process_cpu_seconds_total "); ok {
			f, _ := strconv.ParseFloat(s, 64)
			return time.Duration(f * float64(time.Second))
		}
	}
	return 0
}

func startForward(b *testing.B, l *oplog.Log, url string) *studio.Forwarder {
	b.Helper()
	f, err := studio.Forward(l, studio.ForwardOptions{URL: url, Project: "bench", Machine: "m1",
		StatePath: filepath.Join(b.TempDir(), "studio-forward.json")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = f.Close() })
	return f
}

// BenchmarkForward_Burst reports local ingest of a 200,000-line burst
// with forwarding off and then on (back to back, so that both see the same
// machine), how long the forwarder still needed after the burst's last
// append (lag), and the forwarding throughput from the first append to the
// last acknowledgement.
func BenchmarkForward_Burst(b *testing.B) {
	v := vltest.Start(b)
	for range b.N {
		l, _ := logtest.MustOpenLog(b, nil)
		cpu := cputime.Self()
		off := burst(b, l)
		offCPU := cputime.Self() - cpu

		l, _ = logtest.MustOpenLog(b, nil)
		f := startForward(b, l, v.URL)
		cpu, vlCPU := cputime.Self(), cpuVL(b, v)
		start := time.Now()
		on := burst(b, l)
		last := l.Stats().LastID
		for f.Status().ForwardedID < last {
			time.Sleep(time.Millisecond)
		}
		all := time.Since(start)
		b.ReportMetric(burstLines/off.Seconds(), "off-lines/s")
		b.ReportMetric(burstLines/on.Seconds(), "on-lines/s")
		b.ReportMetric(100*off.Seconds()/on.Seconds(), "on/off-%")
		b.ReportMetric((all - on).Seconds(), "lag-s")
		b.ReportMetric(burstLines/all.Seconds(), "acked/s")
		b.ReportMetric(offCPU.Seconds(), "off-cpu-s")
		b.ReportMetric((cputime.Self() - cpu).Seconds(), "on-cpu-s")
		b.ReportMetric((cpuVL(b, v) - vlCPU).Seconds(), "vl-cpu-s")
	}
}

// BenchmarkForward_Backlog reports how fast a backlog of 200,000 lines
// already in the log drains to VictoriaLogs (records acknowledged per second).
func BenchmarkForward_Backlog(b *testing.B) {
	v := vltest.Start(b)
	for range b.N {
		l, _ := logtest.MustOpenLog(b, nil)
		burst(b, l)
		start := time.Now()
		f := startForward(b, l, v.URL)
		last := l.Stats().LastID
		for f.Status().ForwardedID < last {
			time.Sleep(time.Millisecond)
		}
		b.ReportMetric(burstLines/time.Since(start).Seconds(), "acked/s")
	}
}
