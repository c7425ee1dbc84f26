package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// Positions survive a reopen, retention that trims every record written
// with them, and Clear.
func TestDB_Positions_SurviveReopenRetentionAndClear(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	opts := &store.Options{MaxRecords: 50, TrimBatch: 20}
	db := logtest.MustOpenDBAt(t, path, opts)
	l := oplog.New(db, nil)
	if err := l.AppendAt(ctx, logtest.Lines(10, "a"), oplog.Position{Key: "follow\x00game\x00/a.log", Value: []byte(`{"offset":10}`)}); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		logtest.MustAppend(t, l, logtest.Lines(100, "other")...)
	}
	logtest.Eventually(t, 10*time.Second, "retention to trim to 50 records", func() bool { return db.Stats().Records <= 50 })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	db = logtest.MustOpenDBAt(t, path, opts)
	l = oplog.New(db, nil)
	defer l.Close()
	v, err := l.Position(ctx, "follow\x00game\x00/a.log")
	if err != nil || string(v) != `{"offset":10}` {
		t.Fatalf("position after retention and reopen: %q, %v", v, err)
	}
	if _, err := l.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := l.Position(ctx, "follow\x00game\x00/a.log"); err != nil || string(v) != `{"offset":10}` {
		t.Fatalf("position after Clear: %q, %v", v, err)
	}
	if v, err := l.Position(ctx, "follow\x00game\x00/b.log"); err != nil || v != nil {
		t.Fatalf("position never written: %q, %v; want nil", v, err)
	}
}
