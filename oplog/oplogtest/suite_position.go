package oplogtest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
)

// position reads key and fails the test on error.
func position(t *testing.T, l *oplog.Log, key string) []byte {
	t.Helper()
	v, err := l.Position(context.Background(), key)
	if err != nil {
		t.Fatalf("Position(%q): %v", key, err)
	}
	return v
}

func mustAppendAt(t *testing.T, l *oplog.Log, recs []oplog.Record, key, value string) {
	t.Helper()
	if err := l.AppendAt(context.Background(), recs, oplog.Position{Key: key, Value: []byte(value)}); err != nil {
		t.Fatalf("AppendAt(%q, %q): %v", key, value, err)
	}
}

// testPositionReadBack: the value of the last acknowledged AppendAt of a
// key is the one read back, each key on its own, whatever the source of
// the records; an empty value is stored (not "none").
func testPositionReadBack(t *testing.T, open Opener) {
	l := newLog(t, open)
	if v := position(t, l, "f"); v != nil {
		t.Fatalf("position of a new store: %q, want nil", v)
	}
	mustAppendAt(t, l, Lines(3, "a"), "f", "1")
	mustAppendAt(t, l, Lines(2, "b"), "g", "x")
	MustAppend(t, l, Lines(5, "plain")...) // Append leaves positions alone
	mustAppendAt(t, l, Lines(1, "c"), "f", "2")
	if v := position(t, l, "f"); string(v) != "2" {
		t.Fatalf("position f = %q, want the last one, 2", v)
	}
	if v := position(t, l, "g"); string(v) != "x" {
		t.Fatalf("position g = %q, want x", v)
	}
	mustAppendAt(t, l, Lines(1, "d"), "g", "")
	if v := position(t, l, "g"); v == nil || len(v) != 0 {
		t.Fatalf("position g = %#v, want empty, not nil", v)
	}
	if n := l.Stats().Records; n != 12 {
		t.Fatalf("%d records, want 12: a position is not a record", n)
	}
	// The value read back is a copy, and so is the one stored.
	val := []byte("mine")
	if err := l.AppendAt(context.Background(), Lines(1, "e"), oplog.Position{Key: "h", Value: val}); err != nil {
		t.Fatal(err)
	}
	val[0] = 'X'
	v := position(t, l, "h")
	v[0] = 'Y'
	if v := position(t, l, "h"); string(v) != "mine" {
		t.Fatalf("position h = %q after the caller changed its slices, want mine", v)
	}
}

// testPositionFailedAppend: an append that fails writes no position, and a
// position alone (no records) is not written either.
func testPositionFailedAppend(t *testing.T, open Opener) {
	l := newLog(t, open)
	mustAppendAt(t, l, Lines(2, "ok"), "f", "good")
	bad := Lines(3, "bad")
	bad[2].Level = 0
	err := l.AppendAt(context.Background(), bad, oplog.Position{Key: "f", Value: []byte("bad")})
	if be, ok := oplog.IsBatchError(err); !ok || be.Index != 2 {
		t.Fatalf("AppendAt of a bad batch: %v; want a batch error at 2", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.AppendAt(ctx, Lines(1, "late"), oplog.Position{Key: "f", Value: []byte("cancelled")}); err == nil {
		t.Fatal("AppendAt with a cancelled context: nil error")
	}
	if err := l.AppendAt(context.Background(), nil, oplog.Position{Key: "f", Value: []byte("alone")}); err != nil {
		t.Fatalf("AppendAt without records: %v", err)
	}
	for _, p := range []oplog.Position{
		{Key: "", Value: []byte("x")},
		{Key: strings.Repeat("k", oplog.MaxPositionKeyBytes+1)},
		{Key: "f", Value: bytes.Repeat([]byte("v"), oplog.MaxPositionBytes+1)},
	} {
		err := l.AppendAt(context.Background(), Lines(1, "refused"), p)
		if oplog.ErrorCode(err) != oplog.EINVALID {
			t.Fatalf("AppendAt with a %d-byte key and a %d-byte value: %v; want EINVALID", len(p.Key), len(p.Value), err)
		}
	}
	if v := position(t, l, "f"); string(v) != "good" {
		t.Fatalf("position = %q, want the last acknowledged one, good", v)
	}
	if n := l.Stats().Records; n != 2 {
		t.Fatalf("%d records, want the 2 acknowledged", n)
	}
}

// testPositionClearKeeps: Clear (a new generation) keeps positions, so a
// follower of a cleared log goes on from where it was rather than storing
// its whole file again.
func testPositionClearKeeps(t *testing.T, open Opener) {
	l := newLog(t, open)
	mustAppendAt(t, l, Lines(4, "a"), "f", "40")
	if _, err := l.Clear(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v := position(t, l, "f"); string(v) != "40" {
		t.Fatalf("position after Clear = %q, want 40", v)
	}
}

// testPositionConcurrent: writers whose appends share group commits each
// end with the position of their own last append, and that append's
// records are stored.
func testPositionConcurrent(t *testing.T, open Opener) {
	l := newLog(t, open)
	const writers, each = 16, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				recs := Lines(1+i%3, fmt.Sprintf("w%d-%d", w, i))
				err := l.AppendAt(context.Background(), recs, oplog.Position{Key: fmt.Sprint("w", w), Value: fmt.Append(nil, i)})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for w := range writers {
		if v := position(t, l, fmt.Sprint("w", w)); string(v) != fmt.Sprint(each-1) {
			t.Fatalf("writer %d: position %q, want %d", w, v, each-1)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Position(context.Background(), "w0"); err != oplog.ErrClosed {
		t.Fatalf("Position after Close: %v, want ErrClosed", err)
	}
	if err := l.AppendAt(context.Background(), Lines(1, "x"), oplog.Position{Key: "w0"}); err != oplog.ErrClosed {
		t.Fatalf("AppendAt after Close: %v, want ErrClosed", err)
	}
}
