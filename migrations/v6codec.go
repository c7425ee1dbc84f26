package migrations

import (
	"encoding/binary"
	"fmt"
)

// Schema 6 adds the marker kind, a fourth row of counts by [kind][level],
// and the runs bucket; record format 2 carries each record's run:
//
//	0      format (2)
//	1..11  kind, level, status, time as in format 1
//	12..   the run (uvarint), then the fields of format 1
//
// Records of format 1 are not rewritten: they belong to no run (run 0).
//
// meta/stats: eight big-endian uint64 counters (as v2Stats) then the 4×6
// counts by [kind][level]. A names value: the 4×6 counts as uvarints, then
// first and last seen (as v3Name). A runs key: source, NUL, the run as 8
// big-endian bytes; its value: start (varint Unix nanoseconds), first ID,
// last ID, records and errors (uvarints).

// RecordFormat2 is the format byte of records written since schema 6.
const RecordFormat2 = 2

// v6Stats is meta/stats as schema 6 writes it.
type v6Stats struct {
	revision, genStart, firstID, lastID  uint64
	records, bytes, trimmed, trimmedThru uint64
	counts                               [4][6]uint64
}

// v6AppendStats appends the schema-6 encoding of s to dst.
func v6AppendStats(dst []byte, s *v6Stats) []byte {
	for _, x := range []uint64{s.revision, s.genStart, s.firstID, s.lastID, s.records, s.bytes, s.trimmed, s.trimmedThru} {
		dst = binary.BigEndian.AppendUint64(dst, x)
	}
	for k := range s.counts {
		for l := range s.counts[k] {
			dst = binary.BigEndian.AppendUint64(dst, s.counts[k][l])
		}
	}
	return dst
}

// v6Name is a names bucket entry as schema 6 writes it.
type v6Name struct {
	counts      [4][6]uint64
	first, last int64
}

// v6AppendName appends the schema-6 value of n to dst.
func v6AppendName(dst []byte, n *v6Name) []byte {
	for k := range n.counts {
		for l := range n.counts[k] {
			dst = binary.AppendUvarint(dst, n.counts[k][l])
		}
	}
	dst = binary.AppendVarint(dst, n.first)
	return binary.AppendVarint(dst, n.last)
}

// v2DecodeStats decodes meta/stats of schemas 2 to 5 (v2AppendStats).
func v2DecodeStats(v []byte) (v2Stats, error) {
	var s v2Stats
	if want := 8 * (8 + len(s.counts)*len(s.counts[0])); len(v) != want {
		return s, fmt.Errorf("%w: stats of %d bytes, want %d", ErrCorrupt, len(v), want)
	}
	next := func() uint64 { x := binary.BigEndian.Uint64(v); v = v[8:]; return x }
	for _, p := range []*uint64{&s.revision, &s.genStart, &s.firstID, &s.lastID, &s.records, &s.bytes, &s.trimmed, &s.trimmedThru} {
		*p = next()
	}
	for k := range s.counts {
		for l := range s.counts[k] {
			s.counts[k][l] = next()
		}
	}
	return s, nil
}
