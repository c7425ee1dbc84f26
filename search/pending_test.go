package search_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestIndex_PendingOperations_IdleReadsNone: 20,000 operations that never
// complete are read again once after they are indexed; then indexer steps
// and searches read none of them, until one completes, which is read and
// found as it now stands.
func TestIndex_PendingOperations_IdleReadsNone(t *testing.T) {
	const n = 20000
	opts := small()
	e := mustOpen(t, t.TempDir(), opts, nil)
	recs := make([]oplog.Record, n)
	for i := range recs {
		recs[i] = oplog.Record{Tool: "run_lua", Source: "agent"}
	}
	ops := logtest.MustAppend(t, e.log, recs...)
	step := func() { // one more indexer step past everything
		logtest.MustAppend(t, e.log, lines(0, 1)...)
		e.waitIndexed()
	}
	step()
	step()
	first := e.idx.PendingReads()
	q := oplog.SearchQuery{Query: "status:pending"}
	for range 5 {
		step()
		h, err := e.idx.Search(context.Background(), &q, 0, n+1) // every hit: an exact total
		if err != nil || h.Total != n || !h.TotalExact {
			t.Fatalf("status:pending: total %d (exact %v), %v; want %d", h.Total, h.TotalExact, err, n)
		}
	}
	if got := e.idx.PendingReads(); got != first {
		t.Fatalf("idle: %d more reads of pending operations; want none", got-first)
	}
	if _, err := e.log.Complete(context.Background(), ops[123].ID, oplog.Completion{Error: "boom"}); err != nil {
		t.Fatal(err)
	}
	if got := e.all(oplog.SearchQuery{Query: "status:error"}); !slices.Equal(got, []uint64{ops[123].ID}) {
		t.Fatalf("status:error after a completion: %v; want [%d]", got, ops[123].ID)
	}
	step()
	if got := e.all(oplog.SearchQuery{Query: "status:error"}); !slices.Equal(got, []uint64{ops[123].ID}) {
		t.Fatalf("status:error once reindexed: %v; want [%d]", got, ops[123].ID)
	}
	if extra := e.idx.PendingReads() - first; extra == 0 || extra > 3 {
		t.Fatalf("one completion: %d more reads; want 1 to 3", extra)
	}
}
