package migrations_test

import (
	"encoding/binary"
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
		var s oplog.Stats
		old := tx.Bucket(codec.MetaBucket).Get(codec.StatsKey)
		for i, p := range []*uint64{&s.Revision, &s.GenStart, &s.FirstID, &s.LastID} {
			*p = binary.BigEndian.Uint64(old[8*i:])
		}
		names := map[string]*oplog.NameInfo{}
		for i := range recs {
			r := &recs[i]
			s.LastID++
			v := format1(codec.Append(nil, r))
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
			if err := tx.Bucket(codec.NamesBucket).Put([]byte(key), schema3Name(n)); err != nil {
				return err
			}
		}
		return tx.Bucket(codec.MetaBucket).Put(codec.StatsKey, schema2Stats(&s))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// format1 turns a format-2 value of run 0 into the format-1 value that
// schemas 1 to 5 wrote: the same without the run's one byte.
func format1(v []byte) []byte {
	return append(append([]byte{migrations.RecordFormat1}, v[1:codec.HeaderSize]...), v[codec.HeaderSize+1:]...)
}

// schema2Stats encodes s as schemas 2 to 5 did: eight counters and 3×6 counts.
func schema2Stats(s *oplog.Stats) []byte {
	var dst []byte
	for _, x := range []uint64{s.Revision, s.GenStart, s.FirstID, s.LastID, s.Records, s.Bytes, s.Trimmed, s.TrimmedThrough} {
		dst = binary.BigEndian.AppendUint64(dst, x)
	}
	for k := range 3 {
		for l := range s.Counts[k] {
			dst = binary.BigEndian.AppendUint64(dst, s.Counts[k][l])
		}
	}
	return dst
}

// schema3Name encodes n as schemas 3 to 5 did: 3×6 counts, first and last seen.
func schema3Name(n *oplog.NameInfo) []byte {
	var dst []byte
	for k := range 3 {
		for l := range n.Counts[k] {
			dst = binary.AppendUvarint(dst, n.Counts[k][l])
		}
	}
	dst = binary.AppendVarint(dst, n.FirstSeen.UnixNano())
	return binary.AppendVarint(dst, n.LastSeen.UnixNano())
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
