package store_test

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// blockRecords is n records of varied sizes (some with stacks large enough
// to be stored S2-compressed when loose), one of them a pending operation.
func blockRecords(n int, seed uint64) []oplog.Record {
	rng := rand.New(rand.NewPCG(seed, 1))
	base := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	recs := make([]oplog.Record, n)
	for i := range recs {
		r := &recs[i]
		r.Time = base.Add(time.Duration(i) * time.Millisecond)
		r.Level, r.Source, r.Name = oplog.Level(rng.IntN(4)+1), fmt.Sprint("src", rng.IntN(3)), fmt.Sprint("name", rng.IntN(7))
		r.Text = fmt.Sprintf("line %d: player %d moved to %d,%d", i, rng.IntN(50), rng.IntN(1000), rng.IntN(1000))
		if rng.IntN(10) == 0 {
			r.Stack = strings.Repeat(fmt.Sprintf("  at Game.Update%d () in Game.cs:%d\n", rng.IntN(9), rng.IntN(500)), 20)
		}
	}
	recs[n/3] = oplog.Record{Kind: oplog.KindOp, Level: oplog.LevelInfo, Source: "src0", Name: "mcp", Tool: "run_script",
		Status: oplog.StatusPending, Text: "print(1)", Time: base}
	return recs
}

// readAll reads every record of db forward through Tail.
func readAll(t *testing.T, db *store.DB) []oplog.Record {
	t.Helper()
	tail, err := db.Tail(oplog.TailQuery{HasSince: true, Limit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	return tail.Lines
}

// TestBlocks_ReadLikeLooseRecords: once most records are sealed into
// blocks, every read answers as it did from loose records: Get, GetMany,
// Tail both ways, List pages, Neighbors; a pending operation in a block
// completes; the counters agree (Check at cleanup) and all of it holds
// after a reopen.
func TestBlocks_ReadLikeLooseRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(t, path, nil)
	want := blockRecords(12000, 1)
	for i := 0; i < len(want); i += 500 {
		if err := db.Append(t.Context(), want[i:i+500]); err != nil {
			t.Fatal(err)
		}
	}
	// Sealed in the background, once a block's worth is loose.
	waitFor(t, func() bool {
		l, err := db.Layout()
		if err != nil || l.SealedRecords+l.LooseRecords != uint64(len(want)) {
			t.Fatalf("layout %+v (%v): want %d records", l, err, len(want))
		}
		return l.Blocks >= 2 && l.LooseBytes < codec.BlockTarget
	})
	check := func(t *testing.T, db *store.DB, want []oplog.Record) {
		if got := readAll(t, db); !reflect.DeepEqual(got, want) {
			t.Fatalf("tail forward: %d records, want %d (first differing: %v)", len(got), len(want), firstDiff(got, want))
		}
		newest, err := db.Tail(oplog.TailQuery{Limit: 300})
		if err != nil || !reflect.DeepEqual(newest.Lines, want[len(want)-300:]) {
			t.Fatalf("tail newest 300: %v, %d records", err, len(newest.Lines))
		}
		ids := []uint64{want[5].ID, want[len(want)-1].ID, 999_999, want[2500].ID, want[0].ID}
		many, err := db.GetMany(ids)
		if err != nil || !reflect.DeepEqual(many, []oplog.Record{want[5], want[len(want)-1], want[2500], want[0]}) {
			t.Fatalf("GetMany: %v, %d records", err, len(many))
		}
		var listed []oplog.Record
		for before := uint64(0); ; {
			p, err := db.List(oplog.Query{Before: before, Count: 700})
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, p.Records...)
			if !p.More {
				break
			}
			before = p.Records[len(p.Records)-1].ID
		}
		slices.Reverse(listed)
		if !reflect.DeepEqual(listed, want) {
			t.Fatalf("List pages: %d records, want %d (first differing: %v)", len(listed), len(want), firstDiff(listed, want))
		}
		for _, i := range []int{0, 1, 1234, len(want) - 1} {
			prev, next, err := db.Neighbors(want[i].ID)
			wp, wn := uint64(0), uint64(0)
			if i > 0 {
				wp = want[i-1].ID
			}
			if i < len(want)-1 {
				wn = want[i+1].ID
			}
			if err != nil || prev != wp || next != wn {
				t.Fatalf("Neighbors(%d) = %d, %d, %v; want %d, %d", want[i].ID, prev, next, err, wp, wn)
			}
		}
	}
	check(t, db, want)
	op := &want[len(want)/3]
	done, err := db.Complete(t.Context(), op.ID, oplog.Completion{Status: oplog.StatusSuccess, EndTime: op.Time.Add(time.Second)})
	if err != nil || done.Status != oplog.StatusSuccess {
		t.Fatalf("complete the sealed operation %d: %+v, %v", op.ID, done, err)
	}
	if got, err := db.Get(op.ID); err != nil || got.Status != oplog.StatusSuccess || !got.EndTime.Equal(op.Time.Add(time.Second)) {
		t.Fatalf("the completed operation reads %+v, %v", got, err)
	}
	*op = done
	logtest.MustCheck(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	check(t, logtest.MustOpenDBAt(t, path, nil), want)
}

func firstDiff(got, want []oplog.Record) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("#%d: %+v, want %+v", i, got[i], want[i])
		}
	}
	return "none in the common part"
}

