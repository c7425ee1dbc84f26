package store_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

const pageSize = 4096 // bbolt's on this machine; damagedStore checks it

// damagedStore writes n records (lines, operations, some large enough to
// be compressed and to span overflow pages) into a real data file, closes
// it and returns its path and every record as read back. The sealer is
// held, so every record stays loose at every run: left to run, it sealed
// them into blocks whenever a loaded machine paused the appends for
// 100 ms, and their leaf pages became free pages nothing reads.
func damagedStore(t *testing.T, n int) (string, []oplog.Record) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.HoldSealing(func() bool { return true })
	l := oplog.New(db, nil)
	for i := 0; i < n; i += 500 {
		recs := logtest.Lines(500, fmt.Sprint("batch", i))
		recs[7] = oplog.Record{Tool: "run_lua", Arguments: json.RawMessage(`{"code":"return 1"}`)}
		recs[9].Stack = strings.Repeat(fmt.Sprintf("at Frame%d () in File.cs:%d\n", i, i), 400) // ~12 KB
		if err := l.AppendAt(ctx, recs, oplog.Position{Key: "writer", Value: fmt.Append(nil, "batch ", i/500)}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := db.Tail(oplog.TailQuery{HasSince: true, Limit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || binary.LittleEndian.Uint32(b[16+8:]) != pageSize {
		t.Fatalf("page size of %s is not %d (%v)", path, pageSize, err)
	}
	return path, all.Lines
}

// garblePages overwrites n distinct random tree pages (branch and leaf
// pages, which Open checks; not free pages, nor the overflow pages a
// large value runs on into, found when read) with what fill gives, and
// returns their numbers.
func garblePages(t *testing.T, path string, n int, fill func([]byte)) []int64 {
	t.Helper()
	tree, err := logtest.TreePages(path)
	if err != nil || len(tree) < 8 {
		t.Fatalf("%d tree pages in %s (%v)", len(tree), path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var picked []int64
	for _, i := range rand.Perm(len(tree))[:min(n, len(tree))] {
		b := make([]byte, pageSize)
		fill(b)
		if _, err := f.WriteAt(b, tree[i]*pageSize); err != nil {
			t.Fatal(err)
		}
		picked = append(picked, tree[i])
	}
	return picked
}

func randomFill(b []byte) {
	for i := range b {
		b[i] = byte(rand.Uint32())
	}
}

func TestDB_Open_RefusesDamagedFile(t *testing.T) {
	cases := map[string]func(t *testing.T, path string){
		"truncated to half": func(t *testing.T, path string) {
			fi, _ := os.Stat(path)
			if err := os.Truncate(path, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		},
		"truncated mid-page": func(t *testing.T, path string) {
			fi, _ := os.Stat(path)
			if err := os.Truncate(path, fi.Size()-1000); err != nil {
				t.Fatal(err)
			}
		},
		"8 to 64 pages garbled": func(t *testing.T, path string) { garblePages(t, path, 8+rand.IntN(57), randomFill) },
		"8 to 64 pages zeroed":  func(t *testing.T, path string) { garblePages(t, path, 8+rand.IntN(57), func([]byte) {}) },
		"stats record of the wrong length": func(t *testing.T, path string) {
			// One flipped bit in a leaf's element header does this: the
			// stats value read with another record's length.
			db, err := bbolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Update(func(tx *bbolt.Tx) error {
				return tx.Bucket(codec.MetaBucket).Put(codec.StatsKey, make([]byte, 8448))
			}); err != nil {
				t.Fatal(err)
			}
		},
		// A flipped bit in the key "schema" loses the version; in the
		// bucket's name, the bucket, and the file would pass for new.
		"schema version gone": func(t *testing.T, path string) {
			updateBolt(t, path, func(tx *bbolt.Tx) error { return tx.Bucket(codec.MetaBucket).Delete(codec.SchemaKey) })
		},
		"meta bucket gone": func(t *testing.T, path string) {
			updateBolt(t, path, func(tx *bbolt.Tx) error { return tx.DeleteBucket(codec.MetaBucket) })
		},
		"both meta pages garbled": func(t *testing.T, path string) {
			b := make([]byte, 2*pageSize)
			randomFill(b)
			f, _ := os.OpenFile(path, os.O_WRONLY, 0)
			defer f.Close()
			if _, err := f.WriteAt(b, 0); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			path, _ := damagedStore(t, 20_000)
			damage(t, path)
			db, err := store.Open(path, nil)
			if err == nil {
				db.Close()
				t.Fatal("a damaged file opened")
			}
			if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "mcplogd salvage") {
				t.Fatalf("error %q: want ErrDamaged naming %s and mcplogd salvage", err, path)
			}
			t.Log(err)
		})
	}
}

// updateBolt changes the bbolt file at path in one transaction.
func updateBolt(t *testing.T, path string, f func(tx *bbolt.Tx) error) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(f); err != nil {
		t.Fatal(err)
	}
}

func TestDB_DamagedPageBodyIsAnErrorNotACrash(t *testing.T) {
	path, _ := damagedStore(t, 20_000)
	// Garble the bodies of leaf pages, keeping their headers: the page
	// check at Open passes, bbolt meets the damage while reading.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for p := int64(10); p < int64(len(b)/pageSize/2) && n < 20; p += 3 { // old records: Open reads none
		pg := b[p*pageSize : (p+1)*pageSize]
		if binary.LittleEndian.Uint64(pg) == uint64(p) && binary.LittleEndian.Uint16(pg[8:]) == 0x02 {
			randomFill(pg[16:])
			n++
		}
	}
	if n == 0 {
		t.Fatal("no leaf page found")
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path, nil)
	if errors.Is(err, store.ErrDamaged) {
		t.Logf("refused at open, where bbolt read a garbled page: %v", err)
		return
	} else if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer db.Close()
	_, err = db.Tail(oplog.TailQuery{HasSince: true, Limit: 1 << 30})
	cerr := db.Check()
	if err == nil && cerr == nil {
		t.Fatal("reading 20 garbled leaf pages gave no error")
	}
	t.Logf("tail: %v\ncheck: %v", err, cerr)
}

// TestDB_DamagedBlockBodyNamesSalvage: a block whose body no longer
// decodes (damage Open does not read) is skipped by readers, which name
// its run; a Get of one of its records is an error wrapping ErrDamaged
// that names the run, the file and mcplogd salvage, not a bare decode
// error.
func TestDB_DamagedBlockBodyNamesSalvage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if err := db.Append(ctx, logtest.Lines(2000, fmt.Sprint("batch", i))); err != nil {
			t.Fatal(err)
		}
	}
	logtest.Eventually(t, time.Minute, "a block sealed", func() bool { l, err := db.Layout(); return err == nil && l.Blocks > 0 })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	bdb, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	var key []byte
	if err := bdb.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(codec.BlocksBucket)
		k, v := b.Cursor().First()
		v = bytes.Clone(v)
		for i := len(v) / 2; i < len(v)/2+64; i++ {
			v[i] ^= 0x5a // the middle of its zstd frame
		}
		key = bytes.Clone(k)
		return b.Put(k, v)
	}); err != nil {
		t.Fatal(err)
	}
	if err := bdb.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = store.Open(path, nil)
	if err != nil {
		t.Fatalf("open: %v (the page headers are intact: Open should pass)", err)
	}
	defer db.Close()
	id, _ := codec.ID(key)
	tl, err := db.Tail(oplog.TailQuery{HasSince: true, Limit: 1 << 30})
	if err != nil || len(tl.Damaged) != 1 || tl.Damaged[0].To != id || tl.LastID != db.Stats().LastID {
		t.Fatalf("tail over a damaged block: %v, damaged %v, lastId %d; want block ..%d skipped and the tail to the end", err, tl.Damaged, tl.LastID, id)
	}
	_, err = db.Get(id)
	if !errors.Is(err, store.ErrDamaged) || !errors.Is(err, codec.ErrCorrupt) || !strings.Contains(err.Error(), "mcplogd salvage --data "+filepath.Dir(path)) ||
		!strings.Contains(err.Error(), fmt.Sprintf("record %d is unreadable: #%d..#%d", id, tl.Damaged[0].From, id)) {
		t.Fatalf("reading a record of a damaged block: %v; want ErrDamaged naming record %d, its run, the file and mcplogd salvage", err, id)
	}
	t.Log(err)
}
