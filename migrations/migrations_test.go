package migrations_test

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/migrations"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

var update = flag.Bool("update", false, "rewrite testdata/v1.db")

const fixture = "testdata/v1.db"

// fixtureRevision is the generation written into the schema-1 fixture.
const fixtureRevision = 0x1234_5678_9abc

// writeV1 makes a schema-1 file as that version wrote it: 20 records keyed
// by the records bucket's sequence, the first 5 since trimmed, and the
// generation under meta/revision.
func writeV1(path string) error {
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, _, err := migrations.Apply(db, migrations.All[:1], nil); err != nil {
		return err
	}
	return db.Update(func(tx *bbolt.Tx) error {
		if err := tx.Bucket(codec.MetaBucket).Put([]byte("revision"), binary.BigEndian.AppendUint64(nil, fixtureRevision)); err != nil {
			return err
		}
		b := tx.Bucket(codec.RecordsBucket)
		for i := range 20 {
			id, _ := b.NextSequence()
			r := oplog.Record{Kind: oplog.KindLine, Level: oplog.Levels[i%5], Time: time.Unix(1764486000+int64(i), 0).UTC(),
				Source: "unity", Name: "fixture", Text: fmt.Sprint("line ", id)}
			if i == 19 {
				r = oplog.Record{Kind: oplog.KindOp, Level: oplog.LevelInfo, Time: r.Time, Source: "unity", Name: "execute_code",
					Text: "execute_code", Tool: "execute_code", Status: oplog.StatusPending, StartTime: r.Time}
			}
			if err := b.Put(codec.Key(id), format1(codec.Append(nil, &r))); err != nil {
				return err
			}
		}
		for id := uint64(1); id <= 5; id++ {
			if err := b.Delete(codec.Key(id)); err != nil {
				return err
			}
		}
		return nil
	})
}

