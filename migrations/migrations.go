// Package migrations brings a bbolt file's layout forward to the current
// schema, one numbered step at a time, each in its own transaction that also
// records the new version in the meta bucket. A file written by a newer
// mcplogd is refused with both versions named; nothing is changed.
package migrations

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/oplog"
)

// Migration is one step of the schema. Up runs inside the transaction that
// records Version, so a step is applied whole or not at all.
type Migration struct {
	Version int
	Name    string
	Up      func(tx *bbolt.Tx) error
}

// All lists every step in order; the last one's Version is the current schema.
var All = []Migration{
	{Version: 1, Name: "create the meta and records buckets", Up: createBuckets},
	{Version: 2, Name: "keep counters, IDs and the generation in meta/stats", Up: countRecords},
	{Version: 3, Name: "count records per source and log name", Up: countNames},
}

// Latest is the schema version this build writes.
func Latest() int { return All[len(All)-1].Version }

// ErrNewer is returned (wrapped, with both versions) for a file whose schema
// is newer than this build knows.
var ErrNewer = errors.New("data file is newer than this mcplogd")

// Version reads the schema version recorded in tx; 0 for a new file.
func Version(tx *bbolt.Tx) (int, error) {
	meta := tx.Bucket(codec.MetaBucket)
	if meta == nil {
		return 0, nil
	}
	v := meta.Get(codec.SchemaKey)
	if len(v) != 4 {
		return 0, fmt.Errorf("meta/schema: %d bytes, want 4", len(v))
	}
	return int(binary.BigEndian.Uint32(v)), nil
}

// Apply runs the steps of list above the file's version, in order, each in
// its own transaction, and returns the versions before and after. progress,
// when not nil, is told of each step before it runs.
func Apply(db *bbolt.DB, list []Migration, progress func(Migration)) (from, to int, err error) {
	if err := db.View(func(tx *bbolt.Tx) error { from, err = Version(tx); return err }); err != nil {
		return 0, 0, err
	}
	latest := 0
	if len(list) > 0 {
		latest = list[len(list)-1].Version
	}
	if from > latest {
		return from, from, fmt.Errorf("%w: %s has schema version %d, this build knows up to %d; upgrade mcplogd",
			ErrNewer, db.Path(), from, latest)
	}
	to = from
	for _, m := range list {
		if m.Version <= to {
			continue
		}
		if m.Version != to+1 {
			return from, to, fmt.Errorf("BUG: migration %d follows version %d", m.Version, to)
		}
		if progress != nil {
			progress(m)
		}
		err := db.Update(func(tx *bbolt.Tx) error {
			if err := m.Up(tx); err != nil {
				return err
			}
			return tx.Bucket(codec.MetaBucket).Put(codec.SchemaKey, binary.BigEndian.AppendUint32(nil, uint32(m.Version)))
		})
		if err != nil {
			return from, to, fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
		}
		to = m.Version
	}
	return from, to, nil
}

// NewRevision returns a random generation number that JSON readers keep
// exactly (below 2^53) and that is never zero.
func NewRevision() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail on supported platforms
	return binary.BigEndian.Uint64(b[:])&(1<<53-1) | 1
}

// revisionKey held the generation in schema 1; schema 2 keeps it in stats.
var revisionKey = []byte("revision")

// createBuckets is schema 1: the meta and records buckets, a generation,
// and IDs from the records bucket's sequence.
func createBuckets(tx *bbolt.Tx) error {
	meta, err := tx.CreateBucketIfNotExists(codec.MetaBucket)
	if err != nil {
		return err
	}
	if _, err := tx.CreateBucketIfNotExists(codec.RecordsBucket); err != nil {
		return err
	}
	return meta.Put(revisionKey, binary.BigEndian.AppendUint64(nil, NewRevision()))
}

// countRecords is schema 2: counters, the first and last IDs and the
// generation move into meta/stats, kept in every transaction, so that
// opening a store and reading its size no longer scans it.
func countRecords(tx *bbolt.Tx) error {
	meta, recs := tx.Bucket(codec.MetaBucket), tx.Bucket(codec.RecordsBucket)
	s := oplog.Stats{GenStart: 1, LastID: recs.Sequence()}
	if rev := meta.Get(revisionKey); len(rev) == 8 {
		s.Revision = binary.BigEndian.Uint64(rev)
	} else {
		s.Revision = NewRevision()
	}
	c := recs.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		id, err := codec.ID(k)
		if err != nil {
			return err
		}
		kind, level, _, _, err := codec.Header(v)
		if err != nil {
			return fmt.Errorf("record %d: %w", id, err)
		}
		if s.FirstID == 0 {
			s.FirstID = id
		}
		s.LastID = max(s.LastID, id)
		codec.Count(&s, kind, level, len(v), +1)
	}
	// IDs are dense, so whatever lies below the first record was trimmed.
	if s.FirstID == 0 {
		s.TrimmedThrough = s.LastID
	} else {
		s.TrimmedThrough = s.FirstID - 1
	}
	s.Trimmed = s.TrimmedThrough
	if err := meta.Delete(revisionKey); err != nil {
		return err
	}
	return meta.Put(codec.StatsKey, codec.AppendStats(nil, &s))
}

// countNames is schema 3: the names bucket, (source NUL name) -> counts by
// kind and level with first and last seen, so that list_log_names and
// filtered totals need no scan.
func countNames(tx *bbolt.Tx) error {
	names, err := tx.CreateBucket(codec.NamesBucket)
	if err != nil {
		return err
	}
	all := map[string]*oplog.NameInfo{}
	c := tx.Bucket(codec.RecordsBucket).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		kind, level, _, t, err := codec.Header(v)
		if err != nil {
			return fmt.Errorf("record %x: %w", k, err)
		}
		source, name, err := codec.SourceName(v)
		if err != nil {
			return fmt.Errorf("record %x: %w", k, err)
		}
		key := string(codec.NameKey(string(source), string(name)))
		n := all[key]
		if n == nil {
			n = &oplog.NameInfo{}
			all[key] = n
		}
		if int(kind) < len(n.Counts) && int(level) < len(n.Counts[0]) {
			n.Counts[kind][level]++
		}
		seen := oplog.UnixTime(t)
		if n.FirstSeen.IsZero() || seen.Before(n.FirstSeen) {
			n.FirstSeen = seen
		}
		if seen.After(n.LastSeen) {
			n.LastSeen = seen
		}
	}
	for key, n := range all {
		if err := names.Put([]byte(key), codec.AppendNameInfo(nil, n)); err != nil {
			return err
		}
	}
	return nil
}
