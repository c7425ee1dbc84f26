package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/oplog"
)

// The names cache (nameCache) is trusted only by the write transaction
// right after the one that filled it: a transaction that flushed a tally
// and rolled back, or a clear, must not leave its counts behind.
func TestNameCache_RollbackAndClear(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "log.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	line := func(n int) []oplog.Record {
		recs := make([]oplog.Record, n)
		for i := range recs {
			recs[i] = oplog.Record{Source: "game", Name: "Physics", Kind: oplog.KindLine, Level: oplog.LevelInfo, Text: "x", Time: time.Now()}
		}
		return recs
	}
	count := func() uint64 {
		t.Helper()
		names, err := d.Names("game")
		if err != nil || len(names) != 1 {
			t.Fatalf("Names: %v, %+v", err, names)
		}
		return names[0].Counts[oplog.KindLine][oplog.LevelInfo]
	}
	if err := d.Append(ctx, line(3)); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("the transaction fails after the flush")
	err = d.update(func(tx *bbolt.Tx, _ *oplog.Stats) error {
		names := nameTally{}
		names.add("game", "Physics", oplog.KindLine, oplog.LevelInfo, 1, +100)
		if err := names.flush(tx, d.txID(tx), &d.names); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("update: %v", err)
	}
	if err := d.Append(ctx, line(1)); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != 4 {
		t.Fatalf("after a rolled-back flush and one more line: %d info lines of Physics, want 4", got)
	}
	if _, err := d.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if err := d.Append(ctx, line(2)); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != 2 {
		t.Fatalf("after a clear and two lines: %d info lines of Physics, want 2", got)
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
}
