package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// fillBatch is the batch size the store is filled with.
const fillBatch = 1000

// Read shapes: a console poller that fell a little behind, and get_logs.
const (
	tailLimit   = 200
	tailBehind  = 10_000 // sinceId is up to this far before the last 200
	reopenTimes = 10     // reopens timed per run
)

// fillResult is what was measured on the store filled with cfg.Records.
type fillResult struct {
	records    int
	elapsed    time.Duration
	payload    int64 // workload.Payload summed
	encoded    uint64
	fileSize   int64
	diskUsage  int64 // allocated blocks, which a sparse file's holes do not use
	memBefore  procStatus
	memAfter   procStatus
	heapInuse  uint64
	reopen     []time.Duration // every reopen of every run
	tail       []latency       // one per run
	list10     []latency
	list200    []latency
	lastID     uint64
	fillOthers float64 // share of the CPUs other processes used during the fill
	readOthers float64 // the most they used during one run of reads
}

// latency is one series of timed reads.
type latency struct{ p50, p99, max time.Duration }

func percentiles(d []time.Duration) latency {
	slices.Sort(d)
	at := func(p float64) time.Duration {
		i := int(p*float64(len(d)) + 0.999999)
		return d[min(max(i-1, 0), len(d)-1)]
	}
	return latency{p50: at(0.50), p99: at(0.99), max: d[len(d)-1]}
}

