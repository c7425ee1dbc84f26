package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// flipStore writes n lines into a real data file, seals every whole
// block's worth with zstd (as the sealer does once appends pause), closes
// it and returns its path, the IDs stored and its blocks.
func flipStore(t testing.TB, n int) (string, []uint64, []logtest.Block) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.HoldSealing(func() bool { return true })
	for i := 0; i < n; i += 1000 {
		if err := db.Append(ctx, logtest.GameLines(i, min(1000, n-i))); err != nil {
			t.Fatal(err)
		}
	}
	db.SealNow(false)
	all, err := db.Tail(oplog.TailQuery{HasSince: true, Limit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]uint64, len(all.Lines))
	for i, r := range all.Lines {
		ids[i] = r.ID
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	blocks, err := logtest.Blocks(path)
	if err != nil || len(blocks) < 3 {
		t.Fatalf("%d blocks in %s (%v): want 3 or more", len(blocks), path, err)
	}
	return path, ids, blocks
}

// flipBit flips bit bit of byte off of the file at path.
func flipBit(t testing.TB, path string, off int64, bit uint) {
	t.Helper()
	if err := logtest.FlipBit(path, off, bit); err != nil {
		t.Fatal(err)
	}
}

// tailAll reads the whole store oldest first in pages of limit, as a
// reader tailing from the start does, and returns the IDs read and the
// damaged runs the answers named.
func tailAll(t testing.TB, db *store.DB, limit int) ([]uint64, []oplog.Damaged) {
	t.Helper()
	var ids []uint64
	var damaged []oplog.Damaged
	q := oplog.TailQuery{HasSince: true, Limit: limit}
	for {
		tl, err := db.Tail(q)
		if err != nil {
			t.Fatalf("tail after %d: %v", q.SinceID, err)
		}
		for _, r := range tl.Lines {
			ids = append(ids, r.ID)
		}
		damaged = append(damaged, tl.Damaged...)
		if !tl.More {
			return ids, damaged
		}
		q.SinceID, q.Revision = tl.LastID, tl.Revision
	}
}

// lostRuns returns the runs of IDs block b of the data file at path loses
// once read in part: what the store must name.
func lostRuns(t *testing.T, path string, b logtest.Block) []oplog.Damaged {
	t.Helper()
	lost, err := logtest.LostRuns(path, b)
	if err != nil {
		t.Fatal(err)
	}
	var runs []oplog.Damaged
	for _, l := range lost {
		runs = append(runs, oplog.Damaged{From: l[0], To: l[1], File: path})
	}
	return runs
}

