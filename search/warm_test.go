package search

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// TestWarm_ReadsTheNewestWholeChunks checks that the index's warm step
// leaves the newest whole chunks decoded in the cache (newest first,
// within its limit, the newest kept when it is full), not the growing
// last one.
func TestWarm_ReadsTheNewestWholeChunks(t *testing.T) {
	st := oplogtest.NewMemory()
	x, err := Open(t.TempDir(), st, &Options{TailChunk: 100, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close() })
	x.work.Lock() // the index takes no step (it could start late)
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
	x.work.Unlock()
}

// A chunk of records larger than maxChunkBytes is neither kept nor held
// whole: warm remembers it and goes on, and a search evaluates it as it
// reads it, finding what it holds.
func TestWarm_LargeChunkIsNotHeld(t *testing.T) {
	st := oplogtest.NewMemory()
	x, err := Open(t.TempDir(), st, &Options{TailChunk: 10, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close() })
	x.work.Lock() // the index takes no step (it could start late)
	defer x.work.Unlock()
	filler := strings.Repeat("filler ", (2<<20)/7) // 2 MiB: ten make a chunk over maxChunkBytes
	recs := make([]oplog.Record, 35)
	for i := range recs {
		recs[i] = oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "game", Text: fmt.Sprintf("line%d", i+1), Time: time.Now()}
		if i < 20 {
			recs[i].Stack = filler
		}
	}
	if err := st.Append(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	if err := x.warm(); err != nil {
		t.Fatal(err)
	}
	x.tail.mu.Lock()
	var kept []uint64
	for k := range x.tail.chunks {
		kept = append(kept, k)
	}
	slices.Sort(kept)
	big := x.tail.big[0] && x.tail.big[1]
	x.tail.mu.Unlock()
	if !slices.Equal(kept, []uint64{2}) || !big {
		t.Fatalf("cached chunks %v (large ones marked: %v); want only chunk 2, of small records", kept, big)
	}
	for _, id := range []int{3, 17, 25, 35} {
		h, err := x.Search(context.Background(), &oplog.SearchQuery{Query: fmt.Sprintf("line%d", id)}, 0, 10)
		if err != nil || !slices.Equal(h.IDs, []uint64{uint64(id)}) {
			t.Errorf("line%d: %v, %v", id, h.IDs, err)
		}
	}
	if h, err := x.Search(context.Background(), &oplog.SearchQuery{Query: "filler", Limit: 5}, 0, 5); err != nil || len(h.IDs) != 5 || h.IDs[0] != 20 || !h.More {
		t.Errorf("filler, newest 5: %+v, %v", h, err)
	}
}
