package codec

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"
)

// Record format 3 (FormatS2) is format 2 with everything after the name
// (text, stack, data and an operation's fields) in one S2 block, written
// for records whose part after the name is at least CompressMin bytes and
// shrinks. The header, run, source and name stay plain, so that Header, Run
// and SourceName read a compressed record without expanding it:
//
//	0      format (3)
//	1..11  kind, level, status, time as in format 2
//	12..   the run (uvarint), source and name (uvarint-prefixed), then the
//	       S2 block of the format-2 fields from text on (a block starts
//	       with its expanded length, a uvarint)
//
// Stack traces are the bulk of a log's bytes and shrink about 2× alone; a
// ~120-byte message does not shrink alone, so short records stay format 2.
// S2 rather than zstd: it encodes a 1 KB stack about 10× and decodes it
// about 5× faster (a tail of 200 records decodes ~20 stacks), for a file
// ~7% larger on the benchmark workload. S2 blocks have no checksum, as
// format-2 values have none.

// CompressMin is the smallest part after the name that Append compresses.
const CompressMin = 256

// maxExpanded bounds the expanded part a format-3 value may declare: above
// every limit of oplog together (text, stack and three JSON fields).
const maxExpanded = 8 << 20

// maxScratch is the largest compression buffer kept for the next record.
const maxScratch = 64 << 10

var scratch = sync.Pool{New: func() any { return new([]byte) }}

// compress turns the format-2 value at dst[start:], whose fields after the
// name start at dst[rest:], into format 3 when that part is large enough
// and shrinks; else it leaves dst as it is.
func compress(dst []byte, start, rest int) []byte {
	n := len(dst) - rest
	if n < CompressMin {
		return dst
	}
	bp := getScratch()
	buf := *bp
	if need := s2.MaxEncodedLen(n); cap(buf) < need {
		buf = make([]byte, need)
	}
	c := s2.Encode(buf[:cap(buf)], dst[rest:])
	defer putScratch(bp, buf)
	if len(c) >= n {
		return dst
	}
	dst[start] = FormatS2
	return append(dst[:rest], c...)
}

// expand appends to dst[:0] the format-2 equivalent of the format-3 value
// v, whose fields after the name start at v[rest:].
func expand(dst, v []byte, rest int) ([]byte, error) {
	n, err := s2.DecodedLen(v[rest:])
	if err != nil || n > maxExpanded {
		return nil, fmt.Errorf("%w: compressed fields at byte %d: bad expanded length", ErrCorrupt, rest)
	}
	if cap(dst) < rest+n {
		dst = make([]byte, rest+n)
	}
	out := dst[:rest+n]
	copy(out, v[:rest])
	out[0] = Format
	if _, err := s2.Decode(out[rest:], v[rest:]); err != nil {
		return nil, fmt.Errorf("%w: compressed fields at byte %d: %v", ErrCorrupt, rest, err)
	}
	return out, nil
}

// getScratch returns a buffer from the pool; putScratch gives it back,
// unless it grew too large to keep.
func getScratch() *[]byte { return scratch.Get().(*[]byte) }

func putScratch(bp *[]byte, b []byte) {
	if cap(b) <= maxScratch {
		*bp = b
		scratch.Put(bp)
	}
}