// TestDB_Tail_SkipsDamagedBlock: a bit flipped in a block costs the
// readers the runs of 64 records whose checksums fail, not the block:
// tails and lists step over them and name them once, a read of one of
// them is EDAMAGED naming salvage, the rest of the block reads.
func TestDB_Tail_SkipsDamagedBlock(t *testing.T) {
	path, ids, blocks := flipStore(t, 20_000)
	b := blocks[1] // after another block: its run starts after that one's last
	flipBit(t, path, b.At+b.Size/2, 3)
	runs := lostRuns(t, path, b)
	if len(runs) != 1 {
		t.Fatalf("the flipped bit loses runs %v; the test wants one", runs)
	}
	want := runs[0]
	lostN := int(want.To - want.From + 1)
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatalf("open: %v (a block's body is not checked at Open)", err)
	}
	defer db.Close()

	t.Run("Tail", func(t *testing.T) {
		got, damaged := tailAll(t, db, 700)
		if len(got) == 0 || got[len(got)-1] != ids[len(ids)-1] {
			t.Fatalf("the tail from the start did not reach the newest record %d", ids[len(ids)-1])
		}
		if len(damaged) != 1 || damaged[0] != want {
			t.Fatalf("damaged runs named %v, want once %v", damaged, want)
		}
		if lost := len(ids) - len(got); lost != lostN {
			t.Fatalf("%d records not read, want the damaged run's %d", lost, lostN)
		}
		if s := damaged[0].String(); !strings.Contains(s, fmt.Sprintf("#%d..#%d unreadable: log.db is damaged there; run mcplogd salvage --data %s", want.From, want.To, filepath.Dir(path))) {
			t.Fatalf("marker %q", s)
		}
	})
	t.Run("List", func(t *testing.T) {
		var n int
		var damaged []oplog.Damaged
		q := oplog.Query{Count: 900}
		for {
			p, err := db.List(q)
			if err != nil {
				t.Fatal(err)
			}
			n += len(p.Records)
			damaged = append(damaged, p.Damaged...)
			if !p.More {
				break
			}
			q.Before = p.Records[len(p.Records)-1].ID
		}
		if n != len(ids)-lostN || len(damaged) != 1 || damaged[0] != want {
			t.Fatalf("listed %d records naming %v; want %d naming %v once", n, damaged, len(ids)-lostN, want)
		}
	})
	t.Run("TailNewest", func(t *testing.T) {
		tl, err := db.Tail(oplog.TailQuery{Limit: len(ids)})
		if err != nil || len(tl.Damaged) != 1 || tl.Damaged[0] != want {
			t.Fatalf("newest lines: %v, damaged %v", err, tl.Damaged)
		}
	})
	t.Run("Get", func(t *testing.T) {
		if _, err := db.Get(want.From - 1); err != nil {
			t.Fatalf("get of a record of the damaged block outside the run lost: %v", err)
		}
		_, err := db.Get(want.To)
		if !oplog.IsDamaged(err) || !errors.Is(err, store.ErrDamaged) || oplog.ErrorCode(err) != oplog.EDAMAGED ||
			!strings.Contains(oplog.ErrorMessage(err), "mcplogd salvage") || !strings.Contains(oplog.ErrorMessage(err), fmt.Sprintf("#%d..#%d", want.From, want.To)) {
			t.Fatalf("get of a record in the damaged block: %v (message %q)", err, oplog.ErrorMessage(err))
		}
		if _, err := db.Get(blocks[0].Last); err != nil {
			t.Fatalf("get of a record of the block before: %v", err)
		}
		recs, err := db.GetMany([]uint64{blocks[0].Last, want.From, ids[len(ids)-1]})
		if err != nil || len(recs) != 2 {
			t.Fatalf("get many: %d records, %v; want the 2 outside the damaged run", len(recs), err)
		}
	})
	t.Run("Damage", func(t *testing.T) {
		if got := db.Damage(); len(got) != 1 || got[0] != want {
			t.Fatalf("Damage() = %v, want %v", got, want)
		}
		if err := db.Check(); !errors.Is(err, store.ErrDamaged) {
			t.Fatalf("check: %v, want ErrDamaged", err)
		}
	})
}

// TestDB_Open_ChecksBlocksAfterUncleanStop: a file the last process did
// not close has every block checked in the background; its damage is
// known (Damage) before any reader meets it.
func TestDB_Open_ChecksBlocksAfterUncleanStop(t *testing.T) {
	path, _, blocks := flipStore(t, 12_000)
	b := blocks[len(blocks)-1]
	flipBit(t, path, b.At+b.Size-9, 0)
	t.Run("Clean", func(t *testing.T) {
		db, err := store.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if got := db.Damage(); len(got) != 0 {
			t.Fatalf("after a clean stop no check runs; damage %v", got)
		}
	})
	if err := os.WriteFile(path+store.OpenSuffix, nil, 0o600); err != nil { // as a killed process leaves it
		t.Fatal(err)
	}
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := lostRuns(t, path, b)
	logtest.Eventually(t, 30*time.Second, "the background check finds the damaged block", func() bool { return len(db.Damage()) == len(want) })
	if got := db.Damage(); !slices.Equal(got, want) {
		t.Fatalf("damage %v, want the runs the last block loses, %v", got, want)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + store.OpenSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the open marker outlived Close: %v", err)
	}
}

