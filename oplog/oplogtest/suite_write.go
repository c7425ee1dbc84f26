package oplogtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

func testAppendConcurrent(t *testing.T, open Opener) {
	l := newLog(t, open)
	const writers, each = 16, 50
	ids := make(chan uint64, writers*each*2)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				batch := Lines(1+i%3, fmt.Sprintf("w%d-%d", w, i))
				if err := l.Append(context.Background(), batch); err != nil {
					t.Error(err)
					return
				}
				for j := 1; j < len(batch); j++ {
					if batch[j].ID != batch[j-1].ID+1 {
						t.Errorf("batch IDs not consecutive: %d then %d", batch[j-1].ID, batch[j].ID)
					}
				}
				for _, r := range batch {
					ids <- r.ID
				}
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[uint64]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("ID %d assigned twice", id)
		}
		seen[id] = true
	}
	s := l.Stats()
	if uint64(len(seen)) != s.Records || s.LastID != s.Records || s.FirstID != 1 {
		t.Fatalf("stats %+v after %d records", s, len(seen))
	}
	for id := uint64(1); id <= s.LastID; id++ {
		if !seen[id] {
			t.Fatalf("ID %d missing: IDs are not dense", id)
		}
	}
}

func testAppendBadBatch(t *testing.T, open Opener) {
	l := newLog(t, open)
	batch := Lines(5, "x")
	batch[3].Level = 0
	err := l.Append(context.Background(), batch)
	be, ok := oplog.IsBatchError(err)
	if !ok || be.Index != 3 || oplog.ErrorCode(err) != oplog.EINVALID || !containsAll(err.Error(), "record 3", "level") {
		t.Fatalf("err = %v; want a batch error at index 3 naming level", err)
	}
	if n := l.Stats().Records; n != 0 {
		t.Fatalf("%d records written from a rejected batch", n)
	}
	for _, bad := range []oplog.Record{
		{Level: oplog.LevelInfo, Data: json.RawMessage(`[1]`)},
		{Level: oplog.LevelInfo, Data: json.RawMessage(`{bad`)},
		{Level: oplog.LevelInfo, Status: oplog.StatusSuccess},
		{Level: oplog.LevelInfo, Source: "a\nb"},
		{Level: oplog.LevelInfo, Time: time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Kind: oplog.KindOp},
	} {
		if err := l.Append(context.Background(), []oplog.Record{bad}); oplog.ErrorCode(err) != oplog.EINVALID {
			t.Errorf("Append(%+v) = %v; want EINVALID", bad, err)
		}
	}
}

func testComplete(t *testing.T, open Opener) {
	l := newLog(t, open)
	op := MustAppend(t, l, oplog.Record{Tool: "execute_code", Arguments: json.RawMessage(`{"code":"x"}`), Source: "unity"})[0]
	if op.Status != oplog.StatusPending || op.Name != "execute_code" || op.Text == "" || op.StartTime.IsZero() {
		t.Fatalf("started op %+v", op)
	}
	t.Run("OK", func(t *testing.T) {
		r, err := l.Complete(context.Background(), op.ID, oplog.Completion{Error: "boom"})
		if err != nil || r.Status != oplog.StatusError || r.Level != oplog.LevelError || r.Error != "boom" || r.EndTime.IsZero() {
			t.Fatalf("complete = %+v, %v", r, err)
		}
		got, _ := l.Get(context.Background(), op.ID)
		if !got.IsComplete() || got.Error != "boom" {
			t.Fatalf("stored %+v", got)
		}
		if n := l.Stats().Counts[oplog.KindOp][oplog.LevelError]; n != 1 {
			t.Fatalf("error ops counted %d, want 1", n)
		}
	})
	t.Run("ErrConflict", func(t *testing.T) {
		_, err := l.Complete(context.Background(), op.ID, oplog.Completion{})
		if oplog.ErrorCode(err) != oplog.ECONFLICT {
			t.Fatalf("second complete: %v; want ECONFLICT", err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := l.Complete(context.Background(), 999, oplog.Completion{})
		if oplog.ErrorCode(err) != oplog.ENOTFOUND {
			t.Fatalf("complete unknown: %v; want ENOTFOUND", err)
		}
	})
	t.Run("ErrInvalidLine", func(t *testing.T) {
		line := MustAppend(t, l, Lines(1, "l")...)[0]
		_, err := l.Complete(context.Background(), line.ID, oplog.Completion{})
		if oplog.ErrorCode(err) != oplog.EINVALID {
			t.Fatalf("complete a line: %v; want EINVALID", err)
		}
	})
	t.Run("OneShot", func(t *testing.T) {
		end := time.Now().UTC()
		r := MustAppend(t, l, oplog.Record{Tool: "query", Status: oplog.StatusTimeout, StartTime: end.Add(-time.Second), EndTime: end})[0]
		got, _ := l.Get(context.Background(), r.ID)
		if got.Status != oplog.StatusTimeout || !got.IsComplete() || got.Level != oplog.LevelError || !got.EndTime.Equal(end) {
			t.Fatalf("one-shot op stored as %+v", got)
		}
	})
}

func testAwaitComplete(t *testing.T, open Opener) {
	l := newLog(t, open)
	op := MustAppend(t, l, oplog.Record{Tool: "execute_code"})[0]
	done := make(chan oplog.Record, 1)
	go func() {
		r, err := l.AwaitComplete(context.Background(), op.ID)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	MustAppend(t, l, Lines(2, "noise")...) // wakes the waiter, which must keep waiting
	if _, err := l.Complete(context.Background(), op.ID, oplog.Completion{Result: []byte(`"Done"`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if !r.IsComplete() || string(r.Result) != `"Done"` {
			t.Fatalf("awaited %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("AwaitComplete did not return after the completion")
	}
	c, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	pending := MustAppend(t, l, oplog.Record{Tool: "query"})[0]
	r, err := l.AwaitComplete(c, pending.ID)
	if !errors.Is(err, context.DeadlineExceeded) || r.ID != pending.ID || r.IsComplete() {
		t.Fatalf("AwaitComplete past its deadline: %+v, %v", r, err)
	}
}

func testWait(t *testing.T, open Opener) {
	l := newLog(t, open)
	MustAppend(t, l, Lines(2, "w")...)
	t.Run("AlreadyThere", func(t *testing.T) {
		if err := l.Wait(context.Background(), 1); err != nil {
			t.Fatalf("Wait(1) with record 2 stored: %v", err)
		}
	})
	t.Run("Arrives", func(t *testing.T) {
		done := make(chan error, 1)
		go func() { done <- l.Wait(context.Background(), 2) }()
		select {
		case err := <-done:
			t.Fatalf("Wait(2) returned %v before record 3 existed", err)
		case <-time.After(20 * time.Millisecond):
		}
		MustAppend(t, l, Lines(1, "x")...)
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Wait(2) after record 3: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Wait(2) did not return after record 3 arrived")
		}
	})
	t.Run("Deadline", func(t *testing.T) {
		c, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if err := l.Wait(c, 100); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait past its deadline: %v", err)
		}
	})
	t.Run("Closed", func(t *testing.T) {
		done := make(chan error, 1)
		go func() { done <- l.Wait(context.Background(), 100) }()
		l.Close()
		select {
		case err := <-done:
			if !errors.Is(err, oplog.ErrClosed) {
				t.Fatalf("Wait across Close: %v; want ErrClosed", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Wait did not end at Close")
		}
	})
}
