package search

import (
	"testing"
	"time"
)

// The indexer gives memory back once, when a catch-up of releaseBacklog
// records or more ends, and not while steps stay full, after a small one,
// or sooner than releaseEvery after the last time.
func TestReleaser(t *testing.T) {
	calls := 0
	r := releaser{free: func() { calls++ }}
	now := time.Unix(1_000_000, 0)
	const batch = 10_000
	step := func(n int) {
		now = now.Add(time.Second)
		r.indexed(n, batch, now)
	}
	for range releaseBacklog / batch {
		step(batch) // full steps: the catch-up goes on
	}
	if calls != 0 {
		t.Fatalf("gave memory back %d times during the catch-up", calls)
	}
	step(batch - 1) // the last, short step: caught up
	if calls != 1 {
		t.Fatalf("after a catch-up of %d records: %d calls, want 1", r.backlog, calls)
	}
	step(0)
	step(100)
	if calls != 1 {
		t.Fatalf("idle steps gave memory back again: %d calls", calls)
	}
	for range releaseBacklog/batch + 1 {
		step(batch)
	}
	step(0) // a second catch-up, 10 s or so after the first: too soon
	if calls != 1 {
		t.Fatalf("a second catch-up within %s: %d calls, want 1", releaseEvery, calls)
	}
	now = now.Add(releaseEvery)
	step(0) // its backlog is still counted: given back once the time has passed
	if calls != 2 {
		t.Fatalf("after releaseEvery: %d calls, want 2", calls)
	}
}
