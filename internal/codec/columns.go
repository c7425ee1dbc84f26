package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A zstd block's payload is kept by column (BlockZstdCols): the records'
// fields of a kind together, each column its own zstd frame. zstd then
// finds the texts' words among texts, the stacks among stacks, and the
// times, 0–2 ms apart, cost a 1–3 byte delta instead of 8 bytes whose low
// half never repeats: the benchmark workload's records take ~10% fewer
// bytes (BenchmarkAppendBlock: 90 against 100 B a record). The columns expand to the block's plain
// bytes (block.go), so that what reads a block never knows.
//
// The payload is numColumns of: uvarint length, then a zstd frame (none
// for an empty column). For a block of n records:
//
//	heads   the plain bytes' n ID deltas and n value lengths as they are,
//	        then for each value its format byte and, for format 2, kind,
//	        level, status and the run (uvarint); format 0 for a value kept
//	        whole in rests (format 1, or a value that does not read as 2)
//	times   for each format-2 value, its time less the previous one's
//	        (varint; the first less 0)
//	names   for each format-2 value, its source and name as it holds them
//	texts   its text, as it holds it (uvarint length, bytes)
//	stacks  its stack, likewise
//	rests   the bytes after its stack; a format-0 value whole
const (
	colHeads = iota
	colTimes
	colNames
	colTexts
	colStacks
	colRests
	numColumns
)

// splitColumns returns the columns of plain, the plain bytes of a block of
// n records.
func splitColumns(plain []byte, n int) ([numColumns][]byte, error) {
	var cols [numColumns][]byte
	p := &decoder{b: plain}
	for range 2 * n {
		p.uvarint()
	}
	if p.err != nil {
		return cols, p.err
	}
	cols[colHeads] = append(cols[colHeads], plain[:p.off]...)
	lens := &decoder{b: plain} // the value lengths, after the n ID deltas
	for range n {
		lens.uvarint()
	}
	var prev int64
	for range n {
		l := int(lens.uvarint())
		if p.off+l > len(plain) {
			return cols, fmt.Errorf("%w: values longer than the block", ErrCorrupt)
		}
		v := plain[p.off : p.off+l]
		p.off += l
		f, ok := valueFields(v)
		if !ok {
			cols[colHeads] = append(cols[colHeads], 0)
			cols[colRests] = append(cols[colRests], v...)
			continue
		}
		cols[colHeads] = append(cols[colHeads], v[:4]...)
		cols[colHeads] = append(cols[colHeads], v[HeaderSize:f.names]...) // the run
		t := int64(binary.BigEndian.Uint64(v[4:HeaderSize]))
		cols[colTimes] = binary.AppendVarint(cols[colTimes], t-prev)
		prev = t
		cols[colNames] = append(cols[colNames], v[f.names:f.text]...)
		cols[colTexts] = append(cols[colTexts], v[f.text:f.stack]...)
		cols[colStacks] = append(cols[colStacks], v[f.stack:f.rest]...)
		cols[colRests] = append(cols[colRests], v[f.rest:]...)
	}
	return cols, nil
}

// fieldsAt is where a format-2 value's parts start.
type fieldsAt struct{ names, text, stack, rest int }

// valueFields finds the parts of v, a format-2 value; false for any other.
func valueFields(v []byte) (fieldsAt, bool) {
	if len(v) < HeaderSize || v[0] != Format {
		return fieldsAt{}, false
	}
	d := &decoder{b: v, off: HeaderSize}
	d.uvarint()
	f := fieldsAt{names: d.off}
	d.span()
	d.span()
	f.text = d.off
	d.span()
	f.stack = d.off
	d.span()
	f.rest = d.off
	return f, d.err == nil
}

// appendColumns appends the payload of cols to dst.
func appendColumns(dst []byte, cols ...[]byte) []byte {
	for _, c := range cols {
		if len(c) == 0 {
			dst = binary.AppendUvarint(dst, 0)
			continue
		}
		frame := zEncoder.EncodeAll(c, nil)
		dst = binary.AppendUvarint(dst, uint64(len(frame)))
		dst = append(dst, frame...)
	}
	return dst
}

