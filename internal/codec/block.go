package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"slices"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// A block is a run of records compressed together. A ~120-byte log line
// barely shrinks alone; a few hundred of them share their words, names and
// times, and shrink 2–3×. Blocks live in the blocks bucket under the Key
// of their last record:
//
//	0      BlockZstdWords, BlockZstdCols, BlockS2 or BlockZstd
//	1..    uvarint rev (the write transaction's ID: a cache key that changes
//	       whenever the block is rewritten), uvarint first ID, uvarint
//	       count, then the compressed payload: the columns (columns.go;
//	       BlockZstdWords adds the texts' words and the checksums, words.go),
//	       one S2 block and the CRC-32C of what it expands to (4 bytes,
//	       big-endian), or one zstd frame (with its checksum). The payload
//	       expands to the plain bytes: count uvarint ID deltas (from first;
//	       the first is 0), count uvarint value lengths, then the values
//	       one after the other
//
// A block's values are format-2 or format-1 record values (a format-3
// value is expanded before it is blocked: either codec does better on the
// plain bytes than on S2's). zstd, at its default level, takes ~40%
// fewer bytes than S2 (BenchmarkAppendBlock: 90 by column, 100 whole,
// against 146 B a workload record; its fastest level took 116) and S2
// compresses ~5× faster: the store seals with S2 while appends come fast,
// with zstd once they pause.
//
// A zstd block of minColumnRecords records or more is kept by column with
// its texts as words (BlockZstdWords, columns.go and words.go; by column
// with its texts whole, BlockZstdCols, when it holds more distinct words
// than that keeps, and as schema 9 wrote every block); one of fewer,
// large records, is one frame (BlockZstd): columns gain nothing there, and
// would hold its bytes twice while it is read.
const (
	BlockZstd      = 1
	BlockS2        = 2
	BlockZstdCols  = 3
	BlockZstdWords = 4
)

// BlockTarget is the expanded size a block is sealed at: large enough to
// compress well, small enough that reading one record costs one
// decompression of well under a millisecond. On the benchmark workload
// (BenchmarkAppendBlock), a record takes 90 B in blocks of 128 KiB, 80 B
// in blocks of 256 KiB and 74 B in blocks of 512 KiB, and expanding a
// block 0.26, 0.42 and 1.0 ms: most of the gain is the stacks, which
// repeat across a window wider than a small block (a crash's trace is
// logged again and again).
const BlockTarget = 256 << 10

// minColumnRecords is the fewest records a zstd block keeps by column.
const minColumnRecords = 8

// maxBlockExpanded bounds what a block may declare it expands to.
const maxBlockExpanded = 64 << 20

var (
	// EncodeAll runs on as many goroutines at once as the encoder has
	// concurrency: a commit compresses its blocks on every core.
	zEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(min(runtime.GOMAXPROCS(0), 4)))
	zDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(maxBlockExpanded))
)

// Block is a decoded block. Its values stay valid as long as the Block.
type Block struct {
	Rev, First uint64
	ids        []uint64
	ends       []int // ends[i] is the end of value i in data
	data       []byte

	// A block read in part (SalvageBlock): the runs of IDs (from, to) of
	// the records it does not hold, and why.
	Lost      [][2]uint64
	LostCause error
}

// Len is the number of records in b.
func (b *Block) Len() int { return len(b.ids) }

// Last is the ID of b's last record.
func (b *Block) Last() uint64 { return b.ids[len(b.ids)-1] }

// ID is the ID of record i.
func (b *Block) ID(i int) uint64 { return b.ids[i] }

// Value is the value of record i.
func (b *Block) Value(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.data[start:b.ends[i]:b.ends[i]]
}

// Find returns the index of the first record with ID ≥ id (Len() if none).
func (b *Block) Find(id uint64) int {
	i, _ := slices.BinarySearch(b.ids, id)
	return i
}

