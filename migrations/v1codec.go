package migrations

import (
	"encoding/binary"
	"fmt"
)

// The layout of record format 1 and of record keys, frozen as schema 1 wrote
// them (a copy of what migrations need from internal/codec at that version,
// never an import of it):
//
//	key    8-byte big-endian ID
//	0      format (1)
//	1      kind (1 line, 2 operation)
//	2      level (1 debug .. 5 fatal)
//	3      status
//	4..11  time, Unix nanoseconds, big-endian
//	12..   uvarint-prefixed source, name, then fields steps never read

// v1HeaderSize is the length of the fixed part of a format-1 value.
const v1HeaderSize = 12

// v1Header is the fixed part of a format-1 record value.
type v1Header struct {
	kind, level uint8
	unixNano    int64
}

// v1ID decodes a record key.
func v1ID(k []byte) (uint64, error) {
	if len(k) != 8 {
		return 0, fmt.Errorf("%w: key of %d bytes, want 8", ErrCorrupt, len(k))
	}
	return binary.BigEndian.Uint64(k), nil
}

// v1DecodeHeader reads the fixed part of a format-1 value.
func v1DecodeHeader(v []byte) (v1Header, error) {
	if len(v) < v1HeaderSize {
		return v1Header{}, fmt.Errorf("%w: %d bytes is shorter than the %d-byte header", ErrCorrupt, len(v), v1HeaderSize)
	}
	if v[0] != RecordFormat1 {
		return v1Header{}, fmt.Errorf("%w: format %d, want %d", ErrCorrupt, v[0], RecordFormat1)
	}
	return v1Header{kind: v[1], level: v[2], unixNano: int64(binary.BigEndian.Uint64(v[4:12]))}, nil
}

// v1SourceName returns the source and name fields of a format-1 value.
func v1SourceName(v []byte) (source, name string, err error) {
	off := v1HeaderSize
	field := func() string {
		if err != nil {
			return ""
		}
		n, w := binary.Uvarint(v[off:])
		if w <= 0 || n > uint64(len(v)-off-w) {
			err = fmt.Errorf("%w: bad field at byte %d", ErrCorrupt, off)
			return ""
		}
		s := string(v[off+w : off+w+int(n)])
		off += w + int(n)
		return s
	}
	source = field()
	name = field()
	return source, name, err
}
