package store_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// fileSize is the size of the file at path.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// appendSealed appends recs in one append and waits until the sealer
// left less than a block loose.
func appendSealed(t *testing.T, db *store.DB, recs []oplog.Record) {
	t.Helper()
	// One append: a sealer that ran between smaller ones would let them
	// reuse the pages it frees, and the file would not be mostly free.
	if err := db.Append(t.Context(), recs); err != nil {
		t.Fatal(err)
	}
	logtest.Eventually(t, time.Minute, "the records sealed", func() bool {
		l, err := db.Layout()
		return err == nil && l.LooseBytes < codec.BlockTarget
	})
}

// maxRev is the highest rev of db's blocks.
func maxRev(t *testing.T, db *store.DB) uint64 {
	t.Helper()
	revs, err := db.BlockRevs()
	if err != nil {
		t.Fatal(err)
	}
	var m uint64
	for _, r := range revs {
		m = max(m, r)
	}
	return m
}

// TestCompact_GivesBackFreePages: once a burst's loose records are sealed,
// the data file is compacted to what it holds; every record reads as
// before, the counters agree (MustCheck at cleanup), the stats go on with
// the next append, a block rewritten after the copy gets a rev above every
// rev before it (the block cache's key), and all of it holds after a
// reopen.
func TestCompact_GivesBackFreePages(t *testing.T) {
	if !store.CompactOnline() {
		t.Skip("the data file is compacted at Open on Windows")
	}
	var copies atomic.Int32
	t.Cleanup(store.SetCompact(1<<20, 64<<20, func() { copies.Add(1) }))
	path := filepath.Join(t.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(t, path, nil)
	want := blockRecords(30_000, 7)
	peak := int64(0) // the largest the file was: the copy may be made while the appends go on
	for i := 0; i < len(want); i += 500 {
		if err := db.Append(t.Context(), want[i:i+500]); err != nil {
			t.Fatal(err)
		}
		peak = max(peak, fileSize(t, path))
	}
	logtest.Eventually(t, time.Minute, "the file compacted", func() bool { return copies.Load() == 1 })
	logtest.Eventually(t, time.Minute, "the compacted file in use", func() bool { return db.Size() < peak/2 })
	if got := fileSize(t, path); got >= peak/2 {
		t.Fatalf("the data file takes %d bytes after compacting, %d at its peak", got, peak)
	}
	if _, err := os.Stat(path + ".compacting"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the copy's name is still there: %v", err)
	}
	l, err := db.Layout()
	if err != nil || l.SealedRecords+l.LooseRecords != uint64(len(want)) || l.FreeBytes > l.FileBytes/4 {
		t.Fatalf("layout after compacting: %+v, %v", l, err)
	}
	if got := readAll(t, db); !reflect.DeepEqual(got, want) {
		t.Fatalf("after compacting: %d records, want %d (first differing: %v)", len(got), len(want), firstDiff(got, want))
	}

	before := maxRev(t, db)
	more := blockRecords(10, 8)
	if err := db.Append(t.Context(), more); err != nil {
		t.Fatal(err)
	}
	if s := db.Stats(); s.LastID != more[9].ID || s.Records != uint64(len(want)+10) {
		t.Fatalf("stats after an append to the compacted file: %+v; want last ID %d", s, more[9].ID)
	}
	op := &want[len(want)/3] // pending, in a block
	done, err := db.Complete(t.Context(), op.ID, oplog.Completion{Status: oplog.StatusSuccess, EndTime: op.Time.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	*op = done
	if after := maxRev(t, db); after <= before {
		t.Fatalf("a block rewritten after compacting has rev %d, not above the %d before", after, before)
	}
	want = append(want, more...)
	if got := readAll(t, db); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the completion: first differing %v", firstDiff(got, want))
	}
	logtest.MustCheck(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	again := logtest.MustOpenDBAt(t, path, nil)
	if got := readAll(t, again); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a reopen: first differing %v", firstDiff(got, want))
	}
	op2 := &want[len(want)/3+1]
	if _, err := again.Complete(t.Context(), op2.ID, oplog.Completion{Status: oplog.StatusError}); err == nil {
		t.Fatalf("completed %d, which is not an operation", op2.ID)
	}
	more2 := blockRecords(3, 9)
	more2[1] = oplog.Record{Kind: oplog.KindOp, Tool: "run_script", Status: oplog.StatusPending, Text: "x", Time: more2[0].Time}
	if err := again.Append(t.Context(), more2); err != nil {
		t.Fatal(err)
	}
	if s := again.Stats(); s.LastID != more2[2].ID {
		t.Fatalf("stats after an append once reopened: %+v", s)
	}
}

// TestCompact_ReadsGoOnAppendsWait: while the copy is made and takes the
// data file's name, reads answer from the old file and then the new one
// without an error, and an append waits for the copy and lands in the new
// file (none is written into the old file after its copy). Another Open of
// the path finds it locked throughout, and leaves the copy alone.
func TestCompact_ReadsGoOnAppendsWait(t *testing.T) {
	if !store.CompactOnline() {
		t.Skip("the data file is compacted at Open on Windows")
	}
	copied, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(store.SetCompact(1<<20, 64<<20, func() { close(copied); <-release }))
	path := filepath.Join(t.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(t, path, nil)
	want := blockRecords(30_000, 11)
	appendSealed(t, db, want)
	select {
	case <-copied:
	case <-time.After(time.Minute):
		t.Fatal("no compaction within a minute")
	}

	var reads atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := g; ; i += 997 {
				select {
				case <-stop:
					return
				default:
				}
				r, err := db.Get(want[i%len(want)].ID)
				if err != nil || r.Text != want[i%len(want)].Text {
					t.Errorf("read %d during the compaction: %q, %v", want[i%len(want)].ID, r.Text, err)
					return
				}
				reads.Add(1)
			}
		})
	}
	late := blockRecords(5, 12)
	appended := make(chan error, 1)
	go func() { appended <- db.Append(t.Context(), late) }()
	logtest.Eventually(t, time.Minute, "reads during the copy", func() bool { return reads.Load() > 100 })
	select {
	case err := <-appended:
		close(release)
		t.Fatalf("an append committed while the copy was being made: %v", err)
	default:
	}
	// Another process finds the data file locked, and its copy left alone.
	if other, err := store.Open(path, &store.Options{Timeout: 50 * time.Millisecond}); !errors.Is(err, store.ErrLocked) {
		if err == nil {
			other.Close()
		}
		close(release)
		t.Fatalf("a second Open during the copy: %v; want ErrLocked", err)
	}
	if _, err := os.Stat(path + ".compacting"); err != nil {
		close(release)
		t.Fatalf("the copy, after a second Open: %v", err)
	}
	close(release)
	if err := <-appended; err != nil {
		t.Fatal(err)
	}
	if other, err := store.Open(path, &store.Options{Timeout: 50 * time.Millisecond}); !errors.Is(err, store.ErrLocked) {
		if err == nil {
			other.Close()
		}
		t.Fatalf("a second Open once the copy took the name: %v; want ErrLocked", err)
	}
	n := reads.Load()
	logtest.Eventually(t, time.Minute, "reads after the swap", func() bool { return reads.Load() > n+100 })
	close(stop)
	wg.Wait()
	want = append(want, late...)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	again := logtest.MustOpenDBAt(t, path, nil)
	if got := readAll(t, again); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the compaction and a reopen: %d records, want %d (first differing: %v)", len(got), len(want), firstDiff(got, want))
	}
}