// Size is the memory b holds, for caches.
func (b *Block) Size() int { return cap(b.data) + 8*cap(b.ids) + 8*cap(b.ends) }

var blockScratch = sync.Pool{New: func() any { return new([]byte) }}

// AppendBlock appends the block of the records ids (ascending) with values
// vals, written by transaction rev, to dst: compressed with zstd, or with
// S2 when fast.
func AppendBlock(dst []byte, rev uint64, ids []uint64, vals [][]byte, fast bool) ([]byte, error) {
	if len(ids) == 0 || len(ids) != len(vals) {
		return nil, fmt.Errorf("block of %d IDs and %d values", len(ids), len(vals))
	}
	bp := blockScratch.Get().(*[]byte)
	plain := (*bp)[:0]
	for i, id := range ids {
		if i > 0 && id <= ids[i-1] {
			return nil, fmt.Errorf("block IDs out of order: %d after %d", id, ids[i-1])
		}
		plain = binary.AppendUvarint(plain, id-ids[0])
	}
	vals = slices.Clone(vals)
	for i, v := range vals {
		if len(v) > 0 && v[0] == FormatS2 {
			var err error
			if vals[i], err = expanded(nil, v); err != nil {
				return nil, fmt.Errorf("record %d: %w", ids[i], err)
			}
		}
		plain = binary.AppendUvarint(plain, uint64(len(vals[i])))
	}
	for _, v := range vals {
		plain = append(plain, v...)
	}
	var cols [numColumns][]byte
	var words [numWordColumns][]byte
	format := byte(BlockS2)
	switch {
	case !fast && len(ids) >= minColumnRecords:
		var err error
		if cols, err = splitColumns(plain, len(ids)); err != nil {
			return nil, fmt.Errorf("block from %d: %w", ids[0], err)
		}
		format = BlockZstdCols
		ok := false
		if words, ok, err = splitWords(cols[colTexts]); err != nil {
			return nil, fmt.Errorf("block from %d: %w", ids[0], err)
		}
		if ok {
			format, cols[colTexts] = BlockZstdWords, nil
			if words[colSums], err = appendSums(nil, plain, len(ids)); err != nil {
				return nil, fmt.Errorf("block from %d: %w", ids[0], err)
			}
		}
	case !fast:
		format = BlockZstd
	}
	dst = append(dst, format)
	dst = binary.AppendUvarint(dst, rev)
	dst = binary.AppendUvarint(dst, ids[0])
	dst = binary.AppendUvarint(dst, uint64(len(ids)))
	switch format {
	case BlockS2:
		dst = append(dst, s2.Encode(nil, plain)...)
		dst = binary.BigEndian.AppendUint32(dst, crc32.Checksum(plain, castagnoli))
	case BlockZstd:
		dst = zEncoder.EncodeAll(plain, dst)
	case BlockZstdCols:
		dst = appendColumns(dst, cols[:]...)
	default:
		dst = appendColumns(appendColumns(dst, cols[:]...), words[:]...)
	}
	if cap(plain) <= 4*BlockTarget {
		*bp = plain
		blockScratch.Put(bp)
	}
	return dst, nil
}

// BlockOutdated reports whether AppendBlock would write the block v in
// another format now: one sealed with S2 while appends came fast, one of
// minColumnRecords records or more in one zstd frame, or one whose texts
// are whole (BlockZstdCols; or a block of more distinct words than
// maxBlockWords, which stays so).
func BlockOutdated(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	switch v[0] {
	case BlockS2, BlockZstdCols:
		return true
	case BlockZstd:
		_, _, n, err := BlockRev(v)
		return err == nil && n >= minColumnRecords
	}
	return false
}

// BlockRev reads a block's rev, first ID and count without expanding it.
func BlockRev(v []byte) (rev, first, n uint64, err error) {
	d := readBlockHeader(v)
	rev, first, n = d.uvarint(), d.uvarint(), d.uvarint()
	return rev, first, n, d.err
}

