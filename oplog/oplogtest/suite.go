package oplogtest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// Opener returns a new, empty store for one test. It registers whatever
// cleanup the store needs (closing it when the test has not, checking its
// counters) with t; the suite closes the Log over it itself.
type Opener func(t *testing.T) oplog.Store

// TestStore runs the conformance suite: oplog.Log's behaviour over a store
// that open makes, one fresh store per subtest. Every oplog.Store runs it
// (package store on bbolt, Memory in oplog's own tests), so the Log is
// tested the same way over each, and each store against the same
// expectations.
func TestStore(t *testing.T, open Opener) {
	for _, tc := range []struct {
		name string
		test func(*testing.T, Opener)
	}{
		{"Append/ConcurrentWritersGetDenseUniqueIDs", testAppendConcurrent},
		{"Append/BadRecordRejectsBatch", testAppendBadBatch},
		{"Get", testGet},
		{"GetMany", testGetMany},
		{"Complete", testComplete},
		{"AwaitComplete", testAwaitComplete},
		{"Wait", testWait},
		{"List", testList},
		{"Tail/PagingWhileWriting", testTailPagingWhileWriting},
		{"Tail/Newest", testTailNewest},
		{"Tail/MoreAndLastIDWithFilter", testTailMoreAndLastIDWithFilter},
		{"Tail/Reset", testTailReset},
		{"Tail/WaitReturnsWhenLineArrives", testTailWaitReturnsWhenLineArrives},
		{"Tail/WaitEnds", testTailWaitEnds},
		{"Tail/FilterSkipsNonMatchingArrivalsWhileWaiting", testTailFilterSkipsWhileWaiting},
		{"Position/ReadBack", testPositionReadBack},
		{"Position/FailedAppendWritesNone", testPositionFailedAppend},
		{"Position/ClearKeeps", testPositionClearKeeps},
		{"Position/Concurrent", testPositionConcurrent},
		{"Names", testNames},
		{"Neighbors", testNeighbors},
		{"Clear", testClear},
		{"Stats", testStats},
		{"Runs/NumberedPerSource", testRunsNumberedPerSource},
		{"Runs/MarkersValidatedAndCounted", testMarkersValidatedAndCounted},
		{"Runs/Filter", testRunsFilter},
		{"Runs/ResolveRunAndLastMarker", testResolveRunAndLastMarker},
		{"Runs/CompleteAndClear", testRunsCompleteAndClear},
		{"Runs/Outcomes", testRunsOutcomes},
		{"Runs/OutcomesLastError", testRunsOutcomesLastError},
		{"Runs/OutcomesJustAfterError", testRunsOutcomesJustAfterError},
		{"Runs/OutcomesQuitOnError", testRunsOutcomesQuitOnError},
		{"Runs/ResolveRunByTime", testResolveRunByTime},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, open) })
	}
}

// newLog returns a Log over a new store from open, closed at cleanup.
func newLog(t *testing.T, open Opener) *oplog.Log {
	t.Helper()
	l := oplog.New(open(t), nil)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// Lines returns n info lines named "test" with texts prefix-0, prefix-1, ...
func Lines(n int, prefix string) []oplog.Record {
	recs := make([]oplog.Record, n)
	for i := range recs {
		recs[i] = oplog.Record{Level: oplog.LevelInfo, Name: "test", Text: fmt.Sprintf("%s-%d", prefix, i)}
	}
	return recs
}

// MustAppend appends recs and fails the test on error; it returns recs,
// normalised and with their IDs.
func MustAppend(tb testing.TB, l *oplog.Log, recs ...oplog.Record) []oplog.Record {
	tb.Helper()
	if err := l.Append(context.Background(), recs); err != nil {
		tb.Fatalf("append: %v", err)
	}
	return recs
}

func texts(recs []oplog.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Text)
	}
	return out
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