// TestCompact_UnfinishedCopyIsRemoved: a copy left by a compaction killed
// before its rename is removed at the next Open, and the data file reads
// as it was.
func TestCompact_UnfinishedCopyIsRemoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(t, path, nil)
	want := blockRecords(100, 13)
	if err := db.Append(t.Context(), want); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".compacting", []byte("half a copy"), 0o600); err != nil {
		t.Fatal(err)
	}
	again := logtest.MustOpenDBAt(t, path, nil)
	if _, err := os.Stat(path + ".compacting"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the unfinished copy is still there: %v", err)
	}
	if got := readAll(t, again); !reflect.DeepEqual(got, want) {
		t.Fatalf("first differing: %v", firstDiff(got, want))
	}
}

const compactChildEnv = "MCPLOGD_COMPACT_CHILD"

// TestCompactChild is the child of TestCompact_Killed: it appends
// $MCPLOGD_COMPACT_RECORDS records to the store at $MCPLOGD_COMPACT_CHILD
// (more each round, so that most of the file is free pages once they are
// sealed), printing "acked ID text" for the last record of each
// acknowledged batch, then waits for the next compaction, whose hook
// prints "copied" and, with MCPLOGD_COMPACT_BLOCK=true, waits to be killed
// before the rename. A compaction before its appends end (at start, of the
// file the last kill left mostly free) goes through.
func TestCompactChild(t *testing.T) {
	path := os.Getenv(compactChildEnv)
	if path == "" {
		t.Skip("run by TestCompact_Killed")
	}
	block := os.Getenv("MCPLOGD_COMPACT_BLOCK") == "true"
	var appended atomic.Bool // a compaction before (at start, of the file the last kill left) goes through
	copied := make(chan struct{})
	var once sync.Once
	store.SetCompact(1<<20, 64<<20, func() {
		if !appended.Load() {
			return
		}
		os.Stdout.WriteString("copied\n")
		once.Do(func() { close(copied) })
		if block {
			select {}
		}
	})
	db, err := store.Open(path, nil)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	n, err := strconv.Atoi(os.Getenv("MCPLOGD_COMPACT_RECORDS"))
	if err != nil {
		fmt.Println("records:", err)
		os.Exit(3)
	}
	recs := blockRecords(n, uint64(time.Now().UnixNano()))
	for i := 0; i < len(recs); i += 500 {
		if err := db.Append(context.Background(), recs[i:i+500]); err != nil {
			fmt.Println("append:", err)
			os.Exit(3)
		}
		fmt.Printf("acked %d %s\n", recs[i+499].ID, recs[i+499].Text)
	}
	appended.Store(true)
	select {
	case <-copied: // the store compacts by itself once appends are quiet
	case <-time.After(10 * time.Second):
		// It compacted while the appends paused (a loaded machine), and
		// what came after leaves too few free pages for another: compact
		// now, which the parent kills as well.
		if err := db.Compact(); err != nil {
			fmt.Println("compact:", err)
			os.Exit(3)
		}
	}
	select {}
}

