package migrations

import (
	"encoding/binary"
	"fmt"
)

// v3Name is a names bucket entry as schema 3 introduced it. The key is
// source NUL name; the value is the 3×6 counts by [kind][level] as
// uvarints, then first and last seen as varint Unix nanoseconds (0: never).
type v3Name struct {
	counts      [3][6]uint64
	first, last int64
}

// v3NameKey is the names bucket's key of (source, name).
func v3NameKey(source, name string) []byte {
	k := make([]byte, 0, len(source)+1+len(name))
	k = append(k, source...)
	k = append(k, 0)
	return append(k, name...)
}

// v3AppendName appends the schema-3 value of n to dst.
func v3AppendName(dst []byte, n *v3Name) []byte {
	for k := range n.counts {
		for l := range n.counts[k] {
			dst = binary.AppendUvarint(dst, n.counts[k][l])
		}
	}
	dst = binary.AppendVarint(dst, n.first)
	return binary.AppendVarint(dst, n.last)
}

// v3DecodeName decodes a schema-3 value.
func v3DecodeName(v []byte) (v3Name, error) {
	var n v3Name
	off := 0
	bad := func() error { return fmt.Errorf("%w: bad names value at byte %d", ErrCorrupt, off) }
	for k := range n.counts {
		for l := range n.counts[k] {
			x, w := binary.Uvarint(v[off:])
			if w <= 0 {
				return n, bad()
			}
			n.counts[k][l], off = x, off+w
		}
	}
	for _, p := range []*int64{&n.first, &n.last} {
		x, w := binary.Varint(v[off:])
		if w <= 0 {
			return n, bad()
		}
		*p, off = x, off+w
	}
	if off != len(v) {
		return n, fmt.Errorf("%w: %d trailing bytes in a names value", ErrCorrupt, len(v)-off)
	}
	return n, nil
}

// see widens n's first and last seen to take in t (Unix nanoseconds).
func (n *v3Name) see(t int64) {
	if n.first == 0 || t < n.first {
		n.first = t
	}
	n.last = max(n.last, t)
}
