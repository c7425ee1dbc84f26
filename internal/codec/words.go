package codec

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"strconv"
)

// A block of format BlockZstdWords keeps its texts as words. zstd finds a
// word of a line again in an earlier one at a cost of two or three bytes
// (an offset and a length): a line of 18 words drawn from 5,000 took 50
// bytes compressed, though its words carry ~25 bytes of information.
// Here each text is cut into its words (runs of letters, digits,
// underscores and non-ASCII bytes) and the bytes between them; the block
// keeps its distinct words once, the most frequent first, and each text
// becomes its number of words, their ranks in that list (one byte plane a
// column, which zstd's entropy coder takes near what they carry) and its
// separators; a word that is a number as strconv writes it is kept as a
// number (one word list entry, "", stands for every number). Reading gives
// back the texts' exact bytes. On the random-word workload a block takes
// 49 bytes a record against 60 with its texts whole, on the benchmark's
// the same 80 (TestBlock_ZstdSize). The word list also holds every word
// of the block's texts without the texts: what a search would read to
// rule a block out (none reads it yet).
//
// The word columns follow the block's columns (columns.go; the texts
// column itself is empty):
//
//	dict    the distinct words, the most frequent first (uvarint length,
//	        bytes); "" stands for a number
//	counts  for each text, its number of words (uvarint)
//	rank0   each word's place in dict: its low byte
//	rank1   its second byte (a block of more than 256 words; else empty)
//	rank2   its third byte (more than 65,536 words; else empty)
//	seps    for each text, the bytes before its first word and after each
//	        word (the last one's are the text's end), each as uvarint
//	        length and bytes: its number of words and one
//	nums    each number, in order (uvarint)
//	sums    a CRC-32C of each run of sumEvery records' values, in order
//	        (4 bytes each, big-endian): checked on every read, and what
//	        a damaged block is read in part by (salvage.go)
const (
	colDict = iota
	colCounts
	colRank0
	colRank1
	colRank2
	colSeps
	colNums
	colSums
	numWordColumns
)

// maxBlockWords is the most distinct words a block keeps as words (three
// bytes of rank); a block with more keeps its texts whole (BlockZstdCols).
const maxBlockWords = 1 << 24

// sumEvery is how many records' values each checksum of sums covers.
const sumEvery = 64

// wordByte reports whether c is part of a word as blocks cut texts:
// an ASCII letter, digit or underscore, or any byte of a UTF-8 sequence.
func wordByte(c byte) bool {
	return c >= 0x80 || c == '_' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
}

// splitWords turns a texts column (each text as uvarint length and bytes)
// into the word columns, sums apart; false when it holds more than
// maxBlockWords distinct words.
func splitWords(texts []byte) (cols [numWordColumns][]byte, ok bool, err error) {
	index := map[string]int32{}
	var words []string
	var freq []int
	var ids []int32
	d := &decoder{b: texts}
	for d.off < len(d.b) {
		text := d.bytes()
		if d.err != nil {
			return cols, false, d.err
		}
		count := 0
		for i := 0; ; {
			j := i
			for j < len(text) && !wordByte(text[j]) {
				j++
			}
			cols[colSeps] = appendBytes(cols[colSeps], text[i:j])
			if j == len(text) {
				break
			}
			k := j
			for k < len(text) && wordByte(text[k]) {
				k++
			}
			w := text[j:k]
			if v, ok := canonicalNumber(w); ok {
				cols[colNums] = binary.AppendUvarint(cols[colNums], v)
				w = nil // a number: the word ""
			}
			id, seen := index[string(w)]
			if !seen {
				if len(words) == maxBlockWords {
					return cols, false, nil
				}
				id = int32(len(words))
				words = append(words, string(w))
				index[words[id]] = id
				freq = append(freq, 0)
			}
			freq[id]++
			ids = append(ids, id)
			count++
			i = k
		}
		cols[colCounts] = binary.AppendUvarint(cols[colCounts], uint64(count))
	}
	byRank := make([]int32, len(words)) // word IDs, most frequent first
	for i := range byRank {
		byRank[i] = int32(i)
	}
	slices.SortFunc(byRank, func(a, b int32) int {
		return cmp.Or(cmp.Compare(freq[b], freq[a]), cmp.Compare(words[a], words[b]))
	})
	rank := make([]int32, len(words))
	for r, id := range byRank {
		rank[id] = int32(r)
		cols[colDict] = appendString(cols[colDict], words[id])
	}
	for _, id := range ids {
		r := rank[id]
		cols[colRank0] = append(cols[colRank0], byte(r))
		if len(words) > 1<<8 {
			cols[colRank1] = append(cols[colRank1], byte(r>>8))
		}
		if len(words) > 1<<16 {
			cols[colRank2] = append(cols[colRank2], byte(r>>16))
		}
	}
	return cols, true, nil
}

