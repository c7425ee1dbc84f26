package oplog_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// clock is a settable time for a Log.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time)     { c.mu.Lock(); c.t = t; c.mu.Unlock() }
func (c *clock) Add(d time.Duration) { c.Set(c.Now().Add(d)) }

// waitFor calls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestLog_CompletedSince(t *testing.T) {
	l := oplog.New(oplogtest.NewMemory(), nil)
	defer l.Close()
	ctx := context.Background()
	ops := oplogtest.MustAppend(t, l, oplog.Record{Tool: "a"}, oplog.Record{Tool: "b"}, oplog.Record{Tool: "c"})
	start := l.CompletedSince(0)
	if start.Lost || len(start.IDs) != 0 || start.Next == 0 {
		t.Fatalf("position 0: %+v; want only the head", start)
	}
	for _, i := range []int{2, 0} {
		if _, err := l.Complete(ctx, ops[i].ID, oplog.Completion{}); err != nil {
			t.Fatal(err)
		}
	}
	c := l.CompletedSince(start.Next)
	if c.Lost || !slices.Equal(c.IDs, []uint64{ops[2].ID, ops[0].ID}) {
		t.Fatalf("after two completions: %+v; want [%d %d]", c, ops[2].ID, ops[0].ID)
	}
	if again := l.CompletedSince(c.Next); again.Lost || len(again.IDs) != 0 || again.Next != c.Next {
		t.Fatalf("from the head: %+v; want nothing", again)
	}
	if bad := l.CompletedSince(c.Next + 5); !bad.Lost {
		t.Fatalf("a position it never gave: %+v; want Lost", bad)
	}
	// More completions than the journal keeps: a reader that did not ask
	// meanwhile has lost track.
	recs := make([]oplog.Record, oplog.JournalSize+1)
	for i := range recs {
		recs[i] = oplog.Record{Tool: "t"}
	}
	oplogtest.MustAppend(t, l, recs...)
	for i := range recs {
		if _, err := l.Complete(ctx, recs[i].ID, oplog.Completion{}); err != nil {
			t.Fatal(err)
		}
	}
	if lost := l.CompletedSince(c.Next); !lost.Lost {
		t.Fatalf("%d completions later: %+v; want Lost", len(recs), lost.Next)
	}
}

// TestLog_ExpirePending_SettlesOldOperations: an operation pending for
// longer than MaxAge becomes timeout, stored before ExpirePending started
// (settled at start) or appended after; younger ones and skipped sources
// stay pending; a late completion gets ECONFLICT.
func TestLog_ExpirePending_SettlesOldOperations(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := &clock{t: t0}
	l := oplog.New(oplogtest.NewMemory(), &oplog.LogOptions{Now: clk.Now})
	defer l.Close()
	ctx := context.Background()
	before := oplogtest.MustAppend(t, l, oplog.Record{Tool: "old", StartTime: t0.Add(-25 * time.Hour)},
		oplog.Record{Tool: "gw", Source: "game", StartTime: t0.Add(-25 * time.Hour)},
		oplog.Record{Tool: "young", StartTime: t0.Add(-time.Hour)})
	if err := l.ExpirePending(ctx, &oplog.ExpireOptions{MaxAge: 24 * time.Hour, Interval: time.Millisecond,
		Skip: func(s string) bool { return s == "game" }}); err != nil {
		t.Fatal(err)
	}
	if err := l.ExpirePending(ctx, nil); err == nil {
		t.Fatal("a second ExpirePending did not fail")
	}
	status := func(id uint64) oplog.Status {
		r, err := l.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return r.Status
	}
	waitFor(t, "the old operation settled at start", func() bool { return status(before[0].ID) == oplog.StatusTimeout })
	r, _ := l.Get(ctx, before[0].ID)
	if !strings.Contains(r.Error, "24h0m0s") || !r.EndTime.Equal(t0) {
		t.Fatalf("settled operation: error %q, end %v; want the age limit named and the clock's time", r.Error, r.EndTime)
	}
	after := oplogtest.MustAppend(t, l, oplog.Record{Tool: "later", StartTime: t0})[0]
	waitFor(t, "the later operation tracked", func() bool { return l.Tracked() == 2 })
	if status(before[1].ID) != oplog.StatusPending || status(before[2].ID) != oplog.StatusPending || status(after.ID) != oplog.StatusPending {
		t.Fatal("a skipped or young operation was settled")
	}
	clk.Add(24*time.Hour + time.Second)
	waitFor(t, "both younger operations settled", func() bool {
		return status(before[2].ID) == oplog.StatusTimeout && status(after.ID) == oplog.StatusTimeout
	})
	if status(before[1].ID) != oplog.StatusPending {
		t.Fatal("the skipped source's operation was settled")
	}
	if _, err := l.Complete(ctx, after.ID, oplog.Completion{}); oplog.ErrorCode(err) != oplog.ECONFLICT {
		t.Fatalf("completing a settled operation: %v; want ECONFLICT", err)
	}
	if n := l.Tracked(); n != 0 {
		t.Fatalf("%d operations still tracked; want 0", n)
	}
}
