package search

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// TestWarm_ReadsWholeChunksAboveTheWatermark checks that the indexer's warm
// step leaves the whole chunks above the watermark decoded in the cache
// (newest first, within its limit, the newest kept when it is full), not
// the growing last one, and drops
// them once the watermark passes them.
func TestWarm_ReadsWholeChunksAboveTheWatermark(t *testing.T) {
	st := oplogtest.NewMemory()
	x, err := Open(t.TempDir(), st, &Options{TailChunk: 100, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close() })
	recs := make([]oplog.Record, 450)
	for i := range recs {
		recs[i] = oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "game", Name: "Main", Text: fmt.Sprintf("line %d", i), Time: time.Now()}
	}
	if err := st.Append(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	if err := x.warm(); err != nil {
		t.Fatal(err)
	}
	cached := func() []uint64 {
		x.tail.mu.Lock()
		defer x.tail.mu.Unlock()
		ks := make([]uint64, 0, len(x.tail.chunks))
		for k, c := range x.tail.chunks {
			if len(c.recs) != 100 || c.recs[0].ID != k*100+1 {
				t.Errorf("chunk %d holds %d records from ID %d", k, len(c.recs), c.recs[0].ID)
			}
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	if got := cached(); !slices.Equal(got, []uint64{0, 1, 2, 3}) {
		t.Fatalf("after warm, cached chunks %v; want the whole ones 0..3 (IDs 1..400), not the growing 4", got)
	}
	// Full, the cache keeps the newest chunks: a search reading an older one
	// leaves it as it is, a newer one pushes the oldest out.
	x.tail.mu.Lock()
	x.tail.max = 300
	clear(x.tail.chunks)
	x.tail.mu.Unlock()
	if err := x.warm(); err != nil {
		t.Fatal(err)
	}
	if got := cached(); !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Fatalf("with room for 3 chunks, cached %v; want the newest 1..3", got)
	}
	if _, _, err := x.chunk(0, x.revision); err != nil {
		t.Fatal(err)
	}
	if got := cached(); !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Fatalf("after reading the older chunk 0, cached %v; want 1..3 still", got)
	}
	more := make([]oplog.Record, 100)
	for i := range more {
		more[i] = oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "game", Name: "Main", Text: fmt.Sprintf("more %d", i), Time: time.Now()}
	}
	if err := st.Append(context.Background(), more); err != nil {
		t.Fatal(err)
	}
	if err := x.warm(); err != nil {
		t.Fatal(err)
	}
	if got := cached(); !slices.Equal(got, []uint64{2, 3, 4}) {
		t.Fatalf("after 100 more records, cached %v; want the newest 2..4", got)
	}
	if _, err := x.indexOnce(); err != nil { // BatchSize covers all 550
		t.Fatal(err)
	}
	if got := x.Status().SegmentsThrough; got != 550 {
		t.Fatalf("indexed through %d, want 550", got)
	}
	if err := x.warm(); err != nil {
		t.Fatal(err)
	}
	if got := cached(); len(got) != 0 {
		t.Fatalf("with the watermark at the last ID, cached chunks %v; want none", got)
	}
}
