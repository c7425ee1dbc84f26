package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// ErrCorrupt is returned (wrapped) for a value or key that cannot be decoded.
var ErrCorrupt = errors.New("corrupt record")

// Key returns the 8-byte big-endian key of id, so that bbolt's byte order is ID order.
func Key(id uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), id) }

// ID decodes a key made by Key.
func ID(k []byte) (uint64, error) {
	if len(k) != 8 {
		return 0, fmt.Errorf("%w: key of %d bytes, want 8", ErrCorrupt, len(k))
	}
	return binary.BigEndian.Uint64(k), nil
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// Append appends the encoding of r to dst and returns the extended slice.
// The ID is the key's business and is not encoded.
// A record whose fields after the name take CompressMin bytes or more is
// written compressed (FormatS2) when that makes it smaller.
func Append(dst []byte, r *oplog.Record) []byte {
	start := len(dst)
	dst = append(dst, Format, byte(r.Kind), byte(r.Level), byte(r.Status))
	dst = binary.BigEndian.AppendUint64(dst, uint64(nanos(r.Time)))
	dst = binary.AppendUvarint(dst, r.Run)
	dst = appendString(dst, r.Source)
	dst = appendString(dst, r.Name)
	return compress(appendRest(dst, r), start, len(dst))
}

// appendRest appends the fields after the name.
func appendRest(dst []byte, r *oplog.Record) []byte {
	dst = appendString(dst, r.Text)
	dst = appendString(dst, r.Stack)
	dst = appendBytes(dst, r.Data)
	if r.Kind != oplog.KindOp {
		return dst
	}
	dst = appendString(dst, r.Tool)
	dst = appendBytes(dst, r.Arguments)
	dst = appendBytes(dst, r.Result)
	dst = appendString(dst, r.Error)
	dst = binary.AppendVarint(dst, nanos(r.StartTime))
	dst = binary.AppendVarint(dst, nanos(r.EndTime))
	return binary.AppendUvarint(dst, r.ReplayOf)
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// Header reads the fixed part of a value: kind, level, status and time in
// Unix nanoseconds. It reads every format (Format, FormatS2 and Format1).
func Header(v []byte) (oplog.Kind, oplog.Level, oplog.Status, int64, error) {
	if len(v) < HeaderSize || v[0] != Format && v[0] != FormatS2 && v[0] != Format1 {
		return 0, 0, 0, 0, headerError(v)
	}
	return oplog.Kind(v[1]), oplog.Level(v[2]), oplog.Status(v[3]), int64(binary.BigEndian.Uint64(v[4:12])), nil
}

func headerError(v []byte) error {
	if len(v) < HeaderSize {
		return fmt.Errorf("%w: %d bytes is shorter than the %d-byte header", ErrCorrupt, len(v), HeaderSize)
	}
	return fmt.Errorf("%w: format %d, want %d, %d or %d", ErrCorrupt, v[0], Format1, Format, FormatS2)
}

// fields returns a decoder at the first length-prefixed field of v (whose
// header is valid) and the record's run: format 1 has none (run 0).
func fields(v []byte, s string) (decoder, uint64) {
	d := decoder{b: v, off: HeaderSize, s: s}
	if v[0] == Format1 {
		return d, 0
	}
	return d, d.uvarint()
}

// Run returns the run of a value without decoding the rest; 0 for a
// record of format 1, written before runs were kept.
func Run(v []byte) (uint64, error) {
	if _, _, _, _, err := Header(v); err != nil {
		return 0, err
	}
	d, run := fields(v, "")
	return run, d.err
}

// SourceName returns the source and name fields of a value without copying
// them; they are valid only as long as v is.
func SourceName(v []byte) (source, name []byte, err error) {
	if _, _, _, _, err := Header(v); err != nil {
		return nil, nil, err
	}
	d, _ := fields(v, "")
	source = d.bytes()
	name = d.bytes()
	return source, name, d.err
}

// Decode decodes a value made by Append into a record with the given ID.
// The record does not refer to v, which may be reused.
func Decode(id uint64, v []byte) (oplog.Record, error) {
	kind, level, status, t, err := Header(v)
	if err != nil {
		return oplog.Record{}, err
	}
	if v[0] == FormatS2 {
		// Expanded into a pooled buffer: string(v) below copies it.
		bp := getScratch()
		if v, err = expanded(*bp, v); err != nil {
			putScratch(bp, *bp)
			return oplog.Record{}, fmt.Errorf("record %d: %w", id, err)
		}
		defer putScratch(bp, v)
	}
	// One string holds every text field; fields are substrings of it.
	d, run := fields(v, string(v))
	r := oplog.Record{ID: id, Kind: kind, Level: level, Status: status, Time: oplog.FromUnixNano(t), Run: run}
	r.Source = d.str()
	r.Name = d.str()
	r.Text = d.str()
	r.Stack = d.str()
	r.Data = d.raw()
	if kind == oplog.KindOp {
		r.Tool = d.str()
		r.Arguments = d.raw()
		r.Result = d.raw()
		r.Error = d.str()
		r.StartTime = oplog.FromUnixNano(d.varint())
		r.EndTime = oplog.FromUnixNano(d.varint())
		r.ReplayOf = d.uvarint()
	}
	if d.err == nil && d.off != len(v) {
		d.err = fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(v)-d.off)
	}
	if d.err != nil {
		return oplog.Record{}, fmt.Errorf("record %d: %w", id, d.err)
	}
	return r, nil
}

// expanded appends to dst[:0] the format-2 equivalent of the format-3
// value v.
func expanded(dst, v []byte) ([]byte, error) {
	d, _ := fields(v, "")
	d.span() // source
	d.span() // name
	if d.err != nil {
		return nil, d.err
	}
	return expand(dst, v, d.off)
}

type decoder struct {
	b   []byte
	s   string
	off int
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.err = fmt.Errorf("%w: bad length at byte %d", ErrCorrupt, d.off)
		return 0
	}
	d.off += n
	return x
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		d.err = fmt.Errorf("%w: bad number at byte %d", ErrCorrupt, d.off)
		return 0
	}
	d.off += n
	return x
}

// span returns the bounds of the next length-prefixed field.
func (d *decoder) span() (int, int) {
	n := d.uvarint()
	if d.err != nil {
		return 0, 0
	}
	if n > uint64(len(d.b)-d.off) {
		d.err = fmt.Errorf("%w: field of %d bytes at byte %d overruns the value", ErrCorrupt, n, d.off)
		return 0, 0
	}
	start := d.off
	d.off += int(n)
	return start, d.off
}

func (d *decoder) bytes() []byte {
	i, j := d.span()
	return d.b[i:j]
}

func (d *decoder) str() string {
	i, j := d.span()
	return d.s[i:j]
}

func (d *decoder) raw() []byte {
	i, j := d.span()
	if i == j {
		return nil
	}
	return []byte(d.s[i:j])
}

// AppendKey appends the 8-byte big-endian key of id to dst.
func AppendKey(dst []byte, id uint64) []byte { return binary.BigEndian.AppendUint64(dst, id) }
