package crash_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestIndex_PendingOperations_IdleReadsNone: 20,000 operations that never
// complete are read by the cursor; then the background reader's ticks and
// crash queries read none of them again, until one fails with a stack, which is
// read once and found.
func TestIndex_PendingOperations_IdleReadsNone(t *testing.T) {
	const n = 20000
	l, _ := logtest.MustOpenLog(t, nil)
	x := crash.New(l, &crash.Options{Interval: 5 * time.Millisecond})
	l.SetCrashes(x)
	recs := make([]oplog.Record, n)
	for i := range recs {
		recs[i] = oplog.Record{Tool: "run_lua", Source: "agent"}
	}
	ops := logtest.MustAppend(t, l, recs...)
	logtest.Eventually(t, 10*time.Second, "every operation read", func() bool { return x.Covered() >= ops[n-1].ID })
	first := x.PendingReads()
	for i := range 20 { // ticks and wake-ups, and queries that catch up
		logtest.MustAppend(t, l, oplog.Record{Level: oplog.LevelInfo, Text: "tick", Time: t0.Add(time.Duration(i) * time.Second)})
		find(t, l, oplog.CrashQuery{})
	}
	last := l.Stats().LastID
	logtest.Eventually(t, 10*time.Second, "the reader past the ticks", func() bool { return x.Covered() >= last })
	if got := x.PendingReads(); got != first {
		t.Fatalf("idle: %d more reads of pending operations; want none", got-first)
	}
	_, err := l.Complete(context.Background(), ops[77].ID, oplog.Completion{Error: "boom", Status: oplog.StatusError})
	if err != nil {
		t.Fatal(err)
	}
	// An error without frames is no crash; one with a stack is.
	ops2 := logtest.MustAppend(t, l, oplog.Record{Tool: "run_lua"})
	if _, err := l.Complete(context.Background(), ops2[0].ID, oplog.Completion{Error: fill(goPanic, 1)}); err != nil {
		t.Fatal(err)
	}
	p := find(t, l, oplog.CrashQuery{})
	if len(p.Groups) != 1 || p.Groups[0].Count != 1 {
		t.Fatalf("after a failed operation: %+v; want one group of one", p.Groups)
	}
	if extra := x.PendingReads() - first; extra < 1 || extra > 3 {
		t.Fatalf("two completions: %d more reads; want 1 to 3", extra)
	}
}
