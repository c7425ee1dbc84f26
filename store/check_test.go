package store_test

import (
	"errors"
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

// TestDB_Names_1972KeepsItsDate appends records dated 1972, whose Unix
// nanoseconds look like microseconds to a unit-guessing conversion, and
// checks that the name's first and last seen stay in 1972.
func TestDB_Names_1972KeepsItsDate(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	d1972 := time.Date(1972, 6, 1, 0, 0, 0, 0, time.UTC)
	logtest.MustAppend(t, l,
		oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "old", Text: "a", Time: d1972},
		oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "old", Text: "b", Time: d1972.Add(time.Hour)},
	)
	names, err := l.Names(ctx, "unity")
	if err != nil || len(names) != 1 || !names[0].FirstSeen.Equal(d1972) || !names[0].LastSeen.Equal(d1972.Add(time.Hour)) {
		t.Fatalf("names: %+v, %v; want first seen %s, last seen %s", names, err, d1972, d1972.Add(time.Hour))
	}
}

func TestDB_Check(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	logtest.MustAppend(t, l, logtest.Lines(5, "a")...)
	logtest.MustAppend(t, l, oplog.Record{Level: oplog.LevelError, Source: "unity", Name: "Player", Text: "b"})
	op := logtest.MustAppend(t, l, oplog.Record{Tool: "run_lua", Source: "unity"})[0]
	if _, err := l.Complete(ctx, op.ID, oplog.Completion{Error: "x"}); err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		if err := db.Check(); err != nil {
			t.Fatalf("Check of an untouched store: %v", err)
		}
	})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	// Corrupt a name's count and the stats' record count behind the store's back.
	bdb, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = bdb.Update(func(tx *bbolt.Tx) error {
		key := codec.NameKey("unity", "Player")
		n, err := codec.DecodeNameInfo(key, tx.Bucket(codec.NamesBucket).Get(key))
		if err != nil {
			return err
		}
		n.Counts[oplog.KindLine][oplog.LevelError] = 7
		if err := tx.Bucket(codec.NamesBucket).Put(key, codec.AppendNameInfo(nil, &n)); err != nil {
			return err
		}
		s, err := codec.DecodeStats(tx.Bucket(codec.MetaBucket).Get(codec.StatsKey))
		if err != nil {
			return err
		}
		s.Records++
		return tx.Bucket(codec.MetaBucket).Put(codec.StatsKey, codec.AppendStats(nil, &s))
	})
	if err := errors.Join(err, bdb.Close()); err != nil {
		t.Fatal(err)
	}

	t.Run("ErrInconsistent", func(t *testing.T) {
		db, err := store.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		err = db.Check()
		if !errors.Is(err, store.ErrInconsistent) || !strings.Contains(err.Error(), "unity/Player") ||
			!strings.Contains(err.Error(), "records is 8, the records say 7") || strings.Contains(err.Error(), "run_lua") {
			t.Fatalf("Check of a corrupted store: %v; want ErrInconsistent naming unity/Player and the record count", err)
		}
	})
	t.Run("ErrClosed", func(t *testing.T) {
		if err := db.Check(); !errors.Is(err, oplog.ErrClosed) {
			t.Fatalf("Check after Close: %v; want ErrClosed", err)
		}
	})
}
