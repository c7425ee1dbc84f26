package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

var ctx = context.Background()

func TestDB_Reopen_KeepsRecordsAndStats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	db := logtest.MustOpenDBAt(t, path, nil)
	l := oplog.New(db, nil)
	logtest.MustAppend(t, l, logtest.Lines(10, "a")...)
	op := logtest.MustAppend(t, l, oplog.Record{Tool: "run_lua", Arguments: json.RawMessage(`{"code":"return 1"}`)})
	before := db.Stats()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	db = logtest.MustOpenDBAt(t, path, nil)
	if after := db.Stats(); after != before {
		t.Fatalf("stats after reopen %+v, before %+v", after, before)
	}
	l = oplog.New(db, nil)
	got, err := l.Get(ctx, op[0].ID)
	if err != nil || got.Tool != "run_lua" || got.Status != oplog.StatusPending || string(got.Arguments) != `{"code":"return 1"}` {
		t.Fatalf("op after reopen: %+v, %v", got, err)
	}
	next := logtest.MustAppend(t, l, logtest.Lines(1, "b")...)
	if next[0].ID != before.LastID+1 {
		t.Fatalf("ID after reopen %d, want %d", next[0].ID, before.LastID+1)
	}
}

func TestDB_Open_Locked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	logtest.MustOpenDBAt(t, path, nil)
	start := time.Now()
	_, err := store.Open(path, &store.Options{Timeout: 200 * time.Millisecond})
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second open: %v; want ErrLocked", err)
	}
	if !containsAll(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("second open took %s: it should fail fast", d)
	}
}

func TestDB_Retention_ShowsAsDropped(t *testing.T) {
	l, db := logtest.MustOpenLog(t, &store.Options{MaxRecords: 100, TrimBatch: 30})
	for range 10 {
		logtest.MustAppend(t, l, logtest.Lines(100, "r")...)
	}
	logtest.Eventually(t, 10*time.Second, "retention to trim to 100 records", func() bool { return db.Stats().Records <= 100 })
	s := db.Stats()
	if s.Trimmed != 900 || s.TrimmedThrough != 900 || s.FirstID != 901 || s.Records != 100 {
		t.Fatalf("stats after retention %+v", s)
	}
	tail, err := l.Tail(ctx, oplog.TailQuery{SinceID: 500, HasSince: true, Limit: 1000})
	if err != nil || tail.Dropped != 400 || len(tail.Lines) != 100 || tail.Lines[0].ID != 901 || tail.Reset {
		t.Fatalf("tail from 500: dropped %d, %d lines, first %v, err %v; want dropped 400", tail.Dropped, len(tail.Lines), tail.Lines[0].ID, err)
	}
	tail, _ = l.Tail(ctx, oplog.TailQuery{SinceID: 950, HasSince: true})
	if tail.Dropped != 0 || len(tail.Lines) != 50 {
		t.Fatalf("tail from 950: %+v", tail)
	}
	if _, err := l.Get(ctx, 10); oplog.ErrorCode(err) != oplog.ENOTFOUND || !containsAll(err.Error(), "retention") {
		t.Fatalf("get trimmed record: %v", err)
	}
}