// TestSalvage_CountsDamagedBlock: a bit flipped in a block costs salvage
// the runs of 64 records whose checksums fail, not the block: the rest of
// it is copied as it was, and the runs lost are counted.
func TestSalvage_CountsDamagedBlock(t *testing.T) {
	path, ids, blocks := flipStore(t, 20_000)
	b := blocks[1]
	flipBit(t, path, b.At+b.Size/3, 6)
	out := filepath.Join(t.TempDir(), "log.db")
	rep, err := store.Salvage(path, out)
	if err != nil {
		t.Fatal(err)
	}
	lost := map[uint64]bool{}
	for _, d := range rep.Damaged {
		if d.From <= blocks[0].Last || d.To > b.Last {
			t.Fatalf("salvage: %+v; want runs lost within the block %d..%d", rep, blocks[0].Last+1, b.Last)
		}
		for id := d.From; id <= d.To; id++ {
			lost[id] = true
		}
	}
	if len(lost) == 0 || len(lost) >= b.Records || rep.DamagedRecords != uint64(len(lost)) || rep.Skipped != uint64(len(lost)) ||
		rep.Copied != uint64(len(ids)-len(lost)) {
		t.Fatalf("salvage: %+v; want some but not all %d records of the block lost, counted, the others copied", rep, b.Records)
	}
	db := logtest.MustOpenDBAt(t, out, nil)
	tail, err := db.Tail(oplog.TailQuery{HasSince: true, Limit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	var want []uint64
	for _, id := range ids {
		if !lost[id] {
			want = append(want, id)
		}
	}
	var got []uint64
	for _, r := range tail.Lines {
		got = append(got, r.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the salvaged file holds %d records; want the %d not lost", len(got), len(want))
	}
	t.Logf("one flipped bit in a block of %d records: %d lost", b.Records, len(lost))
}

// TestDB_FlippedBits_RecordsLost flips one random bit in a random block's
// value of a fresh copy of the same file, 24 times, and counts what a
// reader tailing from the start loses each time: no more than the block
// the bit is in (the runs of 64 records whose checksums fail, when the
// block's IDs and lengths expand), every record lost named, and the
// newest record always reached. It logs the
// records lost per flipped bit (the seed repeats a run).
func TestDB_FlippedBits_RecordsLost(t *testing.T) {
	path, ids, blocks := flipStore(t, 20_000)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(logtest.Seed(t), 0))
	var lost []int
	total := 0
	for i := range 24 {
		b := blocks[rng.IntN(len(blocks))]
		off := b.At + rng.Int64N(b.Size)
		cp := filepath.Join(t.TempDir(), "log.db")
		if err := os.WriteFile(cp, orig, 0o600); err != nil {
			t.Fatal(err)
		}
		flipBit(t, cp, off, uint(rng.IntN(8)))
		db, err := store.Open(cp, nil)
		if err != nil {
			t.Fatalf("flip %d (byte %d of block ..%d): open: %v", i, off-b.At, b.Last, err)
		}
		got, damaged := tailAll(t, db, 1000)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if got[len(got)-1] != ids[len(ids)-1] {
			t.Fatalf("flip %d: the tail stopped at %d, before the newest %d", i, got[len(got)-1], ids[len(ids)-1])
		}
		n, named := len(ids)-len(got), 0
		for _, d := range damaged {
			if d.From < b.First || d.To > b.Last {
				t.Fatalf("flip %d (byte %d of block %d..%d): damage named %v, outside the block", i, off-b.At, b.First, b.Last, damaged)
			}
			named += int(d.To - d.From + 1)
		}
		if n > 0 && named != n || n > b.Records {
			t.Fatalf("flip %d (byte %d of block ..%d, %d records): %d records lost, damage named %v", i, off-b.At, b.Last, b.Records, n, damaged)
		}
		lost = append(lost, n)
		total += n
	}
	sealed := 0
	for _, b := range blocks {
		sealed += b.Records
	}
	t.Logf("records lost per flipped bit (24 flips in %d blocks averaging %d records): %v, mean %.0f", len(blocks), sealed/len(blocks), lost, float64(total)/24)
}

// fileAndTree returns the bytes of the data file at path and its tree's
// pages (logtest.TreePages), for a test that damages copies of it.
func fileAndTree(t *testing.T, path string) ([]byte, []int64) {
	t.Helper()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := logtest.TreePages(path)
	if err != nil {
		t.Fatal(err)
	}
	return orig, tree
}

// TestDB_LooseKeyFlippedPastNewest: a bit flipped in the key of the
// record before the newest loose one makes it an ID never assigned, past
// the newest, and out of the page's order. The readers step over that one
// record and name it, and read every other, the newest too, both ways:
// a seek to the newest lands on the moved key, which is no reason to
// doubt the newest.
func TestDB_LooseKeyFlippedPastNewest(t *testing.T) {
	path, ids, _ := flipStore(t, 20_000)
	moved, newest := ids[len(ids)-2], ids[len(ids)-1]
	orig, tree := fileAndTree(t, path)
	var at []int64 // where the key of moved is in the tree's pages
	for _, pg := range tree {
		page := orig[pg*pageSize : (pg+1)*pageSize]
		for i, k := 0, codec.Key(moved); ; {
			j := bytes.Index(page[i:], k)
			if j < 0 {
				break
			}
			at = append(at, pg*pageSize+int64(i+j))
			i += j + 1
		}
	}
	if len(at) != 1 {
		t.Fatalf("the key of record %d is at %v in the tree's pages: want one place", moved, at)
	}
	flipBit(t, path, at[0]+5, 4) // 2^20 added: past the newest
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := oplog.Damaged{From: moved, To: moved, File: path}

	got, damaged := tailAll(t, db, 1000)
	if len(got) != len(ids)-1 || got[len(got)-1] != newest || slices.Contains(got, moved) {
		t.Fatalf("the tail from the start read %d records ending at %v; want all %d but %d, ending at %d", len(got), got[len(got)-1:], len(ids), moved, newest)
	}
	if len(damaged) != 1 || damaged[0] != want {
		t.Fatalf("the tail named %v, want %v", damaged, want)
	}
	tl, err := db.Tail(oplog.TailQuery{HasSince: true, SinceID: moved - 1, Limit: 10})
	if err != nil || len(tl.Lines) != 1 || tl.Lines[0].ID != newest || len(tl.Damaged) != 1 || tl.Damaged[0] != want {
		t.Fatalf("a poll after %d: %v, %v; want record %d, naming %v", moved-1, tl, err, newest, want)
	}
	p, err := db.List(oplog.Query{Count: 3})
	if err != nil || len(p.Records) != 3 || p.Records[0].ID != newest || p.Records[1].ID != moved-1 {
		t.Fatalf("the newest 3: %v, %v; want %d, then %d", p, err, newest, moved-1)
	}
}

// TestDB_FlippedBitsInBoltPages flips one random bit of bbolt's own pages
// (the meta pages' fields, the branch and leaf pages of the trees), 48
// times, each in a fresh copy of the same file. The store refuses the
// file naming salvage; or serves it as it serves a damaged block (a tail
// from the start reaches the newest record and names what it skipped); or,
// where bbolt itself fails on the page (a garbled element count, a key
// flipped into another's place), a read fails with an error naming
// salvage, or a record goes missing unnamed: those two are counted and
// logged, not failed (bbolt's cursor cannot step over a page).
func TestDB_FlippedBitsInBoltPages(t *testing.T) {
	path, ids, _ := flipStore(t, 20_000)
	orig, tree := fileAndTree(t, path)
	rng := rand.New(rand.NewPCG(logtest.Seed(t), 0))
	outcomes := map[string]int{}
	for i := range 48 {
		off := int64(i%2)*pageSize + rng.Int64N(16+64) // a meta page's header and fields
		if i%3 == 2 {
			off = tree[rng.IntN(len(tree))]*pageSize + rng.Int64N(pageSize)
		}
		cp := filepath.Join(t.TempDir(), "log.db")
		if err := os.WriteFile(cp, orig, 0o600); err != nil {
			t.Fatal(err)
		}
		flipBit(t, cp, off, uint(rng.IntN(8)))
		what := fmt.Sprintf("flip %d (page %d, byte %d)", i, off/pageSize, off%pageSize)
		outcome, err := servedOrRefused(cp, ids)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if outcome != "refused" && outcome != "served whole" {
			t.Logf("%s: %s", what, outcome)
		}
		outcomes[strings.SplitN(outcome, ":", 2)[0]]++
	}
	t.Logf("48 flipped bits in bbolt's pages: %v", outcomes)
}

// servedOrRefused opens the data file at path, which held ids before a bit
// flipped, and reads it oldest first, and says how it went; an error when
// the store did something other than refuse, serve or fail naming salvage.
func servedOrRefused(path string, ids []uint64) (string, error) {
	named := func(err error) bool {
		return errors.Is(err, store.ErrDamaged) && strings.Contains(err.Error(), "mcplogd salvage")
	}
	db, err := store.Open(path, nil)
	if err != nil {
		if !named(err) {
			return "", fmt.Errorf("refused without naming salvage: %w", err)
		}
		return "refused", nil
	}
	defer db.Close()
	var got []uint64
	var damaged []oplog.Damaged
	q := oplog.TailQuery{HasSince: true, Limit: 1000}
	for {
		tl, err := db.Tail(q)
		if err != nil {
			if !named(err) {
				return "", fmt.Errorf("a read failed without naming salvage: %w", err)
			}
			return "read failed, naming salvage: " + err.Error(), nil
		}
		for _, r := range tl.Lines {
			got = append(got, r.ID)
		}
		damaged = append(damaged, tl.Damaged...)
		if !tl.More {
			break
		}
		q.SinceID = tl.LastID
	}
	newest := ids[len(ids)-1]
	reached := len(got) > 0 && got[len(got)-1] == newest
	for _, d := range damaged {
		reached = reached || d.Contains(newest) // the newest record is the damaged one
	}
	switch {
	case !reached:
		return "", fmt.Errorf("the tail stopped before the newest record, naming %v", damaged)
	case len(got) < len(ids) && len(damaged) == 0:
		return fmt.Sprintf("records missing unnamed: %d", len(ids)-len(got)), nil
	case len(got) < len(ids):
		return fmt.Sprintf("served, damage named: %d records", len(ids)-len(got)), nil
	}
	return "served whole", nil
}
