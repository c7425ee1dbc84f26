package bench

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// Memory and disk with the indexes running, as `mcplogd serve` opens a data
// directory: the store, the log, the crash index's background reader and
// the search index, fed cfg.Records lines of the workload in batches of
// fillBatch while RSS is sampled; then until the index has caught up and
// the store has sealed what it holds (its blocks of an older format, the
// S2 ones the ingest left, sealed again), and memorySteady longer
// (steadyWindow).
const (
	memorySample  = 100 * time.Millisecond
	memorySteady  = 5 * time.Second
	memoryCatchUp = 10 * time.Minute // the most the index is waited for
)

// memoryResult is what measureMemory found.
type memoryResult struct {
	records  int
	sealed   time.Duration // from the index's catch-up until the store had sealed what it held
	payload  int64
	ingest   time.Duration // the appends
	catchUp  time.Duration // from the ingest's end to the index's watermark at the last ID
	before   procStatus    // before the store was opened
	limit    int64         // the Go memory limit of the run (limit.go)
	peak     procStatus    // the sample of the highest RSS, ingest and catch-up
	ingestP  int64         // median RSS during the ingest
	steady   procStatus    // the median-RSS sample over memorySteady after catch-up
	heap     uint64        // Go heap in use at the end of the steady window
	logBytes int64         // log.db after Close
	idxBytes int64         // the index folder after Close
	others   float64
}

// rssSampler reads /proc/self/status every memorySample until stopped,
// tagging each sample with the phase it was taken in.
type rssSampler struct {
	mu      sync.Mutex
	phase   int
	samples [3][]procStatus // ingest, catch-up, steady
	stop    chan struct{}
	done    chan struct{}
}

func startSampler() *rssSampler {
	s := &rssSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(memorySample)
		defer t.Stop()
		for {
			s.take()
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *rssSampler) take() {
	p := readProcStatus()
	s.mu.Lock()
	s.samples[s.phase] = append(s.samples[s.phase], p)
	s.mu.Unlock()
}

func (s *rssSampler) next() {
	s.take()
	s.mu.Lock()
	s.phase++
	s.mu.Unlock()
	s.take()
}

func (s *rssSampler) finish() [3][]procStatus {
	close(s.stop)
	<-s.done
	s.take()
	return s.samples
}

// medianRSS returns the sample of median RSS.
func medianRSS(ps []procStatus) procStatus {
	if len(ps) == 0 {
		return procStatus{-1, -1, -1, -1}
	}
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b procStatus) int { return int(a.rss - b.rss) })
	return ps[len(ps)/2]
}

func (r *runner) measureMemory(ctx context.Context) error {
	dir, remove, err := r.runDir("memory")
	if err != nil {
		return err
	}
	defer remove()
	m := &r.memory
	m.limit, err = underServeLimit(func() error { return r.memoryWith(ctx, dir) })
	return err
}

// memoryWith is measureMemory's run in dir.
func (r *runner) memoryWith(ctx context.Context, dir string) error {
	m := &r.memory
	runtime.GC()
	debug.FreeOSMemory()
	m.before = readProcStatus()
	cpu := sampleCPU()
	db, err := store.Open(filepath.Join(dir, "log.db"), nil)
	if err != nil {
		return err
	}
	l := oplog.New(db, nil)
	l.SetCrashes(crash.New(l, &crash.Options{}))
	idx, err := search.Open(filepath.Join(dir, "index"), db, &search.Options{Changed: l.Changed, Completed: l.CompletedSince})
	if err != nil {
		_ = l.Close()
		return err
	}
	l.SetIndex(idx) // the log closes it
	s := startSampler()
	err = r.memoryRun(ctx, db, l, idx, s)
	phases := s.finish()
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	m.others = othersShare(cpu, sampleCPU())
	if err != nil {
		return err
	}
	m.peak = procStatus{-1, -1, -1, -1}
	for _, p := range slices.Concat(phases[0], phases[1]) {
		if p.rss > m.peak.rss {
			m.peak = p
		}
	}
	m.ingestP = medianRSS(phases[0]).rss
	m.steady = medianRSS(phases[2])
	m.logBytes = fileBytes(filepath.Join(dir, "log.db"))
	m.idxBytes = fileBytes(filepath.Join(dir, "index"))
	r.progress("memory: %d records in %.2fs, index caught up %.2fs later, the store sealed %.2fs after; RSS peak %s, steady %s; log %s, index %s",
		m.records, m.ingest.Seconds(), m.catchUp.Seconds(), m.sealed.Seconds(), mib(m.peak.rss), mib(m.steady.rss), mib(m.logBytes), mib(m.idxBytes))
	return nil
}

// memoryRun appends the workload, waits for the index and the store's
// sealing and samples the steady state.
func (r *runner) memoryRun(ctx context.Context, db *store.DB, l *oplog.Log, idx *search.Index, s *rssSampler) error {
	m := &r.memory
	g := r.generator(r.cfg.Seed)
	recs := make([]oplog.Record, fillBatch)
	start := time.Now()
	for m.records < r.cfg.Records {
		batch := recs[:min(fillBatch, r.cfg.Records-m.records)]
		clear(batch)
		g.Fill(batch)
		for i := range batch {
			m.payload += int64(workload.Payload(&batch[i]))
		}
		if err := l.Append(ctx, batch); err != nil {
			return err
		}
		m.records += len(batch)
	}
	m.ingest = time.Since(start)
	s.next()
	wctx, cancel := context.WithTimeout(ctx, memoryCatchUp)
	defer cancel()
	if err := idx.WaitIndexed(wctx, l.Stats().LastID, nil); err != nil {
		return fmt.Errorf("waiting for the search index: %w", err)
	}
	m.catchUp = time.Since(start) - m.ingest
	for {
		lay, err := db.Layout()
		if err != nil {
			return err
		}
		if lay.OutdatedBlocks == 0 && lay.LooseBytes < codec.BlockTarget {
			break
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("waiting for the store to seal: %w", wctx.Err())
		case <-time.After(memorySample):
		}
	}
	m.sealed = time.Since(start) - m.ingest - m.catchUp
	s.next()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(steadyWindow(m.records)):
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.heap = ms.HeapInuse
	return nil
}

// steadyWindow is memorySteady, shorter for a small store (a test's).
func steadyWindow(records int) time.Duration {
	return min(memorySteady, time.Duration(records)*50*time.Microsecond)
}

// fileBytes is what a file, or every file under a folder, takes on disk
// (as du counts it: bbolt sizes its file ahead of its pages, sparsely).
func fileBytes(path string) int64 {
	var n int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += allocated(fi)
			}
		}
		return nil
	})
	return n
}
