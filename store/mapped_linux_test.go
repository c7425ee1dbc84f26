package store_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// Reading every record maps most of the file into the process; after
// ReleaseMapped the mapping holds almost none of it, and every record still
// reads back whole.
func TestDB_ReleaseMapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(t, path, nil)
	l := oplog.New(db, nil)
	defer l.Close()
	const n = 20_000
	recs := make([]oplog.Record, n)
	for i := range recs {
		recs[i] = oplog.Record{Level: oplog.LevelInfo, Source: "game", Name: "test",
			Text: fmt.Sprintf("line %d %s", i, strings.Repeat("x", 150))}
	}
	for i := 0; i < n; i += 1000 {
		logtest.MustAppend(t, l, recs[i:i+1000]...)
	}
	// Sealed in the background once the appends pause: done before measuring.
	waitFor(t, func() bool { l, err := db.Layout(); return err == nil && l.LooseBytes < codec.BlockTarget })
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = recs[i].ID
	}
	readAll := func() {
		t.Helper()
		got, err := db.GetMany(ids)
		if err != nil || len(got) != n {
			t.Fatalf("GetMany: %d records, %v", len(got), err)
		}
		for i, r := range got {
			if r.Text != recs[i].Text {
				t.Fatalf("record %d reads %q, want %q", r.ID, r.Text, recs[i].Text)
			}
		}
	}
	readAll()
	before := mappedKiB(t, path)
	if size := db.Size(); before*1024 < size/2 {
		t.Fatalf("after reading every record, %d KiB of the %d KiB file are mapped; the test needs most of it", before, size/1024)
	}
	if err := db.ReleaseMapped(); err != nil {
		t.Fatal(err)
	}
	after := mappedKiB(t, path)
	if after > before/8 {
		t.Fatalf("ReleaseMapped left %d KiB of %d KiB mapped", after, before)
	}
	readAll() // the loose newest through the mapping again; blocks mostly from the block cache
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.ReleaseMapped(); err != nil {
		t.Fatalf("ReleaseMapped after Close: %v", err)
	}
}

// mappedKiB is the resident size of this process's mappings of path, from
// /proc/self/smaps.
func mappedKiB(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	var kib int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			in = len(fields) >= 6 && fields[5] == path
		case in && len(fields) >= 2 && fields[0] == "Rss:":
			v, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				t.Fatalf("smaps: %q: %v", sc.Text(), err)
			}
			kib += v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return kib
}
