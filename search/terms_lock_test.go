package search

import (
	"fmt"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestTerms_AddAllLetsReadersIn: the builder holds a chunk's lock for
// lockRecords records at a time, not for the whole chunk, so a search
// that looks at the chunk meanwhile reads what is in it so far.
func TestTerms_AddAllLetsReadersIn(t *testing.T) {
	an := newAnalyzers(newMapping()).words
	c := &chunkTerms{from: 1, words: [2]map[string]uint32{{}, {}}, kw: map[kwKey]uint32{}, span: newSpan()}
	const n = 1000
	recs := make([]oplog.Record, n)
	for i := range recs {
		recs[i] = oplog.Record{ID: uint64(i + 1), Level: oplog.LevelInfo, Name: "Game", Text: fmt.Sprintf("loaded word%d", i+1)}
	}
	var seen []uint64
	addAllHook = func(c *chunkTerms) {
		if !c.mu.TryRLock() {
			t.Errorf("the chunk's lock is held between steps")
			return
		}
		defer c.mu.RUnlock()
		seen = append(seen, c.through)
		if !c.has(0, fmt.Sprintf("word%d", c.through)) || c.has(0, fmt.Sprintf("word%d", c.through+1)) {
			t.Errorf("through %d, but the set does not hold exactly the words up to it", c.through)
		}
	}
	defer func() { addAllHook = nil }()
	var buf []byte
	took, _ := c.addAll(recs, an, n, 1<<40, &buf)
	if took != n || !c.complete || !c.has(0, "word1") || !c.has(0, fmt.Sprintf("word%d", n)) {
		t.Fatalf("took %d of %d, complete %v", took, n, c.complete)
	}
	if want := []uint64{lockRecords, 2 * lockRecords, 3 * lockRecords, n}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("the lock was let go with through at %v, want %v", seen, want)
	}
}
