package store_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/store"
)

// TestCompact_FullDiskThenRoom: a store whose compaction met a full disk
// compacts once room is made, with no append to wake it; every record
// reads as before.
func TestCompact_FullDiskThenRoom(t *testing.T) {
	if !store.CompactOnline() {
		t.Skip("the data file is compacted at Open on Windows")
	}
	dir := logtest.MountTmpfs(t, 24<<20)
	path := filepath.Join(dir, "log.db")
	restore := store.SetCompact(1<<40, 64<<20, nil) // none while the records are written
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := blockRecords(30_000, 21)
	appendSealed(t, db, want)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	restore()
	size := fileSize(t, path)

	var copies atomic.Int32
	t.Cleanup(store.SetCompact(1<<20, 64<<20, func() { copies.Add(1) }))
	t.Cleanup(store.SetRoomPoll(20 * time.Millisecond))
	filler := logtest.FillDisk(t, dir)
	logs := &logtest.Buffer{}
	db = logtest.MustOpenDBAt(t, path, &store.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	logtest.Eventually(t, time.Minute, "the compaction to meet the full disk", func() bool {
		return strings.Contains(logs.String(), "compacting the data file failed")
	})
	if copies.Load() != 0 || fileSize(t, path) != size {
		t.Fatalf("on the full disk: %d copies, the file %d bytes (%d before)", copies.Load(), fileSize(t, path), size)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	logtest.Eventually(t, time.Minute, "the file compacted once there is room", func() bool {
		return copies.Load() == 1 && db.Size() < size/2
	})
	if got := readAll(t, db); !reflect.DeepEqual(got, want) {
		t.Fatalf("after compacting: first differing %v", firstDiff(got, want))
	}
}