// medianLatency is the run-by-run median of each percentile.
func medianLatency(runs []latency) latency {
	pick := func(f func(latency) time.Duration) time.Duration {
		v := make([]time.Duration, len(runs))
		for i, l := range runs {
			v[i] = f(l)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return latency{
		p50: pick(func(l latency) time.Duration { return l.p50 }),
		p99: pick(func(l latency) time.Duration { return l.p99 }),
		max: pick(func(l latency) time.Duration { return l.max }),
	}
}

// procStatus is the memory this process holds, from /proc/self/status.
type procStatus struct {
	rss, hwm, anon, file int64 // bytes; -1 when unknown
}

func readProcStatus() procStatus { return readProcStatusFile("/proc/self/status") }

// readProcStatusFile reads a /proc/<pid>/status file; what it cannot read
// is -1.
func readProcStatusFile(path string) procStatus {
	s := procStatus{-1, -1, -1, -1}
	b, err := os.ReadFile(path)
	if err != nil {
		return s
	}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var p *int64
		switch k {
		case "VmRSS":
			p = &s.rss
		case "VmHWM":
			p = &s.hwm
		case "RssAnon":
			p = &s.anon
		case "RssFile":
			p = &s.file
		default:
			continue
		}
		if kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err == nil {
			*p = kb << 10
		}
	}
	return s
}

// resetPeakRSS makes VmHWM start again from the current RSS (Linux 4.0 and
// later), so that the peak is the fill's and not an earlier step's.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// measureFill fills a store with cfg.Records records of the workload, then
// measures memory, disk use, reopening and reads on it.
func (r *runner) measureFill(ctx context.Context) error {
	dir, remove, err := r.runDir("filled")
	if err != nil {
		return err
	}
	defer remove()
	path := filepath.Join(dir, "log.db")
	f := &r.fill

	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	f.memBefore = readProcStatus()
	db, err := store.Open(path, nil)
	if err != nil {
		return err
	}
	l := oplog.New(db, nil)
	cpu := sampleCPU()
	err = r.fillLog(ctx, l)
	f.fillOthers = othersShare(cpu, sampleCPU())
	if err != nil {
		_ = l.Close()
		return err
	}
	f.memAfter = readProcStatus()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	f.heapInuse = ms.HeapInuse
	st := l.Stats()
	f.encoded, f.lastID = st.Bytes, st.LastID
	if err := l.Close(); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil {
		f.fileSize = fi.Size()
		f.diskUsage = allocated(fi)
	}
	r.progress("filled %d records in %.2fs: %.0f records/s; file %d bytes; other processes used %.0f%% of the CPUs",
		f.records, f.elapsed.Seconds(), float64(f.records)/f.elapsed.Seconds(), f.fileSize, 100*f.fillOthers)

	rng := rand.New(rand.NewPCG(uint64(r.cfg.Seed), 7))
	for run := range r.cfg.Runs {
		if err := ctx.Err(); err != nil {
			return err
		}
		cpu := sampleCPU()
		l, err := r.reopen(path)
		if err != nil {
			return err
		}
		err = r.reads(ctx, l, rng)
		if cerr := l.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		f.readOthers = max(f.readOthers, othersShare(cpu, sampleCPU()))
		r.progress("reads, run %d/%d: tail p99 %s, list 200 p99 %s, reopen p50 %s; other processes used %.0f%% of the CPUs",
			run+1, r.cfg.Runs, f.tail[run].p99, f.list200[run].p99, percentiles(slices.Clone(f.reopen)).p50,
			100*othersShare(cpu, sampleCPU()))
	}
	return nil
}

// fillLog appends cfg.Records records of the workload in batches of
// fillBatch, generated on the fly by a second goroutine.
func (r *runner) fillLog(ctx context.Context, l *oplog.Log) error {
	f := &r.fill
	batches := make(chan []oplog.Record, 4)
	go func() {
		defer close(batches)
		g := r.generator(r.cfg.Seed)
		for done := 0; done < r.cfg.Records && ctx.Err() == nil; done += fillBatch {
			recs := make([]oplog.Record, min(fillBatch, r.cfg.Records-done))
			g.Fill(recs)
			batches <- recs
		}
	}()
	start := time.Now()
	var err error
	for recs := range batches {
		if err != nil {
			continue // drain, so that the generator ends
		}
		for i := range recs {
			f.payload += int64(workload.Payload(&recs[i]))
		}
		if err = l.Append(ctx, recs); err == nil {
			f.records += len(recs)
		}
	}
	f.elapsed = time.Since(start)
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// reopen opens the closed store reopenTimes times, timing store.Open and
// the first Stats, and returns a Log over the last one.
func (r *runner) reopen(path string) (*oplog.Log, error) {
	for i := range reopenTimes {
		runtime.GC()
		start := time.Now()
		db, err := store.Open(path, nil)
		if err != nil {
			return nil, err
		}
		s := db.Stats()
		r.fill.reopen = append(r.fill.reopen, time.Since(start))
		if s.Records != uint64(r.fill.records) {
			_ = db.Close()
			return nil, fmt.Errorf("reopened store has %d records, want %d", s.Records, r.fill.records)
		}
		if i == reopenTimes-1 {
			return oplog.New(db, nil), nil
		}
		if err := db.Close(); err != nil {
			return nil, err
		}
	}
	panic("BUG: unreachable")
}

// reads times cfg.Samples tails and lists of each shape.
func (r *runner) reads(ctx context.Context, l *oplog.Log, rng *rand.Rand) error {
	f := &r.fill
	last := l.Stats().LastID
	n := r.cfg.Samples
	tail := make([]time.Duration, n)
	for i := range tail {
		since := last - tailLimit - rng.Uint64N(min(tailBehind, last-tailLimit)+1)
		start := time.Now()
		t, err := l.Tail(ctx, oplog.TailQuery{SinceID: since, HasSince: true, Limit: tailLimit})
		tail[i] = time.Since(start)
		if err != nil {
			return err
		}
		if len(t.Lines) != tailLimit || t.Lines[0].ID != since+1 {
			return fmt.Errorf("tail after %d: %d lines, want %d from %d", since, len(t.Lines), tailLimit, since+1)
		}
	}
	f.tail = append(f.tail, percentiles(tail))
	for _, count := range []int{10, 200} {
		list := make([]time.Duration, n)
		for i := range list {
			start := time.Now()
			p, err := l.List(ctx, oplog.Query{Count: count})
			list[i] = time.Since(start)
			if err != nil {
				return err
			}
			if len(p.Records) != count || p.Records[0].ID != last {
				return fmt.Errorf("list %d: %d records", count, len(p.Records))
			}
		}
		if count == 10 {
			f.list10 = append(f.list10, percentiles(list))
		} else {
			f.list200 = append(f.list200, percentiles(list))
		}
	}
	return nil
}
