package oplog

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
)

// Position is a writer's read position in its input (a followed file's
// offset, say), stored by AppendAt in the same transaction as the records
// read up to it: a restarted writer that resumes from it neither reads a
// stored record's input again nor skips one.
//
// Key names the writer, not its records: a follower's key is its own
// whatever source its records carry, so other writers of that source do
// not hide it. Value is the writer's, opaque to the Log and the Store.
//
// Positions are not records: they are not counted, listed or exported,
// retention keeps them, and so does Clear (a new generation): a cleared log
// must not make a follower read its whole file again and store it anew.
type Position struct {
	Key   string // at most MaxPositionKeyBytes, not empty
	Value []byte // at most MaxPositionBytes
}

// Bounds of a Position: a path and a few numbers fit with room to spare.
const (
	MaxPositionKeyBytes = 8 << 10
	MaxPositionBytes    = 16 << 10
)

// AppendAt is Append that also stores pos, in the same durable transaction
// as recs: once AppendAt returns nil, Position(pos.Key) is pos.Value (until
// a later AppendAt with that key); when it fails, neither the records nor
// the position were written. A position rides with its records, so an empty
// recs writes nothing, as Append. Positions of several callers committed
// together are each written with their own records.
func (l *Log) AppendAt(ctx context.Context, recs []Record, pos Position) error {
	if pos.Key == "" || len(pos.Key) > MaxPositionKeyBytes {
		return Errorf(EINVALID, "position key: must be 1 to %d bytes, got %d", MaxPositionKeyBytes, len(pos.Key))
	}
	if len(pos.Value) > MaxPositionBytes {
		return Errorf(EINVALID, "position value: at most %d bytes, got %d", MaxPositionBytes, len(pos.Value))
	}
	return l.append(ctx, recs, &pos)
}

// Position returns the value that the last successful AppendAt stored under
// key, or nil when there is none. It reads one key: its cost does not grow
// with the records stored.
func (l *Log) Position(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.isClosed() {
		return nil, ErrClosed
	}
	return l.store.Position(key)
}

// ProvenanceKeys are the keys of a record's Data that say where or when
// a line was read, not what it says: a followed or imported file's path,
// the offset just past the line and the file's identity (the follower
// resumes from the newest line's when a store has no Position for it);
// the ID a game's own console gave the line the gateway mirrored, and the
// time it wrote that could not be read; OTLP's observed time.
var ProvenanceKeys = []string{"file", "offset", "fileId", "upstreamId", "upstreamTime", "observedTime"}

// SameData reports whether the JSON objects a and b hold the same keys and
// values but for ProvenanceKeys, so that lines read one after another from
// a file can be alike (a tail's repeats) as lines posted without them are.
// Values are compared as written; data that is not an object is the same
// only as the same bytes.
func SameData(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ma, oka := withoutProvenance(a)
	mb, okb := withoutProvenance(b)
	return oka && okb && maps.EqualFunc(ma, mb, func(x, y json.RawMessage) bool { return bytes.Equal(x, y) })
}

// withoutProvenance is the object data without ProvenanceKeys; false when
// data is not an object (no data is an empty one).
func withoutProvenance(data json.RawMessage) (map[string]json.RawMessage, bool) {
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(data)) == 0 {
		return m, true
	}
	if json.Unmarshal(data, &m) != nil || m == nil {
		return nil, false
	}
	for _, k := range ProvenanceKeys {
		delete(m, k)
	}
	return m, true
}
