package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/klauspost/compress/zstd"

	"github.com/mcplogd/mcplogd/oplog"
)

// A flipped bit in a block's payload fails its zstd frame's checksum, and
// DecodeBlock gives up the whole block: some 1,100–2,700 records. A block
// of format BlockZstdWords can be read in part (SalvageBlock): its
// columns are expanded without the frames' checksums, each record is
// rebuilt from its own place in every column (its rest read by its
// fields, not by the length left over, so that one wrong text does not
// shift the records after it), and a run of sumEvery records is kept when
// its values match their checksum in sums. The IDs and value lengths (the
// heads column) must expand whole: without them no record can be trusted.

// laxDecoder expands frames without checking their checksums.
var laxDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
	zstd.WithDecoderMaxMemory(maxBlockExpanded), zstd.IgnoreChecksum(true))

// SalvageBlock reads the records of the damaged block v that its checksums
// vouch for, as a Block, and returns the runs of IDs of the others (from,
// to). Only a block of format BlockZstdWords whose IDs and lengths expand
// can be read so; for any other the error says why.
func SalvageBlock(v []byte) (*Block, [][2]uint64, error) {
	h := readBlockHeader(v)
	rev, first, n := h.uvarint(), h.uvarint(), h.uvarint()
	if h.err != nil {
		return nil, nil, h.err
	}
	if v[0] != BlockZstdWords {
		return nil, nil, fmt.Errorf("%w: a block of format %d has no checksums by record", ErrCorrupt, v[0])
	}
	if n == 0 || n > maxBlockExpanded/HeaderSize {
		return nil, nil, fmt.Errorf("%w: block of %d records", ErrCorrupt, n)
	}
	deltas, vals, sums, err := salvageColumns(v[h.off:], int(n))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: block from %d: %v", ErrCorrupt, first, err)
	}
	b := &Block{Rev: rev, First: first}
	var lost [][2]uint64
	for g := 0; g < int(n); g += sumEvery {
		end := min(g+sumEvery, int(n))
		good := 4*(g/sumEvery)+4 <= len(sums)
		crc := uint32(0)
		for i := g; i < end && good; i++ {
			good = vals[i] != nil
			crc = crc32.Update(crc, castagnoli, vals[i])
		}
		good = good && crc == binary.BigEndian.Uint32(sums[4*(g/sumEvery):])
		for i := g; i < end; i++ {
			id := first + deltas[i]
			if good {
				b.ids = append(b.ids, id)
				b.data = append(b.data, vals[i]...)
				b.ends = append(b.ends, len(b.data))
				continue
			}
			if i > 0 && len(lost) > 0 && lost[len(lost)-1][1] == first+deltas[i-1] {
				lost[len(lost)-1][1] = id
			} else {
				lost = append(lost, [2]uint64{id, id})
			}
		}
	}
	b.Lost = lost
	return b, lost, nil
}

// salvageColumns rebuilds what it can of the values of a BlockZstdWords
// payload of n records: their ID deltas, each value (nil where it could
// not be rebuilt) and the checksums.
func salvageColumns(payload []byte, n int) (deltas []uint64, vals [][]byte, sums []byte, err error) {
	cols, _, err := expandColumns(payload, numColumns+numWordColumns, laxFrame)
	if err != nil {
		return nil, nil, nil, err
	}
	heads := &cols[colHeads]
	if 2*n > len(heads.b) {
		return nil, nil, nil, fmt.Errorf("%d records, %d bytes of IDs and lengths", n, len(heads.b))
	}
	deltas, lens := make([]uint64, n), make([]int, n)
	for i := range deltas {
		deltas[i] = heads.uvarint()
	}
	for i := range lens {
		lens[i] = int(heads.uvarint())
	}
	if heads.err != nil {
		return nil, nil, nil, heads.err
	}
	for i := 1; i < n; i++ {
		if deltas[i] <= deltas[i-1] {
			return nil, nil, nil, errors.New("IDs out of order")
		}
	}
	texts, terr := joinWords(cols[numColumns:])
	vals = make([][]byte, n)
	var prev int64
	for i := range n {
		if heads.off >= len(heads.b) {
			break
		}
		var v []byte
		if heads.b[heads.off] == 0 {
			heads.off++
			v = cols[colRests].take(lens[i])
		} else {
			hb := heads.take(4)
			if terr != nil || len(hb) < 4 {
				break
			}
			v = append(v, hb...)
			prev += cols[colTimes].varint()
			v = binary.BigEndian.AppendUint64(v, uint64(prev))
			v = binary.AppendUvarint(v, heads.uvarint())
			v = append(v, cols[colNames].spans(2)...)
			if v = texts.next(v); texts.err != nil {
				break
			}
			v = append(v, cols[colStacks].spans(1)...)
			v = append(v, cols[colRests].rest(oplog.Kind(hb[1]))...)
		}
		if heads.err != nil || cols[colTimes].err != nil || cols[colNames].err != nil || cols[colStacks].err != nil || cols[colRests].err != nil {
			break // a column ran out or garbled: no record after this one can be rebuilt
		}
		if len(v) == lens[i] {
			vals[i] = v
		}
	}
	return deltas, vals, cols[numColumns+colSums].b, nil
}

// laxFrame expands a column's frame without its checksum, but the heads'
// (the IDs and lengths), which must expand whole; a frame that does not
// expand at all, or whose header is damaged, leaves its column empty.
func laxFrame(i int, frame []byte) ([]byte, error) {
	c, err := zDecoder.DecodeAll(frame, nil)
	if err == nil || i == colHeads {
		return c, err
	}
	var fh zstd.Header
	if fh.Decode(frame) != nil || fh.HasFCS && fh.FrameContentSize > maxBlockExpanded {
		return nil, nil
	}
	c, _ = laxDecoder.DecodeAll(frame, nil)
	return c, nil
}

// rest returns the next value's fields after its stack from a rests
// column, read by field: data, and an operation's tool, arguments,
// result, error, start, end and replayOf (codec.go's appendRest).
func (d *decoder) rest(kind oplog.Kind) []byte {
	from := d.off
	d.span()
	if kind == oplog.KindOp {
		for range 4 {
			d.span()
		}
		d.varint()
		d.varint()
		d.uvarint()
	}
	if d.err != nil {
		return nil
	}
	return d.b[from:d.off]
}
