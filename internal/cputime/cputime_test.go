package cputime_test

import (
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/cputime"
)

// TestSelf_Grows spins until the process has used CPU time: a reading that
// never moves (a unit off by 10⁷, a field never filled) fails at the deadline.
func TestSelf_Grows(t *testing.T) {
	start := cputime.Self()
	deadline := time.Now().Add(10 * time.Second)
	x := 0
	for cputime.Self()-start < 20*time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatalf("CPU time went from %v to %v in 10s of spinning", start, cputime.Self())
		}
		for i := range 1_000_000 {
			x += i
		}
	}
	if d := cputime.Self() - start; d > time.Minute {
		t.Fatalf("CPU time grew by %v in at most 10s", d)
	}
	_ = x
}