// TestBlocks_RetentionTrimsIntoABlock: retention by record count removes
// exactly the oldest records, also when the cut falls inside a block; by
// bytes, it counts what the blocks take on disk.
func TestBlocks_RetentionTrimsIntoABlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(t, path, nil)
	want := blockRecords(6000, 2)
	if err := db.Append(t.Context(), want); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { l, err := db.Layout(); return err == nil && l.LooseBytes < codec.BlockTarget })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = logtest.MustOpenDBAt(t, path, &store.Options{MaxRecords: 3333, RetentionInterval: time.Millisecond})
	waitFor(t, func() bool { return db.Stats().Records == 3333 })
	got := readAll(t, db)
	if len(got) != 3333 || got[0].ID != want[len(want)-3333].ID {
		t.Fatalf("after retention: %d records from #%d; want 3333 from #%d", len(got), got[0].ID, want[len(want)-3333].ID)
	}
	if s := db.Stats(); s.FirstID != got[0].ID {
		t.Fatalf("stats first ID %d, want %d", s.FirstID, got[0].ID)
	}
	l, err := db.Layout()
	if err != nil || l.Blocks == 0 || db.Stats().Bytes != l.LooseBytes+l.BlockBytes {
		t.Fatalf("layout %+v (%v), stats bytes %d: want blocks, and bytes as stored", l, err, db.Stats().Bytes)
	}
}

// waitFor waits up to a minute for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBlocks_UpgradeFromSchema7: a store written by the build before blocks
// (testdata/schema7.db.gz: 1,801 records in three runs, a pending
// operation last) opens, reads the same, seals its old records as new ones
// come, and completes the pending operation.
func TestBlocks_UpgradeFromSchema7(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	gunzip(t, "testdata/schema7.db.gz", path)
	db := logtest.MustOpenDBAt(t, path, nil)
	before := readAll(t, db)
	if len(before) != 1801 || before[len(before)-1].Status != oplog.StatusPending {
		t.Fatalf("the old store reads %d records; want 1,801, the last pending", len(before))
	}
	// Sealed in the background, without an append.
	waitFor(t, func() bool {
		l, err := db.Layout()
		return err == nil && l.LooseBytes < codec.BlockTarget && l.Blocks > 0
	})
	if got := readAll(t, db); !reflect.DeepEqual(got, before) {
		t.Fatalf("sealed, the old records read differently: %s", firstDiff(got, before))
	}
	more := blockRecords(3000, 3)
	for i := 0; i < len(more); i += 100 {
		if err := db.Append(t.Context(), more[i:i+100]); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool {
		l, err := db.Layout()
		if err != nil || l.LooseRecords+l.SealedRecords != 4801 {
			t.Fatalf("layout %+v, %v: want 4,801 records", l, err)
		}
		return l.SealedRecords >= 1801 && l.LooseBytes < codec.BlockTarget
	})
	after := readAll(t, db)
	if !reflect.DeepEqual(after[:1801], before) || !reflect.DeepEqual(after[1801:], more) {
		t.Fatalf("after sealing the old records read differently: %s", firstDiff(after[:1801], before))
	}
	op := before[len(before)-1]
	if _, err := db.Complete(context.Background(), op.ID, oplog.Completion{Status: oplog.StatusError, Error: "gone"}); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Get(op.ID); err != nil || got.Status != oplog.StatusError || got.Error != "gone" {
		t.Fatalf("the old pending operation reads %+v, %v", got, err)
	}
}