func TestDB_Retention_ByBytesAndAge(t *testing.T) {
	t.Run("Bytes", func(t *testing.T) {
		l, db := logtest.MustOpenLog(t, &store.Options{MaxBytes: 10_000})
		for range 20 {
			logtest.MustAppend(t, l, logtest.Lines(50, "bytes")...)
		}
		logtest.Eventually(t, 10*time.Second, "retention by bytes", func() bool { return db.Stats().Bytes <= 10_000 })
		if s := db.Stats(); s.Records == 0 || s.Trimmed == 0 || s.Trimmed+s.Records != 1000 {
			t.Fatalf("stats %+v", s)
		}
	})
	t.Run("Age", func(t *testing.T) {
		var mu sync.Mutex
		now := time.Now()
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		l, db := logtest.MustOpenLog(t, &store.Options{MaxAge: time.Hour, RetentionInterval: 10 * time.Millisecond, Now: clock})
		old := logtest.Lines(10, "old")
		for i := range old {
			old[i].Time = now.Add(-2 * time.Hour)
		}
		logtest.MustAppend(t, l, old...)
		logtest.MustAppend(t, l, logtest.Lines(5, "new")...)
		logtest.Eventually(t, 10*time.Second, "retention by age", func() bool { return db.Stats().Records == 5 })
		mu.Lock()
		now = now.Add(3 * time.Hour)
		mu.Unlock()
		logtest.Eventually(t, 10*time.Second, "retention of everything", func() bool { return db.Stats().Records == 0 })
		if s := db.Stats(); s.FirstID != 0 || s.LastID != 15 || s.Trimmed != 15 {
			t.Fatalf("stats %+v", s)
		}
		next := logtest.MustAppend(t, l, logtest.Lines(1, "after")...)
		if next[0].ID != 16 {
			t.Fatalf("ID after trimming everything: %d; IDs must never be reused", next[0].ID)
		}
	})
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func TestDB_Names(t *testing.T) {
	l, db := logtest.MustOpenLog(t, &store.Options{MaxRecords: 6, TrimBatch: 100})
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	logtest.MustAppend(t, l,
		oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "Player", Text: "a", Time: t0},
		oplog.Record{Level: oplog.LevelError, Source: "unity", Name: "Player", Text: "b", Time: t0.Add(time.Minute)},
		oplog.Record{Level: oplog.LevelWarn, Source: "tecs", Name: "Player", Text: "c", Time: t0.Add(2 * time.Minute)},
		oplog.Record{Tool: "run_lua", Source: "tecs", Time: t0.Add(3 * time.Minute)},
	)
	names, err := l.Names(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(len(names))
	for _, n := range names {
		got += fmt.Sprintf(" %s/%s:%d", n.Source, n.Name, n.Total)
	}
	if got != "3 tecs/Player:1 tecs/run_lua:1 unity/Player:2" {
		t.Fatalf("names: %s", got)
	}
	unity, _ := l.Names(ctx, "unity")
	if len(unity) != 1 || unity[0].Counts[oplog.KindLine][oplog.LevelError] != 1 || unity[0].Count(0, oplog.LevelWarn) != 1 ||
		!unity[0].FirstSeen.Equal(t0) || !unity[0].LastSeen.Equal(t0.Add(time.Minute)) {
		t.Fatalf("unity names: %+v", unity)
	}
	p, err := l.List(ctx, oplog.Query{Filter: oplog.Filter{Name: "Player", MinLevel: oplog.LevelWarn}})
	if err != nil || p.Total != 2 {
		t.Fatalf("total of Player at warn and above: %d, %v", p.Total, err)
	}
	// Completing the op moves its count to the error level.
	if _, err := l.Complete(ctx, 4, oplog.Completion{Error: "x"}); err != nil {
		t.Fatal(err)
	}
	tecs, _ := l.Names(ctx, "tecs")
	if tecs[1].Name != "run_lua" || tecs[1].Counts[oplog.KindOp][oplog.LevelError] != 1 || tecs[1].Counts[oplog.KindOp][oplog.LevelInfo] != 0 {
		t.Fatalf("run_lua after completion: %+v", tecs[1])
	}
	// Retention takes trimmed records out of the counts, and names with none left go.
	logtest.MustAppend(t, l, logtest.Lines(6, "new")...)
	logtest.Eventually(t, 10*time.Second, "retention", func() bool { return db.Stats().Records <= 6 })
	names, _ = l.Names(ctx, "")
	if len(names) != 1 || names[0].Name != "test" || names[0].Total != 6 {
		t.Fatalf("names after retention: %+v", names)
	}
}