// readBlockHeader starts reading the block v after its format byte.
func readBlockHeader(v []byte) *decoder {
	d := &decoder{b: v, off: 1}
	if len(v) == 0 || v[0] != BlockZstd && v[0] != BlockS2 && v[0] != BlockZstdCols && v[0] != BlockZstdWords {
		d.err = fmt.Errorf("%w: block format %v", ErrCorrupt, v[:min(len(v), 1)])
	}
	return d
}

// DecodeBlock expands the block v.
func DecodeBlock(v []byte) (*Block, error) {
	h := readBlockHeader(v)
	b := &Block{Rev: h.uvarint(), First: h.uvarint()}
	n := h.uvarint()
	if h.err != nil {
		return nil, h.err
	}
	if n == 0 || n > maxBlockExpanded/HeaderSize {
		return nil, fmt.Errorf("%w: block of %d records", ErrCorrupt, n)
	}
	plain, err := expandBlock(v[0], v[h.off:], int(n))
	if err != nil {
		return nil, fmt.Errorf("%w: block from %d: %v", ErrCorrupt, b.First, err)
	}
	p := &decoder{b: plain}
	b.ids, b.ends = make([]uint64, n), make([]int, n)
	for i := range b.ids {
		b.ids[i] = b.First + p.uvarint()
		if i > 0 && b.ids[i] <= b.ids[i-1] {
			p.err = fmt.Errorf("%w: block from %d: IDs out of order", ErrCorrupt, b.First)
		}
	}
	end := 0
	for i := range b.ends {
		end += int(p.uvarint())
		b.ends[i] = end
	}
	if p.err != nil {
		return nil, p.err
	}
	if b.data = plain[p.off:]; len(b.data) != end || b.ids[0] != b.First {
		return nil, fmt.Errorf("%w: block from %d: %d bytes of values, the lengths say %d", ErrCorrupt, b.First, len(b.data), end)
	}
	return b, nil
}

// Values returns the values of b's records, in order.
func (b *Block) Values() [][]byte {
	vs := make([][]byte, len(b.ids))
	for i := range vs {
		vs[i] = b.Value(i)
	}
	return vs
}

// IDs returns the IDs of b's records, in order.
func (b *Block) IDs() []uint64 { return slices.Clone(b.ids) }

// Expanded is the bytes of b's values together.
func (b *Block) Expanded() int { return len(b.data) }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// expandBlock expands the payload of a block of n records, checking its
// checksums.
func expandBlock(format byte, payload []byte, n int) ([]byte, error) {
	switch format {
	case BlockZstd:
		return zDecoder.DecodeAll(payload, nil)
	case BlockZstdCols, BlockZstdWords:
		return joinColumns(payload, n, format == BlockZstdWords)
	}
	if len(payload) < 4 {
		return nil, errors.New("no checksum")
	}
	body, sum := payload[:len(payload)-4], binary.BigEndian.Uint32(payload[len(payload)-4:])
	if n, err := s2.DecodedLen(body); err != nil || n > maxBlockExpanded {
		return nil, fmt.Errorf("bad expanded length (%v)", err)
	}
	plain, err := s2.Decode(nil, body)
	if err != nil {
		return nil, err
	}
	if crc32.Checksum(plain, castagnoli) != sum {
		return nil, errors.New("checksum mismatch")
	}
	return plain, nil
}

// WithRev returns a copy of block v whose rev is rev: a block compressed
// before the transaction that writes it is known.
func WithRev(v []byte, rev uint64) ([]byte, error) {
	h := readBlockHeader(v)
	h.uvarint()
	if h.err != nil {
		return nil, h.err
	}
	out := make([]byte, 0, len(v)+binary.MaxVarintLen64)
	out = binary.AppendUvarint(append(out, v[0]), rev)
	return append(out, v[h.off:]...), nil
}
