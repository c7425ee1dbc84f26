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
// does not stop forwarding: every record outside it reaches VictoriaLogs
// once, reconciled, and the block's records count as lost to the studio.
func TestForward_DamagedBlock(t *testing.T) {
	v := vltest.Start(t)
	path, blocks := logtest.MustSealedStore(t, 20_000)
	b := blocks[1]
	if err := logtest.FlipBit(path, b.At+b.Size/2, 2); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	t.Cleanup(func() { _ = l.Close() })
	f := forward(t, l, v.URL, "m1")
	s := caughtUp(t, f, l, 2*time.Minute)
	if s.Lost != uint64(b.Records) {
		t.Fatalf("status %+v: want the damaged block's %d records lost", s, b.Records)
	}
	got := rows(t, v, "m1")
	if len(got) != 20_000-b.Records {
		t.Fatalf("%d rows, want %d", len(got), 20_000-b.Records)
	}
	for _, r := range got {
		if id := num(t, r["id"]); id >= b.First && id <= b.Last {
			t.Fatalf("a row of the damaged block: %v", r)
		}
	}
}