func copyFixture(t *testing.T) string {
	t.Helper()
	if *update {
		if err := os.Remove(fixture); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if err := writeV1(fixture); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), "log.db")
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestApply_FromV1Fixture(t *testing.T) {
	path := copyFixture(t)
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	var steps []int
	from, to, err := migrations.Apply(db, migrations.All, func(m migrations.Migration) { steps = append(steps, m.Version) })
	if err != nil || from != 1 || to != migrations.Latest() || fmt.Sprint(steps) != "[2 3 4 5 6 7 8 9 10]" {
		t.Fatalf("Apply = %d, %d, %v (steps %v); want 1 -> %d", from, to, err, steps, migrations.Latest())
	}
	if from, to, err := migrations.Apply(db, migrations.All, nil); err != nil || from != to {
		t.Fatalf("second Apply = %d, %d, %v; want nothing to do", from, to, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// The migrated file opens as a store with nothing lost.
	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(s, nil)
	defer l.Close()
	st := l.Stats()
	want := oplog.Stats{Revision: fixtureRevision, GenStart: 1, FirstID: 6, LastID: 20, Records: 15, Bytes: st.Bytes, Trimmed: 5, TrimmedThrough: 5, Counts: st.Counts}
	if st != want || st.Count(oplog.KindLine, 0) != 14 || st.Count(oplog.KindOp, 0) != 1 || st.Bytes == 0 {
		t.Fatalf("stats after migration %+v", st)
	}
	for id := uint64(6); id <= 19; id++ {
		r, err := s.Get(id)
		if err != nil || r.Text != fmt.Sprint("line ", id) || r.Source != "unity" {
			t.Fatalf("record %d after migration: %+v, %v", id, r, err)
		}
	}
	names, err := l.Names(t.Context(), "unity")
	if err != nil || len(names) != 2 || names[0].Name != "execute_code" || names[0].Total != 1 || names[1].Name != "fixture" || names[1].Total != 14 {
		t.Fatalf("names after migration: %+v, %v", names, err)
	}
	op, err := s.Get(20)
	if err != nil || op.Tool != "execute_code" || op.Status != oplog.StatusPending {
		t.Fatalf("op after migration: %+v, %v", op, err)
	}
	tail, err := l.Tail(t.Context(), oplog.TailQuery{SinceID: 2, HasSince: true, Revision: fixtureRevision})
	if err != nil || tail.Dropped != 3 || len(tail.Lines) != 15 || tail.Reset {
		t.Fatalf("tail after migration: %+v, %v; want 3 dropped and 15 records", tail, err)
	}
	if _, err := l.Complete(t.Context(), 20, oplog.Completion{}); err != nil {
		t.Fatal(err)
	}
	next := []oplog.Record{{Level: oplog.LevelInfo, Text: "after upgrade"}}
	if err := l.Append(t.Context(), next); err != nil || next[0].ID != 21 {
		t.Fatalf("append after migration: ID %d, %v; want 21", next[0].ID, err)
	}
	// Schema 5's positions bucket is there, empty, and takes a position.
	if v, err := l.Position(t.Context(), "f"); v != nil || err != nil {
		t.Fatalf("position in a migrated file: %q, %v; want none", v, err)
	}
	if err := l.AppendAt(t.Context(), []oplog.Record{{Level: oplog.LevelInfo, Text: "p"}}, oplog.Position{Key: "f", Value: []byte("1")}); err != nil {
		t.Fatalf("AppendAt in a migrated file: %v", err)
	}
	checkRunsAfterMigration(t, s, l)
}

// checkRunsAfterMigration: schema 6 leaves the records written before it in
// no run (run 0, no RunInfo); the first records after it start run 1 of
// their source, a run marker starts run 2, and the counters agree.
func checkRunsAfterMigration(t *testing.T, s *store.DB, l *oplog.Log) {
	t.Helper()
	if r, err := s.Get(6); err != nil || r.Run != 0 {
		t.Fatalf("old record after migration: run %d, %v; want 0", r.Run, err)
	}
	if r, err := s.Get(20); err != nil || r.Run != 0 || r.Status != oplog.StatusSuccess {
		t.Fatalf("old op completed after migration: %+v, %v; want run 0", r, err)
	}
	unity := []oplog.Record{{Source: "unity", Level: oplog.LevelInfo, Text: "new"},
		{Source: "unity", Kind: oplog.KindMarker, Name: oplog.MarkerRun, Text: "Unity started"}}
	if err := l.Append(t.Context(), unity); err != nil {
		t.Fatal(err)
	}
	runs, err := l.Runs(t.Context(), "unity")
	if err != nil || len(runs) != 2 || runs[0].Run != 1 || runs[0].FirstID != unity[0].ID || runs[0].Records != 1 ||
		runs[1].Run != 2 || runs[1].FirstID != unity[1].ID || unity[1].Run != 2 {
		t.Fatalf("runs after migration: %+v, %v", runs, err)
	}
	old, err := l.List(t.Context(), oplog.Query{Filter: oplog.Filter{Runs: map[string]uint64{"unity": 1}}})
	if err != nil || len(old.Records) != 1 || old.Total != 1 || old.Records[0].Text != "new" {
		t.Fatalf("run 1 after migration: %+v, %v", old, err)
	}
	if st := l.Stats(); st.Count(oplog.KindMarker, 0) != 1 || st.Count(oplog.KindLine, 0) != 17 {
		t.Fatalf("counts after migration: %v", st.Counts.Map())
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestApply_RefusesNewerFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	newer := migrations.Latest() + 7
	err = db.Update(func(tx *bbolt.Tx) error {
		meta, err := tx.CreateBucket(codec.MetaBucket)
		if err != nil {
			return err
		}
		return meta.Put(codec.SchemaKey, binary.BigEndian.AppendUint32(nil, uint32(newer)))
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = migrations.Apply(db, migrations.All, nil)
	db.Close()
	if !errors.Is(err, migrations.ErrNewer) || !strings.Contains(err.Error(), fmt.Sprint(newer)) || !strings.Contains(err.Error(), fmt.Sprint(migrations.Latest())) {
		t.Fatalf("Apply on a newer file: %v; want ErrNewer naming %d and %d", err, newer, migrations.Latest())
	}
	if _, err := store.Open(path, nil); !errors.Is(err, migrations.ErrNewer) {
		t.Fatalf("store.Open on a newer file: %v; want ErrNewer", err)
	}
}

func TestApply_NewFile(t *testing.T) {
	db, err := bbolt.Open(filepath.Join(t.TempDir(), "log.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	from, to, err := migrations.Apply(db, migrations.All, nil)
	if err != nil || from != 0 || to != migrations.Latest() {
		t.Fatalf("Apply on a new file = %d, %d, %v", from, to, err)
	}
	err = db.View(func(tx *bbolt.Tx) error {
		s, err := codec.DecodeStats(tx.Bucket(codec.MetaBucket).Get(codec.StatsKey))
		if err != nil || s.Revision == 0 || s.Revision >= 1<<53 || s.GenStart != 1 || s.LastID != 0 {
			t.Fatalf("new file stats %+v, %v", s, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