func gunzip(t *testing.T, from, to string) {
	t.Helper()
	f, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBlocks_SealLeavesAChangedBlock: a record completed after the sealer
// read it (and a trim by retention) is not sealed with its old value: the
// block waits for the next round, and the record reads completed, also
// once sealed and after a reopen.
func TestBlocks_SealLeavesAChangedBlock(t *testing.T) {
	recs := blockRecords(6000, 4)
	op := len(recs) / 3 // pending, in the first blocks
	var db *store.DB
	var once sync.Once
	done := make(chan oplog.Record, 1)
	t.Cleanup(store.SetSealHook(func() {
		once.Do(func() {
			r, err := db.Complete(context.Background(), recs[op].ID, oplog.Completion{Status: oplog.StatusSuccess, Result: []byte(`"done"`)})
			if err != nil {
				t.Error(err)
			}
			done <- r
		})
	}))
	path := filepath.Join(t.TempDir(), "log.db")
	db = logtest.MustOpenDBAt(t, path, nil)
	if err := db.Append(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	var completed oplog.Record
	select {
	case completed = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the sealer did not run")
	}
	if completed.Status != oplog.StatusSuccess {
		t.Fatalf("completed: %+v", completed)
	}
	waitFor(t, func() bool { l, err := db.Layout(); return err == nil && l.LooseBytes < codec.BlockTarget })
	check := func() {
		t.Helper()
		got, err := db.Get(recs[op].ID)
		if err != nil || got.Status != oplog.StatusSuccess || string(got.Result) != `"done"` {
			t.Fatalf("the record completed while it was being sealed reads %+v, %v", got, err)
		}
		l, err := db.Layout()
		if err != nil || l.SealedRecords < uint64(op) {
			t.Fatalf("layout %+v, %v: want the records up to #%d sealed", l, err, recs[op].ID)
		}
		if l.FreeBytes <= 0 || l.FreeBytes >= l.FileBytes {
			t.Fatalf("layout %+v: the sealed records' loose pages are free, a part of the file", l)
		}
		logtest.MustCheck(t, db)
	}
	check()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = logtest.MustOpenDBAt(t, path, nil)
	check()
}

// TestBlocks_RetentionByBytesSealsFirst: records over the byte limit while
// loose but under it once sealed are sealed by retention, not trimmed.
func TestBlocks_RetentionByBytesSealsFirst(t *testing.T) {
	recs := blockRecords(6000, 5)
	loose := 0
	for i := range recs {
		loose += len(codec.Append(nil, &recs[i]))
	}
	limit := uint64(loose * 4 / 5) // sealed, they take ~60%
	db := logtest.MustOpenDB(t, &store.Options{MaxBytes: limit, RetentionInterval: time.Hour})
	if err := db.Append(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { // sealed, and the stats published for it
		l, err := db.Layout()
		return err == nil && l.LooseBytes < codec.BlockTarget && db.Stats().Bytes == l.LooseBytes+l.BlockBytes
	})
	if s := db.Stats(); s.Records != uint64(len(recs)) || s.Bytes > limit {
		t.Fatalf("%d records of %d bytes (%d loose), limit %d: want every record kept, sealed under the limit", s.Records, s.Bytes, loose, limit)
	}
}

// TestBlocks_HoldSealing: the sealer leaves the records loose while
// HoldSealing's function holds it, and seals them once it lets go.
func TestBlocks_HoldSealing(t *testing.T) {
	db := logtest.MustOpenDB(t, nil)
	var held atomic.Bool
	var asked atomic.Int64
	held.Store(true)
	db.HoldSealing(func() bool { asked.Add(1); return held.Load() })
	if err := db.Append(t.Context(), blockRecords(6000, 2)); err != nil {
		t.Fatal(err)
	}
	// Asked three times: appends stopped more than two quiet periods ago.
	waitFor(t, func() bool { return asked.Load() >= 3 })
	l, err := db.Layout()
	if err != nil || l.Blocks != 0 || l.LooseRecords != 6000 {
		t.Fatalf("held, the layout is %+v (%v); want 6,000 records loose, no block", l, err)
	}
	free := db.FreeBytes()
	held.Store(false)
	waitFor(t, func() bool {
		l, err := db.Layout()
		return err == nil && l.LooseBytes < codec.BlockTarget && l.Blocks > 0
	})
	// bbolt counts the pages a commit freed once the commit closes, after
	// its fsync; a reader sees the sealed layout before that.
	for deadline := time.Now().Add(time.Minute); db.FreeBytes()-free < int64(l.LooseBytes)/2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("sealed, the file's free pages went from %d to %d bytes; want most of the %d bytes of loose records' pages freed", free, db.FreeBytes(), l.LooseBytes)
		}
	}
}

