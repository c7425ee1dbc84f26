package bench

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

// underServeLimit runs fn under the Go memory limit that `mcplogd serve`
// sets (datadir.DefaultMemoryLimit), raised by what the benchmark itself
// holds live when fn starts (its clients' encoded bodies, the generated
// records), which a server would not hold. It returns the limit it set;
// with GOMEMLIMIT set, that stands instead (0).
func underServeLimit(fn func() error) (int64, error) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0, fn()
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := datadir.DefaultMemoryLimit + int64(ms.HeapAlloc)
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	return limit, fn()
}

// limitNote says which memory limit a section ran under.
func limitNote(limit int64) string {
	if limit == 0 {
		return "under the GOMEMLIMIT of the environment"
	}
	return "under serve's Go memory limit (" + mib(datadir.DefaultMemoryLimit) + ", `--memory-limit`) plus the " +
		mib(limit-datadir.DefaultMemoryLimit) + " the benchmark itself held live then"
}
