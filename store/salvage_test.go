package store_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// salvageLayout is where salvageStore's file keeps what the salvage tests
// damage, read with bbolt before any damage.
type salvageLayout struct {
	root          int64         // the meta page's root: the page of the buckets
	recordsBranch int64         // the records bucket's root, a branch page
	recordsLeaves map[int64]int // the records bucket's leaf pages and how many records each holds
	blocksLeaf    int64         // the blocks bucket's only page, a leaf with overflow pages
	lastHead      uint64        // the last ID of the blocks with bytes on blocksLeaf's first page (from the first ID on)
	headRecords   int           // the records of those blocks
	tailRecords   uint64        // the records of the blocks wholly on its overflow pages
	tree          []int64       // every branch and leaf page
}

// salvageStore writes the file the salvage tests damage: 20,000 records
// (lines, operations, some with a ~12 KB stack) and a read position,
// appended with the sealer held and sealed into blocks when the test says:
// half of them with zstd, then the rest with S2, as during a burst. So the
// layout is the same at every run: three blocks of ~6,200 records (zstd,
// S2, S2) on one leaf page of the blocks bucket, which runs on over its
// overflow pages, and ~1,400 records loose on ~25 leaf pages under one
// branch. (Left to the background sealer, the layout depended on whether
// a loaded machine paused the appends for 100 ms: all 20,000 records
// loose, or most in blocks.) It returns the file, every record as read
// back, and the layout.
func salvageStore(t *testing.T) (string, []oplog.Record, salvageLayout) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.HoldSealing(func() bool { return true })
	l := oplog.New(db, nil)
	for i := 0; i < 20_000; i += 500 {
		recs := logtest.Lines(500, fmt.Sprint("batch", i))
		recs[7] = oplog.Record{Tool: "run_lua", Arguments: json.RawMessage(`{"code":"return 1"}`)}
		recs[9].Stack = strings.Repeat(fmt.Sprintf("at Frame%d () in File.cs:%d\n", i, i), 400)
		if err := l.AppendAt(ctx, recs, oplog.Position{Key: "writer", Value: fmt.Append(nil, "batch ", i/500)}); err != nil {
			t.Fatal(err)
		}
		if i == 10_000-500 {
			db.SealNow(false)
		}
	}
	db.SealNow(true)
	all, err := db.Tail(oplog.TailQuery{HasSince: true, Limit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return path, all.Lines, readSalvageLayout(t, path)
}

// readSalvageLayout finds the pages the tests damage, and fails when the
// layout is not the one their expectations are worked out for.
func readSalvageLayout(t *testing.T, path string) salvageLayout {
	t.Helper()
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(file[16+8:]) != pageSize {
		t.Fatalf("page size of %s is not %d", path, pageSize)
	}
	page := func(id int64) []byte { return file[id*pageSize : (id+1)*pageSize] }
	lay := salvageLayout{recordsLeaves: map[int64]int{}}
	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	var problem string
	if err := bdb.View(func(tx *bbolt.Tx) error {
		lay.root = int64(tx.Cursor().Bucket().Root())
		recs, blocks := tx.Bucket(codec.RecordsBucket), tx.Bucket(codec.BlocksBucket)
		lay.recordsBranch, lay.blocksLeaf = int64(recs.Root()), int64(blocks.Root())
		rs, bs := recs.Stats(), blocks.Stats()
		if rs.Depth != 2 || rs.BranchPageN != 1 || bs.LeafPageN != 1 || bs.BranchPageN != 0 || bs.KeyN < 3 {
			problem = fmt.Sprintf("records %+v, blocks %+v", rs, bs)
			return nil
		}
		branch := page(lay.recordsBranch)
		for i := range int(binary.LittleEndian.Uint16(branch[10:])) {
			leaf := int64(binary.LittleEndian.Uint64(branch[16+16*i+8:]))
			lay.recordsLeaves[leaf] = int(binary.LittleEndian.Uint16(page(leaf)[10:]))
		}
		// A leaf page holds its elements, then each key and its value.
		at := 16 + 16*bs.KeyN
		var formats []byte
		err := blocks.ForEach(func(k, v []byte) error {
			formats = append(formats, v[0])
			_, _, n, err := codec.BlockRev(v)
			if err != nil {
				return err
			}
			if at < pageSize {
				lay.lastHead, _ = codec.ID(k)
				lay.headRecords += int(n)
			} else {
				lay.tailRecords += n
			}
			at += len(k) + len(v)
			return nil
		})
		if !bytes.Equal(formats, []byte{codec.BlockZstdWords, codec.BlockS2, codec.BlockS2}) {
			problem = fmt.Sprintf("blocks of formats %v, want zstd by column (texts as words), S2, S2", formats)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if problem != "" || lay.headRecords == 0 || lay.tailRecords == 0 {
		t.Fatalf("the layout the salvage tests damage changed: %s, %d records in blocks with bytes on the first page, %d after it", problem, lay.headRecords, lay.tailRecords)
	}
	if lay.tree, err = logtest.TreePages(path); err != nil {
		t.Fatal(err)
	}
	return lay
}

// recordsOn is how many records the page id takes with it when damaged:
// the loose records on it, or the blocks with bytes on it. A page of the
// buckets, a branch page, a page of another bucket take none: salvage
// finds the pages below them.
func (lay *salvageLayout) recordsOn(id int64) int {
	if id == lay.blocksLeaf {
		return lay.headRecords
	}
	return lay.recordsLeaves[id]
}

// overwrite writes a page of fill's bytes over each of pages of path.
func overwrite(t *testing.T, path string, fill func([]byte), pages ...int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, id := range pages {
		b := make([]byte, pageSize)
		fill(b)
		if _, err := f.WriteAt(b, id*pageSize); err != nil {
			t.Fatal(err)
		}
	}
}

// garbler fills pages with bytes from r.
func garbler(r *rand.Rand) func([]byte) {
	return func(b []byte) {
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	}
}

func zeroes([]byte) {}

// copyDamageable copies the file src to a new file in a temporary directory.
func copyDamageable(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "log.db")
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

// salvage salvages src into a new file and checks what it holds: each
// record as it was, once, in ID order; the report's counts; the counters
// (Check at cleanup). It returns the report, the new store and the IDs of
// the records lost.
func salvage(t *testing.T, src string, orig []oplog.Record) (store.SalvageReport, *store.DB, []uint64) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "log.db")
	rep, err := store.Salvage(src, out)
	if err != nil {
		t.Fatalf("salvage: %v (%+v)", err, rep)
	}
	t.Logf("%+v", rep)
	db := logtest.MustOpenDBAt(t, out, nil)
	got, err := db.Tail(oplog.TailQuery{HasSince: true, Limit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[uint64]oplog.Record{}
	for _, r := range orig {
		byID[r.ID] = r
	}
	for i, r := range got.Lines {
		if i > 0 && r.ID <= got.Lines[i-1].ID {
			t.Fatalf("record %d after record %d: the new file holds a record twice or out of order", r.ID, got.Lines[i-1].ID)
		}
		if want := byID[r.ID]; !reflect.DeepEqual(r, want) {
			t.Fatalf("record %d salvaged as %+v, was %+v", r.ID, r, want)
		}
		delete(byID, r.ID)
	}
	if uint64(len(got.Lines)) != rep.Copied || rep.Expected != 0 && rep.Expected != uint64(len(orig)) ||
		rep.Orphans > rep.Copied || rep.Carved > rep.Copied {
		t.Fatalf("the new file holds %d records, the report says %+v (held %d)", len(got.Lines), rep, len(orig))
	}
	if len(byID) > 0 && rep.BadPages == 0 {
		t.Fatalf("%d records lost, and the report says no page was bad: %+v", len(byID), rep)
	}
	var lost []uint64
	for _, r := range orig {
		if _, ok := byID[r.ID]; ok {
			lost = append(lost, r.ID)
		}
	}
	return rep, db, lost
}

// runsOf counts the runs of IDs one after the other in orig among ids.
func runsOf(ids []uint64, orig []oplog.Record) int {
	at := map[uint64]int{}
	for i, r := range orig {
		at[r.ID] = i
	}
	runs := 0
	for i, id := range ids {
		if i == 0 || at[id] != at[ids[i-1]]+1 {
			runs++
		}
	}
	return runs
}

// TestSalvage_CopiesTheReadableRecords damages copies of one file, each in
// a way of its own, and salvages them: every record that was not on a
// damaged page is copied, as it was, and the report says what was lost.
func TestSalvage_CopiesTheReadableRecords(t *testing.T) {
	src, orig, lay := salvageStore(t)
	n := uint64(len(orig))
	// lostBlocks checks that the records lost are those of the blocks
	// with bytes on the blocks leaf's first page, and that the others,
	// on its overflow pages, were cut out of them.
	lostBlocks := func(t *testing.T, rep store.SalvageReport, lost []uint64) {
		t.Helper()
		if len(lost) != lay.headRecords || lost[0] != orig[0].ID || lost[len(lost)-1] != lay.lastHead || runsOf(lost, orig) != 1 || rep.Carved != lay.tailRecords {
			t.Fatalf("lost %d records (%v…), carved %d: want the %d of the blocks up to ID %d lost and %d records carved from the overflow pages",
				len(lost), lost[:min(len(lost), 3)], rep.Carved, lay.headRecords, lay.lastHead, lay.tailRecords)
		}
	}
	hasProblem := func(t *testing.T, rep store.SalvageReport, want string) {
		t.Helper()
		if !slices.ContainsFunc(rep.Problems, func(p string) bool { return strings.Contains(p, want) }) {
			t.Errorf("problems %q: want one saying %q", rep.Problems, want)
		}
	}
	t.Run("intact", func(t *testing.T) {
		rep, db, lost := salvage(t, copyDamageable(t, src), orig)
		pos, err := db.Position("writer")
		if len(lost) != 0 || rep.BadPages != 0 || rep.Orphans != 0 || rep.Carved != 0 || rep.Expected != n || rep.Positions != 1 || string(pos) != "batch 39" || err != nil {
			t.Fatalf("an intact file: %+v, lost %d, position %q (%v)", rep, len(lost), pos, err)
		}
	})
	// The root page holds the buckets: the records bucket, the blocks
	// bucket, the counters and the read positions. Salvage finds the
	// records' pages by reading every page; what only the root reached
	// is gone.
	t.Run("root page garbled", func(t *testing.T) {
		path := copyDamageable(t, src)
		overwrite(t, path, garbler(rand.New(rand.NewPCG(1, 2))), lay.root)
		rep, _, lost := salvage(t, path, orig)
		if len(lost) != 0 || rep.Orphans != n || rep.Expected != 0 || rep.Positions != 0 || rep.BadPages != 1 {
			t.Fatalf("lost %d records; %+v: want every record found on pages no tree reached, no counters nor positions, one bad page", len(lost), rep)
		}
		hasProblem(t, rep, "the records bucket was not found from the meta page")
	})
	// Without a meta page nothing says which pages are free: salvage
	// reads them all, stale copies of records too, each ID once.
	t.Run("both meta pages garbled", func(t *testing.T) {
		path := copyDamageable(t, src)
		overwrite(t, path, garbler(rand.New(rand.NewPCG(9, 10))), 0, 1)
		rep, _, lost := salvage(t, path, orig)
		if len(lost) != 0 || rep.Orphans != n || rep.Expected != 0 || rep.Positions != 0 || rep.BadPages != 2 {
			t.Fatalf("lost %d records; %+v: want every record found on pages no tree reached, two bad pages", len(lost), rep)
		}
		hasProblem(t, rep, "no valid meta page")
	})
	t.Run("records branch page zeroed", func(t *testing.T) {
		path := copyDamageable(t, src)
		overwrite(t, path, zeroes, lay.recordsBranch)
		rep, _, lost := salvage(t, path, orig)
		loose := 0
		for _, c := range lay.recordsLeaves {
			loose += c
		}
		if len(lost) != 0 || rep.Orphans != uint64(loose) || rep.BadPages != 1 || rep.Expected != n {
			t.Fatalf("lost %d records; %+v: want every record, the loose ones found on pages no tree reached", len(lost), rep)
		}
	})
	t.Run("records leaf page garbled", func(t *testing.T) {
		leaf := slices.Min(slices.Collect(maps.Keys(lay.recordsLeaves)))
		path := copyDamageable(t, src)
		overwrite(t, path, garbler(rand.New(rand.NewPCG(3, 4))), leaf)
		rep, _, lost := salvage(t, path, orig)
		if len(lost) != lay.recordsLeaves[leaf] || runsOf(lost, orig) != 1 || rep.BadPages != 1 || rep.Expected != n {
			t.Fatalf("lost %d records (%d runs); %+v: want the %d of leaf page %d, one after the other", len(lost), runsOf(lost, orig), rep, lay.recordsLeaves[leaf], leaf)
		}
	})
	// The blocks leaf's first page holds the elements (which say where
	// each block's key and value lie) and the first block's start; the
	// blocks wholly on its overflow pages are intact, and salvage cuts
	// them out by their own headers and checksums.
	for name, fill := range map[string]func([]byte){"garbled": garbler(rand.New(rand.NewPCG(5, 6))), "zeroed": zeroes} {
		t.Run("blocks leaf page "+name, func(t *testing.T) {
			path := copyDamageable(t, src)
			overwrite(t, path, fill, lay.blocksLeaf)
			rep, _, lost := salvage(t, path, orig)
			lostBlocks(t, rep, lost)
			if rep.BadPages != 1 || rep.Expected != n {
				t.Fatalf("%+v: want one bad page and the counters", rep)
			}
		})
	}
	// What a fresh clone's make check met once: the root page and the
	// blocks leaf page garbled, 1,230 of 20,000 records copied.
	t.Run("root and blocks leaf pages garbled", func(t *testing.T) {
		path := copyDamageable(t, src)
		overwrite(t, path, garbler(rand.New(rand.NewPCG(7, 8))), lay.root, lay.blocksLeaf)
		rep, _, lost := salvage(t, path, orig)
		lostBlocks(t, rep, lost)
		if rep.BadPages != 2 || rep.Expected != 0 {
			t.Fatalf("%+v: want two bad pages and no counters", rep)
		}
		hasProblem(t, rep, "the records bucket was not found from the meta page")
	})
	// Random pages, garbled or zeroed: the records lost are exactly those
	// the damaged pages held, in no more runs than pages were damaged.
	t.Run("random pages damaged", func(t *testing.T) {
		seed := logtest.Seed(t)
		for round := range uint64(12) {
			r := rand.New(rand.NewPCG(seed, round))
			fill := garbler(r)
			if round%2 == 1 {
				fill = zeroes
			}
			pages := make([]int64, 1+r.IntN(8))
			for i, p := range r.Perm(len(lay.tree))[:len(pages)] {
				pages[i] = lay.tree[p]
			}
			path := copyDamageable(t, src)
			overwrite(t, path, fill, pages...)
			want := 0
			for _, p := range pages {
				want += lay.recordsOn(p)
			}
			rep, _, lost := salvage(t, path, orig)
			if len(lost) != want || runsOf(lost, orig) > len(pages) || rep.BadPages == 0 {
				t.Fatalf("seed %d round %d: pages %v damaged: lost %d records in %d runs, want %d; %+v", seed, round, pages, len(lost), runsOf(lost, orig), want, rep)
			}
		}
	})
	t.Run("truncated", func(t *testing.T) {
		path := copyDamageable(t, src)
		fi, _ := os.Stat(path)
		if err := os.Truncate(path, fi.Size()/2); err != nil {
			t.Fatal(err)
		}
		rep, _, lost := salvage(t, path, orig)
		if rep.Copied == 0 || len(lost) == 0 || rep.BadPages == 0 {
			t.Fatalf("lost %d records; %+v", len(lost), rep)
		}
	})
}