// TestCompact_Killed kills, with SIGKILL, a child whose store is
// compacting: waiting before the copy takes the data file's name, and
// right as the copy is synced (around the rename). After each kill every
// acknowledged record reads back, the counters agree, no copy is left
// beside the data file, and the next round appends after the last ID.
func TestCompact_Killed(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	if !store.CompactOnline() {
		t.Skip("the data file is compacted at Open on Windows")
	}
	path := filepath.Join(t.TempDir(), "log.db")
	acked := map[uint64]string{}
	var last uint64
	for round, block := range []bool{true, false, true, false} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCompactChild$", "-test.v=false")
		cmd.Env = append(os.Environ(), compactChildEnv+"="+path, fmt.Sprintf("MCPLOGD_COMPACT_BLOCK=%t", block),
			fmt.Sprintf("MCPLOGD_COMPACT_RECORDS=%d", 15_000<<round))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killed := false
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if line == "copied" {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				killed = true
				continue
			}
			var id uint64
			var text string
			if _, err := fmt.Sscanf(line, "acked %d", &id); err != nil {
				t.Fatalf("round %d: child said %q", round, line)
			}
			text = strings.SplitN(line, " ", 3)[2]
			if id <= last {
				t.Fatalf("round %d: ID %d acknowledged after %d", round, id, last)
			}
			acked[id], last = text, id
		}
		_ = cmd.Wait()
		if !killed {
			t.Fatalf("round %d: the child ended without compacting", round)
		}
		db := logtest.MustOpenDBAt(t, path, nil)
		if _, err := os.Stat(path + ".compacting"); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("round %d: the copy is still beside the data file: %v", round, err)
		}
		for id, text := range acked {
			if r, err := db.Get(id); err != nil || r.Text != text {
				t.Fatalf("round %d: acknowledged record %d: %q, %v; want %q", round, id, r.Text, err, text)
			}
		}
		if s := db.Stats(); s.LastID != last || s.Records != last {
			t.Fatalf("round %d: stats %+v; want every record up to %d", round, s, last)
		}
		logtest.MustCheck(t, db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d (waiting before the rename: %v): %d records, file %d bytes", round, block, last, fileSize(t, path))
	}
}

// TestCompact_LongReadHoldsNoAppend: a read transaction still open on the
// old file when the copy takes its name delays only the old file's close:
// appends go on into the new file meanwhile.
func TestCompact_LongReadHoldsNoAppend(t *testing.T) {
	if !store.CompactOnline() {
		t.Skip("the data file is compacted at Open on Windows")
	}
	copied := make(chan struct{})
	t.Cleanup(store.SetCompact(16<<20, 64<<20, func() { close(copied) }))
	db := logtest.MustOpenDB(t, nil)
	want := blockRecords(1000, 14)
	if err := db.Append(t.Context(), want); err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() { held <- db.HoldView(started, release) }()
	<-started
	compacted := make(chan error, 1)
	go func() { compacted <- db.Compact() }()
	<-copied
	late := blockRecords(5, 15)
	appended := make(chan error, 1)
	go func() { appended <- db.Append(t.Context(), late) }()
	select {
	case err := <-appended:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		close(release)
		t.Fatal("an append waited a minute for a read on the old file")
	}
	select {
	case err := <-compacted:
		t.Fatalf("the compaction returned (%v) with a read still open on the old file", err)
	default:
	}
	close(release)
	if err := errors.Join(<-held, <-compacted); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, db); !reflect.DeepEqual(got, append(want, late...)) {
		t.Fatalf("first differing: %v", firstDiff(got, append(want, late...)))
	}
}

