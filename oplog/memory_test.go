package oplog_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

func openMemory(t *testing.T) oplog.Store { return oplogtest.NewMemory() }

// TestLog_Memory runs the Store conformance suite, and with it the Log's
// behaviour, over the in-memory reference store.
func TestLog_Memory(t *testing.T) { oplogtest.TestStore(t, openMemory) }

// TestLog_Tail_Dropped trims records behind a reader's back and checks that
// the Log's tail counts them as dropped, also across a wait.
func TestLog_Tail_Dropped(t *testing.T) {
	m := oplogtest.NewMemory()
	l := oplog.New(m, nil)
	defer l.Close()
	ctx := context.Background()
	oplogtest.MustAppend(t, l, oplogtest.Lines(10, "d")...)
	m.Trim(6)
	tail, err := l.Tail(ctx, oplog.TailQuery{SinceID: 2, HasSince: true})
	if err != nil || tail.Dropped != 4 || len(tail.Lines) != 4 || tail.Lines[0].ID != 7 || tail.Reset {
		t.Fatalf("tail from 2 after trimming 6: %+v, %v; want 4 dropped and records 7 to 10", tail, err)
	}
	if _, err := l.Get(ctx, 3); oplog.ErrorCode(err) != oplog.ENOTFOUND {
		t.Fatalf("get a trimmed record: %v", err)
	}
	tail, err = l.Tail(ctx, oplog.TailQuery{SinceID: 10, HasSince: true, Wait: 10 * time.Millisecond})
	if err != nil || tail.Dropped != 0 || len(tail.Lines) != 0 || tail.LastID != 10 {
		t.Fatalf("tail past the trimmed records: %+v, %v", tail, err)
	}
}