// wordTexts gives a block's texts back from its word columns, one after
// the other, straight into the block's plain bytes.
type wordTexts struct {
	cols         []decoder // the word columns
	words        []byte    // the word list's column
	starts, ends []uint32  // the word of rank r is words[starts[r]:ends[r]]
	r0, r1, r2   []byte    // the ranks' byte planes
	width, at    int       // bytes of a rank; the next word's place in the planes
	size         int       // what the texts take, enough for all of them
	err          error
}

// joinWords reads the word columns' list and ranks.
func joinWords(cols []decoder) (*wordTexts, error) {
	w := &wordTexts{cols: cols, words: cols[colDict].b, width: 1}
	for d := &cols[colDict]; d.off < len(d.b); {
		i, j := d.span()
		if d.err != nil || j > math.MaxUint32 {
			return nil, fmt.Errorf("word list: %w", cmp.Or(d.err, errors.New("too long")))
		}
		w.starts, w.ends = append(w.starts, uint32(i)), append(w.ends, uint32(j))
	}
	n := len(w.starts)
	if n > 1<<8 {
		w.width = 2
	}
	if n > 1<<16 {
		w.width = 3
	}
	w.r0, w.r1, w.r2 = cols[colRank0].b, cols[colRank1].b, cols[colRank2].b
	if len(w.r1) != len(w.r0)*min(w.width-1, 1) || len(w.r2) != len(w.r0)*max(w.width-2, 0) {
		return nil, fmt.Errorf("%w: %d ranks of a list of %d words, %d and %d of their second and third bytes", ErrCorrupt, len(w.r0), n, len(w.r1), len(w.r2))
	}
	w.size = len(cols[colSeps].b) + 20*len(cols[colNums].b) + len(cols[colCounts].b)*binary.MaxVarintLen64
	for at := range w.r0 {
		r := w.rank(at)
		if r >= n {
			return nil, fmt.Errorf("%w: rank %d of %d words", ErrCorrupt, r, n)
		}
		w.size += int(w.ends[r] - w.starts[r])
	}
	return w, nil
}

// rank is the rank of the word at place at of the planes.
func (w *wordTexts) rank(at int) int {
	r := int(w.r0[at])
	if w.width > 1 {
		r |= int(w.r1[at]) << 8
	}
	if w.width > 2 {
		r |= int(w.r2[at]) << 16
	}
	return r
}

