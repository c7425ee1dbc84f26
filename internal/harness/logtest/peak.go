package logtest

import (
	"bufio"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Peak is the memory that one run of a function took, for benchmarks that
// report what a hostile input costs (b.ReportMetric).
type Peak struct {
	// RSS is the process's peak resident set during the run above its
	// resident set before it (Linux: /proc/self/clear_refs resets the
	// peak; 0 elsewhere), in bytes.
	RSS int64
	// Heap is the highest Go heap (live and not yet collected objects)
	// sampled every half millisecond during the run, above the heap
	// before it, in bytes.
	Heap int64
}

// MeasurePeak runs f after a garbage collection and returns its Peak.
func MeasurePeak(f func()) Peak {
	runtime.GC()
	rssBefore := procKB("VmRSS")
	resetPeakRSS := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 { metrics.Read(sample); return int64(sample[0].Value.Uint64()) }
	heapBefore := read()
	var (
		mu       sync.Mutex
		heapPeak = heapBefore
		stop     = make(chan struct{})
		done     = make(chan struct{})
	)
	go func() {
		defer close(done)
		t := time.NewTicker(500 * time.Microsecond)
		defer t.Stop()
		for {
			h := read()
			mu.Lock()
			heapPeak = max(heapPeak, h)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	p := Peak{Heap: heapPeak - heapBefore}
	if resetPeakRSS {
		p.RSS = (procKB("VmHWM") - rssBefore) * 1024
	}
	return p
}

// procKB reads a "Name: N kB" line of /proc/self/status; 0 when there is
// none.
func procKB(name string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
