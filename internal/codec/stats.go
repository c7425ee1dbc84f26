package codec

import (
	"encoding/binary"
	"fmt"

	"github.com/mcplogd/mcplogd/oplog"
)

// AppendStats appends the fixed-size encoding of s to dst.
func AppendStats(dst []byte, s *oplog.Stats) []byte {
	for _, x := range []uint64{s.Revision, s.GenStart, s.FirstID, s.LastID, s.Records, s.Bytes, s.Trimmed, s.TrimmedThrough} {
		dst = binary.BigEndian.AppendUint64(dst, x)
	}
	for k := range s.Counts {
		for l := range s.Counts[k] {
			dst = binary.BigEndian.AppendUint64(dst, s.Counts[k][l])
		}
	}
	return dst
}

// DecodeStats decodes a value made by AppendStats.
func DecodeStats(v []byte) (oplog.Stats, error) {
	var s oplog.Stats
	if len(v) != statsFields*8 {
		return s, fmt.Errorf("%w: stats of %d bytes, want %d", ErrCorrupt, len(v), statsFields*8)
	}
	next := func() uint64 { x := binary.BigEndian.Uint64(v); v = v[8:]; return x }
	for _, p := range []*uint64{&s.Revision, &s.GenStart, &s.FirstID, &s.LastID, &s.Records, &s.Bytes, &s.Trimmed, &s.TrimmedThrough} {
		*p = next()
	}
	for k := range s.Counts {
		for l := range s.Counts[k] {
			s.Counts[k][l] = next()
		}
	}
	return s, nil
}

// Count adds (delta +1) or removes (delta -1) one record of the given
// header and encoded size from s.
func Count(s *oplog.Stats, kind oplog.Kind, level oplog.Level, size int, delta int) {
	if int(kind) >= len(s.Counts) || int(level) >= len(s.Counts[0]) {
		return // a corrupt header; counted nowhere rather than panicking
	}
	if delta > 0 {
		s.Records++
		s.Bytes += uint64(size)
		s.Counts[kind][level]++
		return
	}
	s.Records--
	s.Bytes -= uint64(size)
	s.Counts[kind][level]--
}
