package codec

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// NameKey is the names bucket's key of (source, name). Sources cannot hold
// NUL, so keys of one source share its prefix.
func NameKey(source, name string) []byte {
	k := make([]byte, 0, len(source)+1+len(name))
	k = append(k, source...)
	k = append(k, 0)
	return append(k, name...)
}

// SourcePrefix is the key prefix of every name of source.
func SourcePrefix(source string) []byte { return append([]byte(source), 0) }

// AppendNameInfo appends the value of a names bucket entry (without its
// source and name, which are the key) to dst.
func AppendNameInfo(dst []byte, n *oplog.NameInfo) []byte {
	for k := range n.Counts {
		for l := range n.Counts[k] {
			dst = binary.AppendUvarint(dst, n.Counts[k][l])
		}
	}
	dst = binary.AppendVarint(dst, nanos(n.FirstSeen))
	return binary.AppendVarint(dst, nanos(n.LastSeen))
}

// DecodeNameInfo decodes a names bucket entry.
func DecodeNameInfo(k, v []byte) (oplog.NameInfo, error) {
	source, name, ok := strings.Cut(string(k), "\x00")
	if !ok {
		return oplog.NameInfo{}, fmt.Errorf("%w: name key %q has no source", ErrCorrupt, k)
	}
	n := oplog.NameInfo{Source: source, Name: name}
	d := decoder{b: v}
	for k := range n.Counts {
		for l := range n.Counts[k] {
			n.Counts[k][l] = d.uvarint()
			n.Total += n.Counts[k][l]
		}
	}
	n.FirstSeen = oplog.FromUnixNano(d.varint())
	n.LastSeen = oplog.FromUnixNano(d.varint())
	if d.err == nil && d.off != len(v) {
		d.err = fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(v)-d.off)
	}
	return n, d.err
}