// next appends the next text to dst as a field: uvarint length, bytes.
func (w *wordTexts) next(dst []byte) []byte {
	counts, seps, nums := &w.cols[colCounts], &w.cols[colSeps], &w.cols[colNums]
	n := int(counts.uvarint())
	if w.err != nil || counts.err != nil || n > len(w.r0)-w.at {
		w.err = cmp.Or(w.err, counts.err, fmt.Errorf("%w: more words than ranks", ErrCorrupt))
		return dst
	}
	start := len(dst)
	dst = seps.sep(append(dst, 0, 0)) // two bytes for the length, the most a text usually needs
	// The loop runs for every word of the block: what it reads is in locals.
	words, starts, ends, at := w.words, w.starts, w.ends, w.at
	sb, so := seps.b, seps.off
	for ; n > 0; n-- {
		r := w.rank(at)
		at++
		if b, e := starts[r], ends[r]; e > b {
			dst = append(dst, words[b:e]...)
		} else {
			dst = strconv.AppendUint(dst, nums.uvarint(), 10)
		}
		if so+1 < len(sb) && sb[so] == 1 && sb[so+1] == ' ' {
			dst = append(dst, ' ')
			so += 2
		} else {
			seps.off = so
			dst = append(dst, seps.bytes()...)
			so = seps.off
		}
	}
	w.at, seps.off = at, so
	if seps.err != nil {
		w.err = fmt.Errorf("separators: %w", seps.err)
		return dst
	}
	l := len(dst) - start - 2
	switch {
	case l < 1<<7:
		dst[start] = byte(l)
		copy(dst[start+1:], dst[start+2:])
		return dst[:len(dst)-1]
	case l < 1<<14:
		dst[start], dst[start+1] = byte(l)|0x80, byte(l>>7)
		return dst
	}
	var lb [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(lb[:], uint64(l))
	dst = append(dst, lb[:k-2]...)
	copy(dst[start+k:], dst[start+2:start+2+l])
	copy(dst[start:], lb[:k])
	return dst
}

// done reports an error unless every word column was read whole.
func (w *wordTexts) done() error {
	if w.err != nil {
		return w.err
	}
	w.cols[colDict].off, w.cols[colRank0].off = len(w.words), w.at
	if w.width > 1 {
		w.cols[colRank1].off = w.at
	}
	if w.width > 2 {
		w.cols[colRank2].off = w.at
	}
	return nil
}

// sep appends the next separator to dst: most often one space.
func (d *decoder) sep(dst []byte) []byte {
	if d.off+1 < len(d.b) && d.b[d.off] == 1 && d.b[d.off+1] == ' ' {
		d.off += 2
		return append(dst, ' ')
	}
	return append(dst, d.bytes()...)
}

// appendSums appends the checksums of the values of a block's plain
// bytes: one for each sumEvery records.
func appendSums(dst, plain []byte, n int) ([]byte, error) {
	ends, err := valueEnds(plain, n)
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i += sumEvery {
		j := min(i+sumEvery, n)
		dst = binary.BigEndian.AppendUint32(dst, crc32.Checksum(plain[ends[i]:ends[j]], castagnoli))
	}
	return dst, nil
}

// checkSums compares the checksums of a block's values with sums; the
// error names the first run of records that differs.
func checkSums(sums, plain []byte, n int) error {
	want, err := appendSums(nil, plain, n)
	if err != nil {
		return err
	}
	if len(sums) != len(want) {
		return fmt.Errorf("%d bytes of checksums for %d records", len(sums), n)
	}
	for i := 0; i < len(want); i += 4 {
		if binary.BigEndian.Uint32(want[i:]) != binary.BigEndian.Uint32(sums[i:]) {
			at := i / 4 * sumEvery
			return fmt.Errorf("the values of records %d to %d of the block do not match their checksum", at+1, min(at+sumEvery, n))
		}
	}
	return nil
}

// valueEnds returns where the values of a block's plain bytes start:
// ends[i] is the start of value i, ends[n] the end of the last.
func valueEnds(plain []byte, n int) ([]int, error) {
	p := &decoder{b: plain}
	for range n {
		p.uvarint()
	}
	ends := make([]int, n+1)
	ends[0] = 0
	for i := range n {
		ends[i+1] = ends[i] + int(p.uvarint())
	}
	if p.err != nil {
		return nil, p.err
	}
	if ends[n] > len(plain)-p.off {
		return nil, errors.New("values longer than the block")
	}
	for i := range ends {
		ends[i] += p.off
	}
	return ends, nil
}

// canonicalNumber reads w as a number written as strconv writes it.
func canonicalNumber(w []byte) (uint64, bool) {
	if len(w) == 0 || len(w) > 18 || w[0] == '0' && len(w) > 1 {
		return 0, false
	}
	var v uint64
	for _, c := range w {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}
