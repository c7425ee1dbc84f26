package migrations

import (
	"encoding/binary"
	"fmt"

	"go.etcd.io/bbolt"
)

// Each step reads and writes only through the frozen codecs of its version
// (v1codec.go, v2codec.go, v3codec.go, v6codec.go, v7codec.go), never through
// internal/codec.

// createBuckets is schema 1: the meta and records buckets, a generation,
// and IDs from the records bucket's sequence.
func createBuckets(tx *bbolt.Tx) error {
	meta, err := tx.CreateBucketIfNotExists(metaBucket)
	if err != nil {
		return err
	}
	if _, err := tx.CreateBucketIfNotExists(recordsBucket); err != nil {
		return err
	}
	return meta.Put(revisionKey, binary.BigEndian.AppendUint64(nil, NewRevision()))
}

// countRecords is schema 2: counters, the first and last IDs and the
// generation move into meta/stats, kept in every transaction, so that
// opening a store and reading its size no longer scans it.
func countRecords(tx *bbolt.Tx) error {
	meta, recs := tx.Bucket(metaBucket), tx.Bucket(recordsBucket)
	s := v2Stats{genStart: 1, lastID: recs.Sequence()}
	if rev := meta.Get(revisionKey); len(rev) == 8 {
		s.revision = binary.BigEndian.Uint64(rev)
	} else {
		s.revision = NewRevision()
	}
	c := recs.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		id, err := v1ID(k)
		if err != nil {
			return err
		}
		h, err := v1DecodeHeader(v)
		if err != nil {
			return fmt.Errorf("record %d: %w", id, err)
		}
		if s.firstID == 0 {
			s.firstID = id
		}
		s.lastID = max(s.lastID, id)
		s.count(h, len(v))
	}
	// IDs are dense, so whatever lies below the first record was trimmed.
	if s.firstID == 0 {
		s.trimmedThru = s.lastID
	} else {
		s.trimmedThru = s.firstID - 1
	}
	s.trimmed = s.trimmedThru
	if err := meta.Delete(revisionKey); err != nil {
		return err
	}
	return meta.Put(statsKey, v2AppendStats(nil, &s))
}

// countNames is schema 3: the names bucket, (source NUL name) -> counts by
// kind and level with first and last seen, so that list_log_names and
// filtered totals need no scan.
func countNames(tx *bbolt.Tx) error {
	names, err := tx.CreateBucket(namesBucket)
	if err != nil {
		return err
	}
	all, err := scanNames(tx)
	if err != nil {
		return err
	}
	for key, n := range all {
		if err := names.Put([]byte(key), v3AppendName(nil, n)); err != nil {
			return err
		}
	}
	return nil
}

// recountSeen is schema 4: first and last seen of every name again from the
// records, in nanoseconds. Before it, the store and countNames read them
// with a unit-guessing conversion that took the nanoseconds of a record
// dated before 1973 for microseconds (1972 showed as 2046). The counts are
// kept as they are.
func recountSeen(tx *bbolt.Tx) error {
	all, err := scanNames(tx)
	if err != nil {
		return err
	}
	return rewriteNames(tx, func(k []byte, n v3Name) []byte {
		n.first, n.last = 0, 0
		if seen := all[string(k)]; seen != nil {
			n.first, n.last = seen.first, seen.last
		}
		return v3AppendName(nil, &n)
	})
}

// rewriteNames replaces every value of the names bucket, read as schema 3
// wrote it, with what fn makes of it.
func rewriteNames(tx *bbolt.Tx, fn func(k []byte, n v3Name) []byte) error {
	b := tx.Bucket(namesBucket)
	type entry struct{ k, v []byte }
	var out []entry // bbolt forbids Put while its cursor walks
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		n, err := v3DecodeName(v)
		if err != nil {
			return fmt.Errorf("names %q: %w", k, err)
		}
		out = append(out, entry{append([]byte(nil), k...), fn(k, n)})
	}
	for _, e := range out {
		if err := b.Put(e.k, e.v); err != nil {
			return err
		}
	}
	return nil
}

// createPositions adds the positions bucket, empty: writers of older
// schemas kept their position in their records' data, where they look for
// it when the bucket has none for them.
func createPositions(tx *bbolt.Tx) error {
	_, err := tx.CreateBucketIfNotExists(positionsBucket)
	return err
}

// createBlocks is schema 8: the blocks bucket, empty. Nothing else
// changes; the store seals the loose records itself.
func createBlocks(tx *bbolt.Tx) error {
	_, err := tx.CreateBucketIfNotExists(blocksBucket)
	return err
}

// allowColumns is schema 9. Nothing in the file changes: the step records
// that its blocks may now be kept by column, so that an mcplogd older than
// this one refuses the file (ErrNewer) rather than calling them corrupt.
func allowColumns(*bbolt.Tx) error { return nil }

// allowWords is schema 10. Nothing in the file changes: the step records
// that its blocks may now keep their texts as words, so that an mcplogd
// older than this one refuses the file (ErrNewer) rather than calling them
// corrupt.
func allowWords(*bbolt.Tx) error { return nil }

// keepRuns is schema 6: meta/stats and every names value get a fourth row
// of counts for the marker kind (zero: no marker was written before), and
// the runs bucket is created empty. Records already written keep format 1
// and run 0: they belong to no run, and no RunInfo claims them (their run
// is unknown: a store of schema 5 never saw the engines' run banners as
// runs). A source's first record after the upgrade starts its run 1.
func keepRuns(tx *bbolt.Tx) error {
	meta := tx.Bucket(metaBucket)
	old, err := v2DecodeStats(meta.Get(statsKey))
	if err != nil {
		return fmt.Errorf("meta/stats: %w", err)
	}
	s := v6Stats{revision: old.revision, genStart: old.genStart, firstID: old.firstID, lastID: old.lastID,
		records: old.records, bytes: old.bytes, trimmed: old.trimmed, trimmedThru: old.trimmedThru}
	copy(s.counts[:], old.counts[:])
	if err := meta.Put(statsKey, v6AppendStats(nil, &s)); err != nil {
		return err
	}
	err = rewriteNames(tx, func(_ []byte, n v3Name) []byte {
		n6 := v6Name{first: n.first, last: n.last}
		copy(n6.counts[:], n.counts[:])
		return v6AppendName(nil, &n6)
	})
	if err != nil {
		return err
	}
	_, err = tx.CreateBucketIfNotExists(runsBucket)
	return err
}

// scanNames reads every record and tallies it by names key, as schema 3
// counts: by [kind][level] (a header outside the table counted nowhere),
// first and last seen in Unix nanoseconds.
func scanNames(tx *bbolt.Tx) (map[string]*v3Name, error) {
	all := map[string]*v3Name{}
	c := tx.Bucket(recordsBucket).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		h, err := v1DecodeHeader(v)
		if err != nil {
			return nil, fmt.Errorf("record %x: %w", k, err)
		}
		source, name, err := v1SourceName(v)
		if err != nil {
			return nil, fmt.Errorf("record %x: %w", k, err)
		}
		key := string(v3NameKey(source, name))
		n := all[key]
		if n == nil {
			n = &v3Name{}
			all[key] = n
		}
		if int(h.kind) < len(n.counts) && int(h.level) < len(n.counts[0]) {
			n.counts[h.kind][h.level]++
		}
		if h.unixNano != 0 {
			n.see(h.unixNano)
		}
	}
	return all, nil
}
