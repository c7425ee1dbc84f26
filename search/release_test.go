package search

import (
	"errors"
	"testing"
	"time"
)

// The indexer gives memory back once, when a catch-up of releaseBacklog
// records (or releaseBytes) or more ends, and not while steps stay full, after a small one,
// or sooner than releaseEvery after the last time.
func TestReleaser(t *testing.T) {
	calls := 0
	r := releaser{free: func() { calls++ }}
	now := time.Unix(1_000_000, 0)
	const batch = 10_000
	step := func(n int) {
		now = now.Add(time.Second)
		r.indexed(n, 0, n >= batch, now)
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
	now = now.Add(releaseEvery) // a catch-up of 300 records of 1 MiB: large by its bytes
	r.indexed(16, 16<<20, true, now)
	r.indexed(284, 284<<20, false, now)
	if calls != 3 {
		t.Fatalf("after a catch-up of 300 MiB of records: %d calls, want 3", calls)
	}
}

// The store's mapped pages go back after every releaseBacklog records the
// indexers read (or releaseBytes of them), while they are behind too, and
// when one catches up after unmapIdle or more; not after each small read.
func TestUnmapper(t *testing.T) {
	unmaps := 0
	u := unmapper{unmap: func() error { unmaps++; return nil }}
	read := func(n, times int, caughtUp bool) {
		t.Helper()
		for range times {
			if err := u.readN(n, 0, caughtUp); err != nil {
				t.Fatal(err)
			}
		}
	}
	read(10_000, 20, false) // 200,000 records, behind all along
	// at 70,000 and 140,000: the count starts over each time
	if unmaps != 2 {
		t.Fatalf("while behind, 200,000 records read: %d unmaps", unmaps)
	}
	was := unmaps
	read(5, 100, true)   // a trickle: 500 records in small reads, each caught up
	if unmaps != was+1 { // the 60,000 left over from the catch-up went at the first
		t.Fatalf("a trickle after a catch-up: %d unmaps, want 1", unmaps-was)
	}
	read(5, 100, true)
	if unmaps != was+1 {
		t.Fatalf("a trickle of 500 records unmapped %d times", unmaps-was-1)
	}
	read(unmapIdle, 1, true)
	if unmaps != was+2 {
		t.Fatalf("catching up after %d records: %d unmaps, want 1", unmapIdle, unmaps-was-1)
	}
	was = unmaps // large records count by their bytes: releaseBytes of a few records
	if err := u.readN(0, releaseBytes-1, false); err != nil || unmaps != was {
		t.Fatalf("short of releaseBytes: %d unmaps, %v", unmaps-was, err)
	}
	if err := u.readN(1, 1, false); err != nil || unmaps != was+1 {
		t.Fatalf("%d bytes of large records read: %d unmaps, want 1 (%v)", releaseBytes, unmaps-was, err)
	}
	u.unmap = func() error { return errors.New("boom") }
	if err := u.readN(releaseBacklog, 0, false); err == nil || err.Error() != "boom" {
		t.Fatalf("the store's error: %v", err)
	}
	var none unmapper // a store without a mapping
	if err := none.readN(releaseBacklog, 0, true); err != nil {
		t.Fatal(err)
	}
}