// TestCompact_AtOpen: where the data file is compacted at Open (Windows;
// here too with online compaction off), a file that is mostly free pages
// is compacted when it is opened: every record reads as before, the
// counters agree (MustCheck at cleanup), appends and a completion go on
// with revs above every rev before.
func TestCompact_AtOpen(t *testing.T) {
	t.Cleanup(store.SetCompactOnline(false))
	t.Cleanup(store.SetCompact(1<<20, 64<<20, nil))
	path := filepath.Join(t.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(t, path, nil)
	want := blockRecords(30_000, 16)
	appendSealed(t, db, want)
	before := maxRev(t, db)
	// bbolt counts the freed pages when the sealing transaction closes,
	// after its meta page is written: a read can see the records sealed
	// a moment before their pages are counted free.
	size := db.Size()
	logtest.Eventually(t, time.Minute, "more than half the file free once sealed", func() bool {
		return db.FreeBytes() >= size/2
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	again := logtest.MustOpenDBAt(t, path, nil)
	if got := again.Size(); got >= size/2 {
		t.Fatalf("the file takes %d bytes after a reopen, %d before", got, size)
	}
	if got := fileSize(t, path); got >= size/2 {
		t.Fatalf("the file takes %d bytes on disk after a reopen, %d before", got, size)
	}
	if got := readAll(t, again); !reflect.DeepEqual(got, want) {
		t.Fatalf("after compacting at Open: first differing %v", firstDiff(got, want))
	}
	op := &want[len(want)/3]
	done, err := again.Complete(t.Context(), op.ID, oplog.Completion{Status: oplog.StatusSuccess, EndTime: op.Time.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	*op = done
	if after := maxRev(t, again); after <= before {
		t.Fatalf("a block rewritten after compacting has rev %d, not above the %d before", after, before)
	}
	more := blockRecords(10, 17)
	if err := again.Append(t.Context(), more); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, again); !reflect.DeepEqual(got, append(want, more...)) {
		t.Fatalf("after an append: first differing %v", firstDiff(got, append(want, more...)))
	}
}

// TestCompact_FullDisk: a copy that finds the disk full fails with that
// error, leaves no copy behind and the data file as it was; appends go on
// once there is room, and a compaction then succeeds.
func TestCompact_FullDisk(t *testing.T) {
	if !store.CompactOnline() {
		t.Skip("the data file is compacted at Open on Windows")
	}
	t.Cleanup(store.SetCompact(1<<40, 64<<20, nil)) // only the test's Compact
	dir := logtest.MountTmpfs(t, 24<<20)
	path := filepath.Join(dir, "log.db")
	db := logtest.MustOpenDBAt(t, path, nil)
	want := blockRecords(30_000, 18)
	appendSealed(t, db, want)
	size := fileSize(t, path)
	// No room at all (the copy's file cannot be made), and a little (the
	// copy fails halfway: the records' blocks take ~1 MB).
	for _, room := range []int64{0, 256 << 10} {
		filler := logtest.FillDisk(t, dir)
		if err := os.Truncate(filler, max(fileSize(t, filler)-room, 0)); err != nil {
			t.Fatal(err)
		}
		err := db.Compact()
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("a compaction with %d bytes of room: %v; want ENOSPC", room, err)
		}
		if _, err := os.Stat(path + ".compacting"); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the failed copy (%d bytes of room) is still there: %v", room, err)
		}
		if got := fileSize(t, path); got != size {
			t.Fatalf("the data file takes %d bytes after the failed copy, %d before", got, size)
		}
		if got := readAll(t, db); !reflect.DeepEqual(got, want) {
			t.Fatalf("after the failed copy: first differing %v", firstDiff(got, want))
		}
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
	}
	more := blockRecords(10, 19)
	if err := db.Append(t.Context(), more); err != nil {
		t.Fatal(err)
	}
	if err := db.Compact(); err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, path); got >= size/2 {
		t.Fatalf("the data file takes %d bytes once compacted, %d before", got, size)
	}
	if got := readAll(t, db); !reflect.DeepEqual(got, append(want, more...)) {
		t.Fatalf("after compacting: first differing %v", firstDiff(got, append(want, more...)))
	}
}
