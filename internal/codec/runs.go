package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/mcplogd/mcplogd/oplog"
)

// RunKey is the runs bucket's key of (source, run): the source, NUL, and
// the run as 8 big-endian bytes, so that a source's runs sort in order
// after its prefix (SourcePrefix) and its current run is the last of them.
func RunKey(source string, run uint64) []byte {
	k := make([]byte, 0, len(source)+9)
	k = append(k, source...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, run)
}

// DecodeRunKey splits a key made by RunKey.
func DecodeRunKey(k []byte) (source string, run uint64, err error) {
	i := bytes.IndexByte(k, 0)
	if i < 0 || len(k)-i-1 != 8 {
		return "", 0, fmt.Errorf("%w: run key %q", ErrCorrupt, k)
	}
	return string(k[:i]), binary.BigEndian.Uint64(k[i+1:]), nil
}

// AppendRunInfo appends the value of a runs bucket entry (without its
// source and run, which are the key) to dst.
func AppendRunInfo(dst []byte, r *oplog.RunInfo) []byte {
	dst = binary.AppendVarint(dst, nanos(r.Start))
	for _, x := range []uint64{r.FirstID, r.LastID, r.Records, r.Errors} {
		dst = binary.AppendUvarint(dst, x)
	}
	// Since outcomes were kept: an entry without these is an older one.
	dst = binary.AppendVarint(dst, nanos(r.Last))
	dst = binary.AppendUvarint(dst, uint64(max(slices.Index(oplog.Outcomes, r.Outcome), 0)))
	dst = binary.AppendUvarint(dst, r.EndID)
	dst = binary.AppendVarint(dst, nanos(r.End))
	dst = binary.AppendUvarint(dst, r.CrashID)
	dst = binary.AppendUvarint(dst, r.ErrorID)
	// Since the run's end could come a few records after its last error:
	// an entry without these is an older one.
	dst = binary.AppendUvarint(dst, r.AfterError)
	dst = binary.AppendVarint(dst, nanos(r.ErrorTime))
	// Since a call in flight told a crash from a quit: an entry without it
	// is an older one.
	return binary.AppendUvarint(dst, r.InFlight)
}

// DecodeRunInfo decodes a runs bucket entry.
func DecodeRunInfo(k, v []byte) (oplog.RunInfo, error) {
	var r oplog.RunInfo
	var err error
	if r.Source, r.Run, err = DecodeRunKey(k); err != nil {
		return r, err
	}
	d := decoder{b: v}
	r.Start = oplog.FromUnixNano(d.varint())
	for _, p := range []*uint64{&r.FirstID, &r.LastID, &r.Records, &r.Errors} {
		*p = d.uvarint()
	}
	if d.err == nil && d.off < len(v) {
		r.Last = oplog.FromUnixNano(d.varint())
		if o := d.uvarint(); o < uint64(len(oplog.Outcomes)) {
			r.Outcome = oplog.Outcomes[o]
		} else if d.err == nil {
			d.err = fmt.Errorf("%w: run outcome %d", ErrCorrupt, o)
		}
		r.EndID = d.uvarint()
		if end := d.varint(); end != 0 {
			r.End = oplog.FromUnixNano(end)
		}
		r.CrashID, r.ErrorID = d.uvarint(), d.uvarint()
	}
	if d.err == nil && d.off < len(v) {
		r.AfterError = d.uvarint()
		if t := d.varint(); t != 0 {
			r.ErrorTime = oplog.FromUnixNano(t)
		}
	}
	if d.err == nil && d.off < len(v) {
		r.InFlight = d.uvarint()
	}
	if d.err == nil && d.off != len(v) {
		d.err = fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(v)-d.off)
	}
	return r, d.err
}
