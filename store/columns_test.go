package store_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// blockFormats counts the blocks of the bbolt file at path by format.
func blockFormats(t *testing.T, path string) map[byte]int {
	t.Helper()
	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	n := map[byte]int{}
	err = bdb.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(codec.BlocksBucket).ForEach(func(_, v []byte) error {
			n[v[0]]++
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBlocks_UpgradeFromSchema8: a store written by the build before blocks
// kept by column (testdata/schema8.db.gz: blockRecords(3000, 5), 1,942 of
// them in one zstd block, the pending operation among them) opens, reads
// the same, rewrites the old block by column when the operation completes,
// and seals new records by column, their texts as words.
func TestBlocks_UpgradeFromSchema8(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	gunzip(t, "testdata/schema8.db.gz", path)
	if n := blockFormats(t, path); n[codec.BlockZstd] == 0 {
		t.Fatalf("the old store holds blocks %v; want one in zstd whole", n)
	}
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before := readAll(t, db)
	want := blockRecords(3000, 5)
	if len(before) != len(want) {
		t.Fatalf("the old store reads %d records; want %d", len(before), len(want))
	}
	for i := range want {
		if before[i].Text != want[i].Text || before[i].Stack != want[i].Stack || !before[i].Time.Equal(want[i].Time) {
			t.Fatalf("record %d reads %+v; want %+v", i, before[i], want[i])
		}
	}
	op := before[1000]
	if op.Status != oplog.StatusPending {
		t.Fatalf("record 1000 is %+v; want the pending operation", op)
	}
	if _, err := db.Complete(context.Background(), op.ID, oplog.Completion{Status: oplog.StatusSuccess}); err != nil {
		t.Fatal(err)
	}
	more := blockRecords(3000, 6)
	for i := 0; i < len(more); i += 100 {
		if err := db.Append(t.Context(), more[i:i+100]); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool {
		l, err := db.Layout()
		return err == nil && l.SealedRecords >= 4000 && l.LooseBytes < codec.BlockTarget
	})
	after := readAll(t, db)
	before[1000].Status = oplog.StatusSuccess
	got, err := db.Get(op.ID)
	if err != nil || got.Status != oplog.StatusSuccess {
		t.Fatalf("the completed operation reads %+v, %v", got, err)
	}
	before[1000].EndTime = got.EndTime
	if !reflect.DeepEqual(after[:3000], before) {
		t.Fatalf("the old records read differently: %s", firstDiff(after[:3000], before))
	}
	for i := range more {
		if after[3000+i].Text != more[i].Text {
			t.Fatalf("new record %d reads %q; want %q", i, after[3000+i].Text, more[i].Text)
		}
	}
	logtest.MustCheck(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n := blockFormats(t, path); n[codec.BlockZstd] != 0 || n[codec.BlockZstdCols] != 0 || n[codec.BlockZstdWords] == 0 {
		t.Errorf("blocks by format %v; want all by column with their texts as words (the old one rewritten)", n)
	}
	db = logtest.MustOpenDBAt(t, path, nil)
	if again := readAll(t, db); !reflect.DeepEqual(again, after) {
		t.Fatalf("reopened, the records read differently: %s", firstDiff(again, after))
	}
}
