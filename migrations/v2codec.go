package migrations

import "encoding/binary"

// v2Stats is meta/stats as schema 2 introduced it: eight big-endian uint64
// counters followed by the record counts by [kind][level], 3×6 uint64s.
type v2Stats struct {
	revision, genStart, firstID, lastID  uint64
	records, bytes, trimmed, trimmedThru uint64
	counts                               [3][6]uint64
}

// v2AppendStats appends the schema-2 encoding of s to dst.
func v2AppendStats(dst []byte, s *v2Stats) []byte {
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

// count adds one record of the given header and encoded size, as schema 2
// counts: a header outside the table is counted nowhere.
func (s *v2Stats) count(h v1Header, size int) {
	if int(h.kind) >= len(s.counts) || int(h.level) >= len(s.counts[0]) {
		return
	}
	s.records++
	s.bytes += uint64(size)
	s.counts[h.kind][h.level]++
}
