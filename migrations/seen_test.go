package migrations_test

import (
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/migrations"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// writeV3WrongSeen makes a schema-3 file as the store before schema 4 wrote
// it: records dated 1972 and 2026, and names entries whose first and last
// seen went through the unit-guessing oplog.UnixTime (1972 read as 2046).
func writeV3WrongSeen(t *testing.T, path string, recs []oplog.Record) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, to, err := migrations.Apply(db, migrations.All[:migrations.SchemaNames], nil); err != nil || to != migrations.SchemaNames {
		t.Fatalf("Apply to schema 3: %d, %v", to, err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		s, err := codec.DecodeStats(tx.Bucket(codec.MetaBucket).Get(codec.StatsKey))
		if err != nil {
			return err
		}
		names := map[string]*oplog.NameInfo{}
		for i := range recs {
			r := &recs[i]
			s.LastID++
			v := codec.Append(nil, r)
			if err := tx.Bucket(codec.RecordsBucket).Put(codec.Key(s.LastID), v); err != nil {
				return err
			}
			codec.Count(&s, r.Kind, r.Level, len(v), +1)
			if s.FirstID == 0 {
				s.FirstID = s.LastID
			}
			key := string(codec.NameKey(r.Source, r.Name))
			n := names[key]
			if n == nil {
				n = &oplog.NameInfo{}
				names[key] = n
			}
			n.Counts[r.Kind][r.Level]++
			if seen := oplog.UnixTime(r.Time.UnixNano()); n.FirstSeen.IsZero() || seen.Before(n.FirstSeen) {
				n.FirstSeen = seen
			}
			if seen := oplog.UnixTime(r.Time.UnixNano()); seen.After(n.LastSeen) {
				n.LastSeen = seen
			}
		}
		for key, n := range names {
			if err := tx.Bucket(codec.NamesBucket).Put([]byte(key), codec.AppendNameInfo(nil, n)); err != nil {
				return err
			}
		}
		return tx.Bucket(codec.MetaBucket).Put(codec.StatsKey, codec.AppendStats(nil, &s))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestApply_RecountSeen_FixesFirstAndLastSeen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	d1972 := time.Date(1972, 6, 1, 0, 0, 0, 0, time.UTC)
	d2026 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	line := func(name string, at time.Time) oplog.Record {
		return oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Time: at, Source: "unity", Name: name, Text: "x"}
	}
	writeV3WrongSeen(t, path, []oplog.Record{line("old", d1972), line("old", d1972.Add(time.Hour)), line("mixed", d2026), line("mixed", d1972)})

	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(s, nil)
	defer l.Close()
	names, err := l.Names(t.Context(), "unity")
	if err != nil || len(names) != 2 {
		t.Fatalf("names after migration: %+v, %v", names, err)
	}
	mixed, old := names[0], names[1]
	if mixed.Name != "mixed" || !mixed.FirstSeen.Equal(d1972) || !mixed.LastSeen.Equal(d2026) || mixed.Total != 2 {
		t.Errorf("mixed after migration: %+v; want first seen %s, last seen %s", mixed, d1972, d2026)
	}
	if old.Name != "old" || !old.FirstSeen.Equal(d1972) || !old.LastSeen.Equal(d1972.Add(time.Hour)) || old.Total != 2 {
		t.Errorf("old after migration: %+v; want first seen %s, last seen %s", old, d1972, d1972.Add(time.Hour))
	}
}
