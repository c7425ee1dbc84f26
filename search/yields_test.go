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
// term sets keep up with them, and while the sets catch up; not when
// records arrive slowly and the sets are caught up or do not move, when
// the sets are too far behind, when it has waited yieldMax, or while
// rebuilding.
func TestYields(t *testing.T) {
	st := oplogtest.NewMemory()
	add := func(n int) {
		recs := make([]oplog.Record, n)
		for i := range recs {
			recs[i] = oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Text: fmt.Sprintf("line %d", i), Time: time.Now()}
		}
		if err := st.Append(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
	}
	add(1)
	x, err := Open(t.TempDir(), st, &Options{TailChunk: 100, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close() })
	// The indexer and the term sets step once at Open, then an hour later.
	covered := func() uint64 {
		x.mu.RLock()
		defer x.mu.RUnlock()
		return x.terms.covered(x.revision, x.watermark)
	}
	deadline := time.Now().Add(time.Minute)
	for covered() < 1 || x.steps.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first record is in no term set, or the indexer did not look, a minute after Open")
		}
		time.Sleep(5 * time.Millisecond)
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
		t.Fatal("yields to 5,000 records a second, the term sets not moving")
	}
	if burst(yieldUncovered + 1000) {
		t.Fatal("yields with the term sets more than yieldUncovered records behind, not moving")
	}
	if _, _, err := x.buildTerms(); err != nil {
		t.Fatal(err)
	}
	if !burst(0) {
		t.Fatal("does not yield while the term sets catch up")
	}
	for covered() < st.Stats().LastID { // termsStep at a time
		if _, _, err := x.buildTerms(); err != nil {
			t.Fatal(err)
		}
	}
	if burst(0) {
		t.Fatal("yields with the term sets caught up and no records arriving")
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
	add(maxTermSetRecords) // more than the sets may hold above the watermark
	if _, _, err := x.buildTerms(); err != nil {
		t.Fatal(err)
	}
	y.at = time.Now().Add(-time.Hour)
	if x.yields(&y) {
		t.Fatal("yields to term sets that cannot reach the log's end")
	}
	x.mu.Lock()
	x.state = oplog.IndexRebuilding
	x.mu.Unlock()
	if burst(1000) {
		t.Fatal("yields while rebuilding")
	}
}
