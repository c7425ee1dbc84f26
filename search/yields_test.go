package search

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// TestYields: the indexer steps aside while records arrive fast and the
// term sets keep up with them, and not when they arrive slowly, when the
// sets fall behind, when it has waited yieldMax, or while rebuilding.
func TestYields(t *testing.T) {
	st := oplogtest.NewMemory()
	x, err := Open(t.TempDir(), st, &Options{TailChunk: 100, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close() })
	add := func(n int) {
		recs := make([]oplog.Record, n)
		for i := range recs {
			recs[i] = oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Text: fmt.Sprintf("line %d", i), Time: time.Now()}
		}
		if err := st.Append(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
	}
	var y yielding
	if x.yields(&y) {
		t.Fatal("yields at its first look")
	}
	// n more records, the last look 10 ms ago: 100 records are 10,000 a second.
	burst := func(n int) bool {
		add(n)
		y.at = time.Now().Add(-10 * time.Millisecond)
		return x.yields(&y)
	}
	if !burst(1000) {
		t.Fatal("does not yield to 100,000 records a second, the term sets 1,000 behind")
	}
	if burst(50) {
		t.Fatal("yields to 5,000 records a second")
	}
	if burst(yieldUncovered + 1000) {
		t.Fatal("yields with the term sets more than yieldUncovered records behind")
	}
	if _, _, err := x.buildTerms(); err != nil {
		t.Fatal(err)
	}
	for x.terms.covered(x.revision, 0) < st.Stats().LastID { // termsStep at a time
		if _, _, err := x.buildTerms(); err != nil {
			t.Fatal(err)
		}
	}
	if !burst(1000) {
		t.Fatal("does not yield once the term sets caught up")
	}
	y.since = time.Now().Add(-yieldMax)
	if burst(1000) {
		t.Fatal("yields past yieldMax in a row")
	}
	if !burst(1000) {
		t.Fatal("does not yield again after a step")
	}
	x.mu.Lock()
	x.state = oplog.IndexRebuilding
	x.mu.Unlock()
	if burst(1000) {
		t.Fatal("yields while rebuilding")
	}
}
