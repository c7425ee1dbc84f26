package oplog

import "context"

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
