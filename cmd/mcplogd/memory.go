package main

import (
	"flag"
	"math"
	"runtime/debug"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

// memoryLimit is --memory-limit, the soft limit of the Go runtime's memory
// (runtime/debug.SetMemoryLimit) that serve and stdio set. Near it the
// garbage collector runs more often rather than the heap doubling its live
// part: a catch-up of the index keeps 80–150 MB live and, without a limit,
// took ~290 MiB of anonymous memory at its peak; with 200 MiB, ~190 MiB,
// at the same ingest rate, the segments catching up ~20% later (docs/benchmarks.md,
// "Memory and disk with the indexes running"). The file bbolt maps is not counted
// by it. The Go runtime bounds the collector to about half the
// CPU when the live heap itself outgrows the limit, so the limit slows a
// process down then rather than stopping it.
type memoryLimit struct {
	bytes uint64
	set   bool // given as a flag: GOMEMLIMIT does not count then
}

func (l *memoryLimit) register(fs *flag.FlagSet) {
	l.bytes = datadir.DefaultMemoryLimit
	fs.Var(setSize{sizeValue{&l.bytes}, &l.set}, "memory-limit", "soft limit of the Go heap and runtime: near it the garbage collector works harder instead of the process growing (0: none; GOMEMLIMIT when that is set and the flag is not; 200MiB by default) (bytes; KB, MB, GB, KiB, MiB, GiB accepted)")
}

// apply sets the limit: the flag's, else the GOMEMLIMIT the runtime already
// took, else the default.
func (l *memoryLimit) apply(getenv func(string) string) {
	if !l.set && getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(math.MaxInt64)
	if l.bytes > 0 && l.bytes < math.MaxInt64 {
		limit = int64(l.bytes)
	}
	debug.SetMemoryLimit(limit)
}

// setSize is a size flag that notes it was given.
type setSize struct {
	sizeValue
	set *bool
}

func (v setSize) Set(s string) error {
	*v.set = true
	return v.sizeValue.Set(s)
}
