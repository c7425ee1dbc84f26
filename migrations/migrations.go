package migrations

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"
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
	{Version: SchemaBuckets, Name: "create the meta and records buckets", Up: createBuckets},
	{Version: SchemaStats, Name: "keep counters, IDs and the generation in meta/stats", Up: countRecords},
	{Version: SchemaNames, Name: "count records per source and log name", Up: countNames},
	{Version: SchemaSeen, Name: "recompute each log name's first and last seen in nanoseconds", Up: recountSeen},
	{Version: SchemaPositions, Name: "keep each writer's read position", Up: createPositions},
	{Version: SchemaRuns, Name: "count markers and keep each source's runs", Up: keepRuns},
	{Version: SchemaCompressed, Name: "allow compressed records", Up: allowCompressed},
	{Version: SchemaBlocks, Name: "keep records in compressed blocks", Up: createBlocks},
	{Version: SchemaColumns, Name: "allow blocks kept by column", Up: allowColumns},
	{Version: SchemaWords, Name: "allow blocks that keep their texts as words", Up: allowWords},
}

// Latest is the schema version this build writes.
func Latest() int { return All[len(All)-1].Version }

// ErrNewer is returned (wrapped, with both versions) for a file whose schema
// is newer than this build knows.
var ErrNewer = errors.New("data file is newer than this mcplogd")

// ErrCorrupt is returned (wrapped) for a key or value a step cannot
// decode, and by Version for a schema version it cannot read: the file is
// damaged.
var ErrCorrupt = errors.New("corrupt record")

// Version reads the schema version recorded in tx; 0 for a new file. A
// file with records but no meta bucket, or no readable version in it, is
// damaged (ErrCorrupt): run from the first step, it would be taken for new.
func Version(tx *bbolt.Tx) (int, error) {
	meta := tx.Bucket(metaBucket)
	if meta == nil {
		if tx.Bucket(recordsBucket) != nil {
			return 0, fmt.Errorf("%w: records but no meta bucket", ErrCorrupt)
		}
		return 0, nil
	}
	v := meta.Get(schemaKey)
	if len(v) != 4 {
		return 0, fmt.Errorf("%w: meta/schema: %d bytes, want 4", ErrCorrupt, len(v))
	}
	return int(binary.BigEndian.Uint32(v)), nil
}

// Apply runs the steps of list above the file's version, in order, each in
// its own transaction, and returns the versions before and after. progress,
// when not nil, is told of each step before it runs. A file newer than the
// last step fails with ErrNewer.
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
			return tx.Bucket(metaBucket).Put(schemaKey, binary.BigEndian.AppendUint32(nil, uint32(m.Version)))
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
