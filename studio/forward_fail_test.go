package studio_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
	"github.com/mcplogd/mcplogd/studio"
)

// exactlyOnce checks that VictoriaLogs holds every record of l once as
// machine m's rows, with its text, and seqs 1..n without a gap.
func exactlyOnce(t *testing.T, v *vltest.VL, l *oplog.Log, m string) {
	t.Helper()
	got := rows(t, v, m)
	st := l.Stats()
	byID := map[uint64]int{}
	for i, r := range got {
		if seq := num(t, r["seq"]); seq != uint64(i+1) {
			t.Fatalf("row %d has seq %d: seqs have a gap or a repeat", i, seq)
		}
		byID[num(t, r["id"])]++
	}
	if uint64(len(got)) != st.Records || uint64(len(byID)) != st.Records {
		t.Fatalf("%d rows of %d IDs in VictoriaLogs, want the %d records once each", len(got), len(byID), st.Records)
	}
	tail, err := l.Tail(context.Background(), oplog.TailQuery{HasSince: true, Limit: oplog.MaxTailLimit})
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for _, r := range got {
		texts[r["id"]] = r["_msg"]
	}
	for {
		for _, r := range tail.Lines {
			if id := fmt.Sprint(r.ID); texts[id] != r.Text {
				t.Fatalf("record %d: VictoriaLogs has %q, the log %q", r.ID, texts[id], r.Text)
			}
		}
		if !tail.More {
			break
		}
		if tail, err = l.Tail(context.Background(), oplog.TailQuery{SinceID: tail.LastID, HasSince: true, Limit: oplog.MaxTailLimit}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestForward_Unreachable(t *testing.T) {
	v := vltest.Start(t)
	v.Stop()
	l, _ := logtest.MustOpenLog(t, nil)
	f := forward(t, l, v.URL, "m1")
	for i := range 3 {
		logtest.MustAppend(t, l, logtest.Lines(1000, fmt.Sprintf("down-%d", i))...)
	}
	logtest.Eventually(t, 10*time.Second, "the forwarder to say VictoriaLogs is unreachable", func() bool {
		s := f.Status()
		return s.State == oplog.StudioUnreachable && s.LastError != "" && s.LagRecords == 3000 && s.LagSeconds > 0
	})
	if s := f.Status(); !strings.Contains(s.LastError, v.URL) {
		t.Errorf("last error %q does not name %s", s.LastError, v.URL)
	}
	v.Restart(t)
	logtest.MustAppend(t, l, logtest.Lines(500, "back")...)
	s := caughtUp(t, f, l, 60*time.Second)
	if s.State != oplog.StudioUpToDate || s.Seq != 3500 {
		t.Errorf("after VictoriaLogs came back: %+v", s)
	}
	exactlyOnce(t, v, l, "m1")
}

func TestForward_StorageNodeRestart(t *testing.T) {
	v := vltest.StartCluster(t, 2)
	l, _ := logtest.MustOpenLog(t, nil)
	f := forward(t, l, v.URL, "m1")
	const batches = 30
	for i := range batches {
		recs := logtest.MustAppend(t, l, logtest.Lines(500, fmt.Sprintf("b%d", i))...)
		// Ingest goes on while rows are sent: each batch once the one before is acknowledged.
		last := recs[len(recs)-1].ID - 500
		logtest.Eventually(t, 30*time.Second, "the batch before acknowledged", func() bool { return f.Status().ForwardedID >= last })
		switch i {
		case 8:
			// Once some rows are acknowledged: a storage node dies with what it has not written.
			logtest.Eventually(t, 30*time.Second, "some rows acknowledged", func() bool { return f.Status().Seq > 2000 })
			v.Storage[0].Kill()
		case 20:
			v.Storage[0].Start(t)
		}
	}
	s := caughtUp(t, f, l, 90*time.Second)
	t.Logf("status after the storage node came back: %+v", s)
	exactlyOnce(t, v, l, "m1")
}

func TestForward_VictoriaLogsLosesAcknowledgedRows(t *testing.T) {
	// Rows stay in memory until a kill -9 loses them, after their 2xx.
	v := vltest.Start(t, "-inmemoryDataFlushInterval=1h")
	l, _ := logtest.MustOpenLog(t, nil)
	f := forward(t, l, v.URL, "m1")
	logtest.MustAppend(t, l, logtest.Lines(2000, "kept")...)
	caughtUp(t, f, l, 30*time.Second)
	v.Stop() // a graceful stop writes the first 2,000 to disk
	v.Restart(t)
	logtest.MustAppend(t, l, logtest.Lines(2000, "lost")...)
	logtest.Eventually(t, 30*time.Second, "the second 2,000 rows acknowledged", func() bool { return f.Status().Seq == 4000 })
	v.Front.Kill() // within Settle of the acknowledgement: not reconciled yet
	v.Restart(t)
	s := caughtUp(t, f, l, 60*time.Second)
	if s.Resent == 0 || s.Resent > 2000 {
		t.Errorf("resent %d rows; want the lost ones, at most 2,000", s.Resent)
	}
	exactlyOnce(t, v, l, "m1")
}

func TestForward_DiskLimitCountsLost(t *testing.T) {
	v := vltest.Start(t)
	v.Stop()
	var fw atomic.Pointer[studio.Forwarder] // the store opens first: it holds everything until then
	hold := func() uint64 {
		if f := fw.Load(); f != nil {
			return f.Hold()
		}
		return 0
	}
	l, db := logtest.MustOpenLog(t, &store.Options{MaxBytes: 20_000, Hold: hold})
	f := forward(t, l, v.URL, "m1")
	fw.Store(f)
	for range 20 {
		logtest.MustAppend(t, l, logtest.Lines(100, "full")...)
	}
	logtest.Eventually(t, 10*time.Second, "the disk limit to trim unsent records", func() bool { return db.Stats().Trimmed > 0 })
	v.Restart(t)
	s := caughtUp(t, f, l, 30*time.Second)
	if s.Lost == 0 || s.Seq+s.Lost != 2000 {
		t.Fatalf("lost %d, sent %d; want records lost to the disk limit counted, lost+sent = 2000", s.Lost, s.Seq)
	}
}

// TestForward_TooOld: a record older than VictoriaLogs' retention (which
// would drop it) is counted and not sent; the others go.
func TestForward_TooOld(t *testing.T) {
	v := vltest.Start(t)
	l, _ := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l,
		oplog.Record{Source: "game", Level: oplog.LevelInfo, Text: "older than the retention", Time: time.Now().Add(-90 * time.Minute)},
		oplog.Record{Source: "game", Level: oplog.LevelInfo, Text: "now"})
	f, err := studio.Forward(l, studio.ForwardOptions{URL: v.URL, Project: "game", Machine: "m1", Retention: 2 * time.Hour,
		StatePath: filepath.Join(t.TempDir(), "studio-forward.json"), Settle: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := caughtUp(t, f, l, 30*time.Second)
	if s.TooOld != 1 || s.Seq != 1 {
		t.Fatalf("too old %d, sent %d; want 1 and 1", s.TooOld, s.Seq)
	}
	if got := rows(t, v, "m1"); len(got) != 1 || got[0]["_msg"] != "now" {
		t.Fatalf("rows %v; want only the recent record", got)
	}
}

// TestForward_StateFileLost: a forwarder without its state file continues
// after the rows VictoriaLogs holds, rather than sending them twice.
func TestForward_StateFileLost(t *testing.T) {
	v := vltest.Start(t)
	l, _ := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l, logtest.Lines(1000, "before")...)
	state := filepath.Join(t.TempDir(), "studio-forward.json")
	opts := studio.ForwardOptions{URL: v.URL, Project: "game", Machine: "m1", StatePath: state, Settle: time.Second}
	f, err := studio.Forward(l, opts)
	if err != nil {
		t.Fatal(err)
	}
	caughtUp(t, f, l, 30*time.Second)
	f.Close()
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	v.ForceFlush(t)
	if f, err = studio.Forward(l, opts); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logtest.MustAppend(t, l, logtest.Lines(100, "after")...)
	if s := caughtUp(t, f, l, 30*time.Second); s.Seq != 1100 {
		t.Fatalf("seq %d after the state file was lost, want 1100", s.Seq)
	}
	exactlyOnce(t, v, l, "m1")
}

// TestForward_RetentionWaitsForForwarding: --max-records does not trim
// records that were not forwarded yet; once they are, it does.
func TestForward_RetentionWaitsForForwarding(t *testing.T) {
	v := vltest.Start(t)
	v.Stop()
	var fw atomic.Pointer[studio.Forwarder]
	var asked atomic.Int64 // retention asks for the hold each time it would trim
	hold := func() uint64 {
		asked.Add(1)
		if f := fw.Load(); f != nil {
			return f.Hold()
		}
		return 0
	}
	l, db := logtest.MustOpenLog(t, &store.Options{MaxRecords: 100, Hold: hold})
	f := forward(t, l, v.URL, "m1")
	fw.Store(f)
	for range 10 {
		logtest.MustAppend(t, l, logtest.Lines(100, "held")...)
	}
	logtest.Eventually(t, 10*time.Second, "the forwarder to find VictoriaLogs down", func() bool { return f.Status().State == oplog.StudioUnreachable })
	for range 2 { // a commit over the limit wakes retention; its second pass starts after the first committed
		n := asked.Load()
		logtest.MustAppend(t, l, logtest.Lines(1, "kick")...)
		logtest.Eventually(t, 10*time.Second, "retention to run", func() bool { return asked.Load() > n })
	}
	if st := db.Stats(); st.Trimmed != 0 || st.Records != 1002 {
		t.Fatalf("retention trimmed %d records not forwarded yet (%d kept)", st.Trimmed, st.Records)
	}
	v.Restart(t)
	caughtUp(t, f, l, 30*time.Second)
	logtest.MustAppend(t, l, logtest.Lines(1, "kick")...)
	logtest.Eventually(t, 10*time.Second, "retention to trim what was forwarded", func() bool { return db.Stats().Records <= 100 })
	if s := f.Status(); s.Lost != 0 {
		t.Errorf("lost %d", s.Lost)
	}
}
