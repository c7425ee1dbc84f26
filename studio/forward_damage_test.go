package studio_test

import (
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// TestForward_DamagedBlock: a sealed block of log.db with a flipped bit
// does not stop forwarding: every record outside the runs the block loses
// (it is read in part) reaches VictoriaLogs once, reconciled, and the
// records of those runs count as lost to the studio.
func TestForward_DamagedBlock(t *testing.T) {
	v := vltest.Start(t)
	path, blocks := logtest.MustSealedStore(t, 20_000)
	b := blocks[1]
	if err := logtest.FlipBit(path, b.At+b.Size/2, 2); err != nil {
		t.Fatal(err)
	}
	// The block is read in part: the runs of 64 records whose checksums
	// fail are lost, the rest of it is forwarded.
	runs, err := logtest.LostRuns(path, b)
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	inLost := func(id uint64) bool {
		for _, r := range runs {
			if id >= r[0] && id <= r[1] {
				return true
			}
		}
		return false
	}
	for _, r := range runs {
		lost += int(r[1] - r[0] + 1)
	}
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	t.Cleanup(func() { _ = l.Close() })
	f := forward(t, l, v.URL, "m1")
	s := caughtUp(t, f, l, 2*time.Minute)
	if s.Lost != uint64(lost) || lost >= b.Records {
		t.Fatalf("status %+v: want the %d records of the damaged block's runs %v lost, fewer than its %d", s, lost, runs, b.Records)
	}
	got := rows(t, v, "m1")
	if len(got) != 20_000-lost {
		t.Fatalf("%d rows, want %d", len(got), 20_000-lost)
	}
	for _, r := range got {
		if id := num(t, r["id"]); inLost(id) {
			t.Fatalf("a row of a lost run: %v", r)
		}
	}
}
