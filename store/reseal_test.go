package store_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// layout returns db's layout, failing the test on an error.
func layout(t *testing.T, db *store.DB) store.Layout {
	t.Helper()
	l, err := db.Layout()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestReseal_UpgradeFromSchema9: a store written by the build before blocks
// kept their texts as words (testdata/schema9.db.gz: blockRecords(6000, 7),
// 3,000 or so of them in one block by column, the pending operation among
// them) opens, reads the same, and the sealer rewrites the old block with
// its texts as words in the background, untouched by any write: the
// records read the same, the counters hold (Check), the block takes fewer
// bytes, and a restart finds nothing left to rewrite.
func TestReseal_UpgradeFromSchema9(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	gunzip(t, "testdata/schema9.db.gz", path)
	if n := blockFormats(t, path); n[codec.BlockZstdCols] != 1 || len(n) != 1 {
		t.Fatalf("the old store holds blocks %v; want one by column, its texts whole", n)
	}
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before := readAll(t, db)
	want := blockRecords(6000, 7)
	if len(before) != len(want) {
		t.Fatalf("the old store reads %d records; want %d", len(before), len(want))
	}
	for i := range want {
		if before[i].Text != want[i].Text || before[i].Stack != want[i].Stack || !before[i].Time.Equal(want[i].Time) {
			t.Fatalf("record %d reads %+v; want %+v", i, before[i], want[i])
		}
	}
	if op := before[2000]; op.Status != oplog.StatusPending {
		t.Fatalf("record 2000 is %+v; want the pending operation", op)
	}
	var l store.Layout
	waitFor(t, func() bool { l = layout(t, db); return l.OutdatedBlocks == 0 })
	if l.Blocks != 1 || l.SealedRecords < 3000 {
		t.Fatalf("layout %+v; want the one block, rewritten", l)
	}
	if after := readAll(t, db); !reflect.DeepEqual(after, before) {
		t.Fatalf("rewritten, the records read differently: %s", firstDiff(after, before))
	}
	logtest.MustCheck(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n := blockFormats(t, path); n[codec.BlockZstdWords] != 1 || len(n) != 1 {
		t.Fatalf("blocks by format %v; want the one with its texts as words", n)
	}
	db = logtest.MustOpenDBAt(t, path, nil)
	if l := layout(t, db); l.OutdatedBlocks != 0 {
		t.Fatalf("reopened: %d blocks to rewrite; want none", l.OutdatedBlocks)
	}
	if again := readAll(t, db); !reflect.DeepEqual(again, before) {
		t.Fatalf("reopened, the records read differently: %s", firstDiff(again, before))
	}
}

// TestReseal_AfterABurst: records that came faster than the sealer's
// quiet are sealed with S2 whenever maxLoose bytes are loose; once the
// appends stop, the sealer rewrites those blocks with zstd, their texts
// as words, with nothing else written: every record reads the same, the
// counters hold, and the blocks take fewer bytes.
func TestReseal_AfterABurst(t *testing.T) {
	t.Cleanup(store.SetMaxLoose(512 << 10))
	db := logtest.MustOpenDB(t, nil)
	log := oplog.New(db, nil)
	sawS2 := false
	for i := 0; i < 40_000; i += 500 {
		if err := log.Append(t.Context(), logtest.Lines(500, "burst")); err != nil {
			t.Fatal(err)
		}
		sawS2 = sawS2 || layout(t, db).OutdatedBlocks > 0
	}
	before := readAll(t, db)
	if len(before) != 40_000 {
		t.Fatalf("%d records; want 40000", len(before))
	}
	if !sawS2 {
		t.Skip("the appends never came fast enough for the sealer to seal with S2 (a loaded machine)")
	}
	var l store.Layout
	waitFor(t, func() bool { l = layout(t, db); return l.OutdatedBlocks == 0 && l.LooseBytes < codec.BlockTarget })
	if after := readAll(t, db); !reflect.DeepEqual(after, before) {
		t.Fatalf("rewritten, the records read differently: %s", firstDiff(after, before))
	}
	logtest.MustCheck(t, db)
	t.Logf("after the burst: %+v", l)
}