// joinColumns expands the payload of a block of n records kept by column
// into its plain bytes; with words, its texts kept as words (words.go).
func joinColumns(payload []byte, n int, words bool) ([]byte, error) {
	k := numColumns
	if words {
		k += numWordColumns
	}
	cols, total, err := expandColumns(payload, k, strictFrame)
	if err != nil {
		return nil, err
	}
	var sums []byte
	var texts *wordTexts
	if words {
		if texts, err = joinWords(cols[numColumns:]); err != nil {
			return nil, err
		}
		if total += texts.size; total > maxBlockExpanded {
			return nil, errors.New("columns expand past the largest block")
		}
		sums = cols[numColumns+colSums].b
		cols[numColumns+colSums].off = len(sums)
	}
	heads := &cols[colHeads]
	for range n {
		heads.uvarint()
	}
	lens := &decoder{b: heads.b, off: heads.off} // the value lengths, after the n ID deltas
	for range n {
		heads.uvarint()
	}
	if heads.err != nil {
		return nil, heads.err
	}
	plain := make([]byte, 0, total+n*(HeaderSize-4))
	plain = append(plain, heads.b[:heads.off]...)
	var prev int64
	for range n {
		start, l := len(plain), int(lens.uvarint())
		if heads.off >= len(heads.b) {
			return nil, errors.New("heads column ends early")
		}
		format := heads.b[heads.off]
		if format == 0 {
			heads.off++
			plain = append(plain, cols[colRests].take(l)...)
		} else {
			plain = append(plain, cols[colHeads].take(4)...)
			prev += cols[colTimes].varint()
			plain = binary.BigEndian.AppendUint64(plain, uint64(prev))
			plain = binary.AppendUvarint(plain, cols[colHeads].uvarint())
			plain = append(plain, cols[colNames].spans(2)...)
			if texts != nil {
				plain = texts.next(plain)
			} else {
				plain = append(plain, cols[colTexts].spans(1)...)
			}
			plain = append(plain, cols[colStacks].spans(1)...)
			plain = append(plain, cols[colRests].take(l-(len(plain)-start))...)
		}
		if len(plain)-start != l {
			return nil, fmt.Errorf("a value of %d bytes, its length says %d", len(plain)-start, l)
		}
	}
	if texts != nil {
		if err := texts.done(); err != nil {
			return nil, err
		}
	}
	for i := range cols {
		if c := &cols[i]; c.err != nil || c.off != len(c.b) {
			return nil, fmt.Errorf("column %d: %d of %d bytes read (%v)", i, c.off, len(c.b), c.err)
		}
	}
	if words {
		if err := checkSums(sums, plain, n); err != nil {
			return nil, err
		}
	}
	return plain, nil
}

// expandColumns expands the k zstd frames of payload, each with expand
// (zDecoder's DecodeAll; salvage.go's lenient one); it returns them and
// their bytes together.
func expandColumns(payload []byte, k int, expand func(i int, frame []byte) ([]byte, error)) ([]decoder, int, error) {
	cols := make([]decoder, k)
	in := &decoder{b: payload}
	total := 0
	for i := range cols {
		l := int(in.uvarint())
		if in.err != nil || l > len(payload)-in.off {
			return nil, 0, fmt.Errorf("column %d: length past the payload", i)
		}
		if l > 0 {
			c, err := expand(i, payload[in.off:in.off+l])
			if err != nil {
				return nil, 0, fmt.Errorf("column %d: %w", i, err)
			}
			if total += len(c); total > maxBlockExpanded {
				return nil, 0, errors.New("columns expand past the largest block")
			}
			cols[i].b = c
		}
		in.off += l
	}
	if in.off != len(payload) {
		return nil, 0, fmt.Errorf("%d bytes after the columns", len(payload)-in.off)
	}
	return cols, total, nil
}

// strictFrame expands a column's frame, checking its checksum.
func strictFrame(_ int, frame []byte) ([]byte, error) { return zDecoder.DecodeAll(frame, nil) }

// take returns the next l bytes; none (and an error) past the end.
func (d *decoder) take(l int) []byte {
	if d.err != nil || l < 0 || l > len(d.b)-d.off {
		if d.err == nil {
			d.err = errors.New("column ends early")
		}
		return nil
	}
	d.off += l
	return d.b[d.off-l : d.off]
}

// spans returns the next k length-prefixed fields, their prefixes with
// them.
func (d *decoder) spans(k int) []byte {
	from := d.off
	for range k {
		d.span()
	}
	if d.err != nil {
		return nil
	}
	return d.b[from:d.off]
}
