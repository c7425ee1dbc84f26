package follow

// Benchmarks of the follower against a real file and a real bbolt store.
//
//	go test ./follow/ -run '^$' -bench 'Follower_Rate' -benchtime 1x -count 3
//	go test ./follow/ -run '^$' -bench 'Follower_Backlog' -benchtime 200000x -count 3
//
// BenchmarkFollower_Rate has a writer append workload-like lines (the
// workload generator's messages in Minecraft's log4j layout, ~140 bytes)
// at 50,000 lines/s for rateSeconds while the follower stores them, and
// reports the rate achieved, the lag (lines written but not yet stored,
// sampled every 5 ms) as max and p99 over the whole run and after its first
// second, the time to drain once the writer stops, and the process's CPU
// time per line. The writer only writes pre-formatted bytes every
// millisecond, so nearly all of that CPU is the follower's: reading and
// parsing, the Log's validation, and the store's encoding and commits
// (including the kernel's time in pwrite and fdatasync).
//
// BenchmarkFollower_Backlog runs the follower over a pre-written file of
// b.N lines (no writer at all): ns/op is the wall time per line and
// cpu-ns/line the process CPU time per line, the follower's whole cost.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/cputime"
	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
)

const (
	rateLines   = 50_000 // lines per second the writer aims at
	rateSeconds = 4
	sampleEvery = 5 * time.Millisecond
)

// benchParsers are the parsers measured: the trivial one and the one
// that reads the lines' layout (and holds each line until the next).
var benchParsers = []string{"plain", "log4j"}

// workloadLines formats n workload lines as a Minecraft client writes
// them: "[12:34:56] [Render/INFO]: text".
func workloadLines(n int) [][]byte {
	g := workload.New(1)
	recs := make([]oplog.Record, 1000)
	out := make([][]byte, 0, n)
	for len(out) < n {
		g.Fill(recs)
		for i := range recs {
			r := &recs[i]
			if r.Kind != oplog.KindLine || len(out) == n {
				continue
			}
			text := strings.ReplaceAll(r.Text, "\n", " ")
			out = append(out, fmt.Appendf(nil, "[%s] [%s/%s]: %s\n", r.Time.Format("15:04:05"), r.Name, strings.ToUpper(r.Level.String()), text))
		}
	}
	return out
}

func BenchmarkFollower_Rate(b *testing.B) {
	lines := workloadLines(rateLines * rateSeconds)
	var size int
	for _, ln := range lines {
		size += len(ln)
	}
	for _, parser := range benchParsers {
		b.Run(parser, func(b *testing.B) {
			for b.Loop() {
				benchRate(b, parser, lines)
			}
			b.ReportMetric(float64(size)/float64(len(lines)), "bytes/line")
		})
	}
}

func benchRate(b *testing.B, parser string, lines [][]byte) {
	dir := b.TempDir()
	path := filepath.Join(dir, "latest.log")
	l := openLog(b, dir)
	defer l.Close()
	fh, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	f, err := Start(l, Options{Name: testSource, Path: path, Parser: parser})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()

	var written atomic.Int64
	var lags []int64
	var wg sync.WaitGroup
	sampling := make(chan struct{})
	wg.Add(1)
	go func() { // the sampler
		defer wg.Done()
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			select {
			case <-sampling:
				return
			case <-t.C:
				lags = append(lags, written.Load()-int64(f.Status().Stored))
			}
		}
	}()

	cpu0 := cputime.Self()
	start := time.Now()
	var buf []byte
	for n := 0; n < len(lines); {
		// Write what is due by now, then let a millisecond pass.
		due := min(len(lines), int(time.Since(start).Seconds()*rateLines))
		buf = buf[:0]
		for ; n < due; n++ {
			buf = append(buf, lines[n]...)
		}
		if len(buf) > 0 {
			if _, err := fh.Write(buf); err != nil {
				b.Fatal(err)
			}
			written.Store(int64(n))
		}
		time.Sleep(time.Millisecond)
	}
	writeTime := time.Since(start)
	stopped := time.Now()
	// A parser that holds each line until the next one holds the last for
	// Options.Quiet: drained means at most that one is left.
	for int64(f.Status().Stored) < int64(len(lines))-1 {
		if time.Since(stopped) > time.Minute {
			b.Fatalf("not drained after a minute: %d of %d stored", f.Status().Stored, len(lines))
		}
		time.Sleep(time.Millisecond)
	}
	drain := time.Since(stopped)
	cpu := cputime.Self() - cpu0
	close(sampling)
	wg.Wait()
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if st := l.Stats(); st.Count(oplog.KindLine, 0) != uint64(len(lines)) { // Stored counts the end marker of Close too
		b.Fatalf("stored %d of %d lines", st.Count(oplog.KindLine, 0), len(lines))
	}

	// The first bytes after an idle file wait up to Options.Poll (250 ms):
	// the lag peaks there; after the first second the file is followed
	// every activePoll.
	steady := slices.Clone(lags[min(len(lags), int(time.Second/sampleEvery)):])
	slices.Sort(lags)
	slices.Sort(steady)
	b.ReportMetric(float64(len(lines))/writeTime.Seconds(), "lines/s")
	b.ReportMetric(float64(lags[len(lags)-1]), "lag-max-lines")
	b.ReportMetric(float64(lags[len(lags)*99/100]), "lag-p99-lines")
	b.ReportMetric(float64(steady[len(steady)-1]), "lag-max-after-1s-lines")
	b.ReportMetric(float64(steady[len(steady)*99/100]), "lag-p99-after-1s-lines")
	b.ReportMetric(float64(drain.Milliseconds()), "drain-ms")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(len(lines)), "cpu-ns/line")
}

func BenchmarkFollower_Backlog(b *testing.B) {
	all := workloadLines(200_000)
	for _, parser := range benchParsers {
		b.Run(parser, func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "latest.log")
			l := openLog(b, dir)
			defer l.Close()
			var buf []byte
			for i := range b.N {
				buf = append(buf, all[i%len(all)]...)
			}
			if err := os.WriteFile(path, buf, 0o644); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(buf) / b.N))
			b.ResetTimer()
			cpu0 := cputime.Self()
			f, err := Start(l, Options{Name: testSource, Path: path, Parser: parser, Poll: time.Millisecond})
			if err != nil {
				b.Fatal(err)
			}
			for st := f.Status(); st.Lines < uint64(b.N) || int64(st.Stored) < int64(b.N)-1; st = f.Status() {
				time.Sleep(100 * time.Microsecond)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			b.ReportMetric(float64((cputime.Self()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/line")
			if st := l.Stats(); st.Count(oplog.KindLine, 0) != uint64(b.N) { // Stored counts the end marker of Close too
				b.Fatalf("stored %d of %d lines", st.Count(oplog.KindLine, 0), b.N)
			}
		})
	}
}
