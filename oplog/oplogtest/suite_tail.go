package oplogtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// testTailPagingWhileWriting pages through 10,000 lines with sinceId
// while writers keep appending and checks each line arrives exactly once, in order.
func testTailPagingWhileWriting(t *testing.T, open Opener) {
	l := newLog(t, open)
	const writers, perWriter, batch = 4, 2500, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i += batch {
				recs := make([]oplog.Record, batch)
				for j := range recs {
					recs[j] = oplog.Record{Level: oplog.LevelInfo, Source: fmt.Sprint("w", w), Text: fmt.Sprint(i + j)}
				}
				if err := l.Append(context.Background(), recs); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	next := make([]int, writers) // the next text expected from each writer
	var since, lastSeen uint64
	total := 0
	deadline := time.Now().Add(30 * time.Second)
	for total < writers*perWriter {
		if time.Now().After(deadline) {
			t.Fatalf("read only %d of %d lines", total, writers*perWriter)
		}
		tail, err := l.Tail(context.Background(), oplog.TailQuery{Filter: oplog.Filter{Kind: oplog.KindLine}, SinceID: since, HasSince: true, Limit: 137, Wait: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if tail.Reset || tail.Dropped != 0 {
			t.Fatalf("unexpected reset/dropped: %+v", tail)
		}
		for _, r := range tail.Lines {
			if r.ID <= lastSeen {
				t.Fatalf("line %d after %d: duplicate or out of order", r.ID, lastSeen)
			}
			lastSeen = r.ID
			var w int
			fmt.Sscanf(r.Source, "w%d", &w)
			if r.Text != fmt.Sprint(next[w]) {
				t.Fatalf("writer %d: got line %q, want %d (a line was missed)", w, r.Text, next[w])
			}
			next[w]++
			total++
		}
		if tail.LastID < since {
			t.Fatalf("lastId went back from %d to %d", since, tail.LastID)
		}
		since = tail.LastID
	}
	wg.Wait()
	tail, err := l.Tail(context.Background(), oplog.TailQuery{SinceID: since, HasSince: true})
	if err != nil || len(tail.Lines) != 0 || tail.More {
		t.Fatalf("after reading everything: %+v, %v", tail, err)
	}
}

func testTailNewest(t *testing.T, open Opener) {
	l := newLog(t, open)
	MustAppend(t, l, Lines(50, "a")...)
	MustAppend(t, l, oplog.Record{Tool: "ping"})
	tail, err := l.Tail(context.Background(), oplog.TailQuery{Filter: oplog.Filter{Kind: oplog.KindLine}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(tail.Lines) != 10 || tail.Lines[0].Text != "a-40" || tail.Lines[9].Text != "a-49" {
		t.Fatalf("newest 10 lines: %v", texts(tail.Lines))
	}
	if tail.LastID != l.Stats().LastID || tail.Revision != l.Stats().Revision || tail.Reset || tail.More {
		t.Fatalf("tail %+v; want lastId %d", tail, l.Stats().LastID)
	}
}

func testTailMoreAndLastIDWithFilter(t *testing.T, open Opener) {
	l := newLog(t, open)
	recs := Lines(30, "x")
	for i := range recs {
		if i%3 == 0 {
			recs[i].Level = oplog.LevelError
		}
	}
	MustAppend(t, l, recs...)
	MustAppend(t, l, Lines(5, "tail")...) // no errors among the newest
	q := oplog.TailQuery{Filter: oplog.Filter{MinLevel: oplog.LevelError}, HasSince: true, Limit: 4}
	var got []string
	for range 10 {
		tail, err := l.Tail(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, texts(tail.Lines)...)
		q.SinceID = tail.LastID
		if !tail.More {
			if tail.LastID != 35 {
				t.Fatalf("final lastId %d; want 35: the filter's skipped lines count as read", tail.LastID)
			}
			break
		}
	}
	if len(got) != 10 || got[0] != "x-0" || got[9] != "x-27" {
		t.Fatalf("errors read: %v", got)
	}
}

func testTailReset(t *testing.T, open Opener) {
	l := newLog(t, open)
	MustAppend(t, l, Lines(5, "a")...)
	t.Run("PastNewest", func(t *testing.T) {
		tail, err := l.Tail(context.Background(), oplog.TailQuery{SinceID: 1000, HasSince: true})
		if err != nil || !tail.Reset || len(tail.Lines) != 5 || tail.LastID != 5 {
			t.Fatalf("tail past newest: %+v, %v; want reset with every line", tail, err)
		}
	})
	t.Run("OtherRevision", func(t *testing.T) {
		tail, err := l.Tail(context.Background(), oplog.TailQuery{SinceID: 3, HasSince: true, Revision: l.Stats().Revision + 2})
		if err != nil || !tail.Reset || len(tail.Lines) != 5 {
			t.Fatalf("tail of another generation: %+v, %v; want reset", tail, err)
		}
	})
	t.Run("SameRevision", func(t *testing.T) {
		tail, err := l.Tail(context.Background(), oplog.TailQuery{SinceID: 3, HasSince: true, Revision: l.Stats().Revision})
		if err != nil || tail.Reset || len(tail.Lines) != 2 {
			t.Fatalf("tail: %+v, %v", tail, err)
		}
	})
}

func testTailWaitReturnsWhenLineArrives(t *testing.T, open Opener) {
	l := newLog(t, open)
	MustAppend(t, l, Lines(3, "old")...)
	type result struct {
		tail oplog.Tail
		err  error
	}
	done := make(chan result, 1)
	waiting := l.Changed()
	go func() {
		tail, err := l.Tail(context.Background(), oplog.TailQuery{SinceID: 3, HasSince: true, Wait: 20 * time.Second})
		done <- result{tail, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("tail returned before any new line: %+v", r)
	case <-time.After(50 * time.Millisecond):
	}
	start := time.Now()
	MustAppend(t, l, Lines(1, "new")...)
	<-waiting
	select {
	case r := <-done:
		if r.err != nil || len(r.tail.Lines) != 1 || r.tail.Lines[0].Text != "new-0" {
			t.Fatalf("woken tail: %+v, %v", r.tail, r.err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("tail woke %s after the append", d)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("waiting tail did not return after a line arrived")
	}
}

func testTailWaitEnds(t *testing.T, open Opener) {
	l := newLog(t, open)
	t.Run("Deadline", func(t *testing.T) {
		tail, err := l.Tail(context.Background(), oplog.TailQuery{HasSince: true, Wait: 30 * time.Millisecond})
		if err != nil || len(tail.Lines) != 0 {
			t.Fatalf("tail after its wait: %+v, %v; want an empty answer", tail, err)
		}
	})
	t.Run("Cancel", func(t *testing.T) {
		c, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := l.Tail(c, oplog.TailQuery{HasSince: true, Wait: time.Minute})
			done <- err
		}()
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled tail: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("cancelled tail kept waiting")
		}
	})
}

func testTailFilterSkipsWhileWaiting(t *testing.T, open Opener) {
	l := newLog(t, open)
	done := make(chan oplog.Tail, 1)
	go func() {
		tail, err := l.Tail(context.Background(), oplog.TailQuery{Filter: oplog.Filter{Name: "physics"}, HasSince: true, Wait: 20 * time.Second})
		if err != nil {
			t.Error(err)
		}
		done <- tail
	}()
	MustAppend(t, l, Lines(3, "noise")...)
	MustAppend(t, l, oplog.Record{Level: oplog.LevelWarn, Name: "physics", Text: "tunnelling"})
	select {
	case tail := <-done:
		if len(tail.Lines) != 1 || tail.Lines[0].Text != "tunnelling" || tail.LastID != 4 {
			t.Fatalf("filtered waiting tail: %+v", tail)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("filtered waiting tail did not return")
	}
}
