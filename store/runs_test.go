package store_test

import (
	"errors"
	"fmt"
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

func runMarker(source string) oplog.Record {
	return oplog.Record{Source: source, Kind: oplog.KindMarker, Name: oplog.MarkerRun, Text: "started"}
}

// TestDB_Runs_ReopenAndNeighbourSources: the current run is found again
// after a restart, past run 255 (the keys' byte order is run order), and
// sources that share a prefix ("a", "ab", "a b") keep their own runs.
func TestDB_Runs_ReopenAndNeighbourSources(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	l := oplog.New(logtest.MustOpenDBAt(t, path, nil), nil)
	batch := []oplog.Record{{Source: "ab", Level: oplog.LevelInfo, Text: "ab-1"}}
	for range 300 {
		batch = append(batch, runMarker("a"))
	}
	logtest.MustAppend(t, l, append(batch, oplog.Record{Source: "a b", Level: oplog.LevelInfo, Text: "a b-1"})...)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	db := logtest.MustOpenDBAt(t, path, nil)
	l = oplog.New(db, nil)
	defer l.Close()
	got := logtest.MustAppend(t, l, oplog.Record{Source: "a", Level: oplog.LevelError, Text: "a"}, runMarker("ab"),
		oplog.Record{Source: "a b", Level: oplog.LevelInfo, Text: "x"}, oplog.Record{Source: "b", Level: oplog.LevelInfo, Text: "y"})
	if s := fmt.Sprint(got[0].Run, got[1].Run, got[2].Run, got[3].Run); s != "300 2 1 1" {
		t.Fatalf("runs after reopening: %s; want 300 2 1 1", s)
	}
	a, err := db.Runs("a")
	if err != nil || len(a) != 300 || a[255].Run != 256 || a[299].Records != 2 || a[299].Errors != 1 || a[299].LastID != got[0].ID {
		t.Fatalf("runs of a: %d, %v; last %+v", len(a), err, a[len(a)-1])
	}
	all, err := db.Runs("")
	if err != nil || len(all) != 300+2+1+1 || all[300].Source != "a b" || all[301].Source != "ab" || all[303].Source != "b" {
		t.Fatalf("runs of every source: %d, %v", len(all), err)
	}
}

// TestDB_Runs_Retention: trimming a run's records leaves its RunInfo as it
// was (Records counts what was appended), and Check still agrees.
func TestDB_Runs_Retention(t *testing.T) {
	l, db := logtest.MustOpenLog(t, &store.Options{MaxRecords: 3, TrimBatch: 100})
	logtest.MustAppend(t, l, logtest.Lines(4, "old")...)
	logtest.MustAppend(t, l, runMarker(oplog.DefaultSource), oplog.Record{Level: oplog.LevelError, Text: "new"})
	logtest.Eventually(t, 10*time.Second, "retention", func() bool { return db.Stats().Records <= 3 })
	runs, err := db.Runs(oplog.DefaultSource)
	if err != nil || len(runs) != 2 || runs[0].Records != 4 || runs[0].FirstID != 1 || runs[1].Records != 2 || runs[1].Errors != 1 {
		t.Fatalf("runs after retention: %+v, %v", runs, err)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestDB_Check_Runs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	logtest.MustAppend(t, l, oplog.Record{Source: "unity", Level: oplog.LevelError, Text: "a"}, runMarker("unity"))
	if err := db.Check(); err != nil {
		t.Fatalf("Check of an untouched store: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	bdb, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = bdb.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(codec.RunsBucket)
		key := codec.RunKey("unity", 1)
		info, err := codec.DecodeRunInfo(key, b.Get(key))
		if err != nil {
			return err
		}
		info.Errors = 0
		if err := b.Put(key, codec.AppendRunInfo(nil, &info)); err != nil {
			return err
		}
		return b.Delete(codec.RunKey("unity", 2))
	})
	if err := errors.Join(err, bdb.Close()); err != nil {
		t.Fatal(err)
	}
	db, err = store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Check()
	if !errors.Is(err, store.ErrInconsistent) || !strings.Contains(err.Error(), "runs unity/1:") || !strings.Contains(err.Error(), "runs unity/2: missing") {
		t.Fatalf("Check of corrupted runs: %v; want ErrInconsistent naming unity/1 and unity/2", err)
	}
}