// TestBlocks_Settle: Settle seals the loose records and compacts the file
// before it returns (Windows compacts at Open only), even while the search
// index holds the sealer; on a closed store it says so.
func TestBlocks_Settle(t *testing.T) {
	defer store.SetCompact(1<<20, 64<<20, nil)()
	path := filepath.Join(t.TempDir(), "log.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.HoldSealing(func() bool { return true })
	if err := db.Append(t.Context(), blockRecords(20000, 3)); err != nil {
		t.Fatal(err)
	}
	l, err := db.Layout()
	if err != nil || l.Blocks != 0 {
		t.Fatalf("held, the layout is %+v (%v); want no block", l, err)
	}
	before := db.Size()
	if err := db.Settle(t.Context()); err != nil {
		t.Fatal(err)
	}
	if l, err = db.Layout(); err != nil || l.Blocks == 0 || l.LooseBytes >= codec.BlockTarget {
		t.Fatalf("settled, the layout is %+v (%v); want every whole block's worth sealed", l, err)
	}
	if after := db.Size(); store.CompactOnline() && after*2 > before {
		t.Fatalf("settled, the file went from %d to %d bytes; want it compacted to half or less", before, after)
	}
	if n := len(readAll(t, db)); n != 20000 {
		t.Fatalf("settled, %d records read back; want 20,000", n)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := db.Settle(ctx); err != context.Canceled {
		t.Fatalf("Settle with a cancelled context: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Settle(t.Context()); err != oplog.ErrClosed {
		t.Fatalf("Settle after Close: %v, want oplog.ErrClosed", err)
	}
}

// TestDB_FreeBytesWhileGrowing: FreeBytes may be asked while commits grow
// (and map again) the file, as /api/v1/info asks it (run with -race).
func TestDB_FreeBytesWhileGrowing(t *testing.T) {
	db := logtest.MustOpenDB(t, nil)
	done := make(chan struct{})
	asked := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-done:
				asked <- n
				return
			default:
			}
			if db.FreeBytes() < 0 {
				t.Error("negative free bytes")
			}
			n++
		}
	}()
	size := db.Size()
	for i := 0; db.Size() < 4*size+(8<<20); i++ {
		if err := db.Append(t.Context(), blockRecords(2000, uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	if n := <-asked; n == 0 {
		t.Fatal("FreeBytes was never asked while the file grew")
	}
}
