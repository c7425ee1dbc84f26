package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/zstd"
)

// A complete chunk's term set as it is kept once persisted: in memory and
// in the chunks file, zstd-compressed, ~9 bytes a record on the random-word
// workload and ~15 on mcplogd bench's (its words front-coded: each term
// the length of the prefix it shares with the one before, then the rest),
// against ~80 decoded. A search decodes the sets it tests (a few tens of
// microseconds each) and keeps the last ones decoded (setCache).
//
//	uvarint k, from, through
//	span: varint min, max; uvarint n; byte flags (1 wild, 2 known)
//	byte cut flags (1 text, 2 stack)
//	uvarint count of pending IDs, then each as a delta from the one before
//	the text and the stack dicts: uvarint count, then per term
//	    uvarint shared prefix, uvarint rest length, rest
//	uvarint count of keywords, then per keyword (sorted by field, value)
//	    uvarint field length, field, uvarint value length, value

var (
	setEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	setDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxChunkSetBytes))
)

// maxChunkSetBytes bounds a decoded set (a chunk of 4,096 records of
// maxFieldTerms words each is under it).
const maxChunkSetBytes = 512 << 20

// errBadSet is what decodeSet answers for bytes that are no set.
var errBadSet = errors.New("not a chunk term set")

// encodeSet returns complete chunk c (chunk k), compressed.
func encodeSet(k uint64, c *chunkTerms) []byte {
	b := binary.AppendUvarint(nil, k)
	b = binary.AppendUvarint(b, c.from)
	b = binary.AppendUvarint(b, c.through)
	b = binary.AppendVarint(b, c.span.Min)
	b = binary.AppendVarint(b, c.span.Max)
	b = binary.AppendUvarint(b, uint64(c.span.N))
	b = append(b, flags(c.span.Wild, c.span.Known))
	b = append(b, flags(c.cut[0], c.cut[1]))
	b = binary.AppendUvarint(b, uint64(len(c.pending)))
	prev := uint64(0)
	for _, id := range c.pending {
		b = binary.AppendUvarint(b, id-prev)
		prev = id
	}
	for f := range c.frozen {
		d := &c.frozen[f]
		b = binary.AppendUvarint(b, uint64(d.len()))
		last := ""
		for i := range d.len() {
			t := d.at(i)
			p := sharedPrefix(last, t)
			b = binary.AppendUvarint(b, uint64(p))
			b = binary.AppendUvarint(b, uint64(len(t)-p))
			b = append(b, t[p:]...)
			last = t
		}
	}
	kws := c.kws // complete
	b = binary.AppendUvarint(b, uint64(len(kws)))
	for _, kw := range kws {
		b = binary.AppendUvarint(b, uint64(len(kw.field)))
		b = append(b, kw.field...)
		b = binary.AppendUvarint(b, uint64(len(kw.v)))
		b = append(b, kw.v...)
	}
	return setEncoder.EncodeAll(b, make([]byte, 0, len(b)/3))
}

func flags(a, b bool) byte {
	var f byte
	if a {
		f |= 1
	}
	if b {
		f |= 2
	}
	return f
}

func sharedPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// setReader reads an encoded set, remembering the first error.
type setReader struct {
	b   []byte
	err error
}

func (r *setReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// varint reads what binary.AppendVarint wrote: a zig-zag uvarint.
func (r *setReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *setReader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// str reads n bytes as a string sharing them: the decoded set owns them,
// and nothing writes them again.
func (r *setReader) str(n uint64) string {
	b := r.bytes(n)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (r *setReader) byte() byte {
	if v := r.bytes(1); len(v) == 1 {
		return v[0]
	}
	return 0
}

func (r *setReader) fail() {
	if r.err == nil {
		r.err = errBadSet
	}
	r.b = nil
}

// decodeSet returns the set encodeSet wrote, complete, and its chunk.
func decodeSet(packed []byte) (uint64, *chunkTerms, error) {
	raw, err := setDecoder.DecodeAll(packed, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %v", errBadSet, err)
	}
	r := &setReader{b: raw}
	k := r.uvarint()
	c := &chunkTerms{from: r.uvarint(), through: r.uvarint(), complete: true}
	c.span = span{Min: r.varint(), Max: r.varint(), N: int(r.uvarint())}
	sf := r.byte()
	c.span.Wild, c.span.Known = sf&1 != 0, sf&2 != 0
	cf := r.byte()
	c.cut = [2]bool{cf&1 != 0, cf&2 != 0}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
	}
	prev := uint64(0)
	for range n {
		prev += r.uvarint()
		c.pending = append(c.pending, prev)
	}
	for f := range c.frozen {
		c.frozen[f] = r.dict()
	}
	n = r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
	}
	c.kws = make([]kwKey, 0, n)
	for range n {
		field := r.str(r.uvarint())
		c.kws = append(c.kws, kwKey{field, r.str(r.uvarint())})
	}
	if !slices.IsSortedFunc(c.kws, cmpKw) {
		r.fail()
	}
	if r.err == nil && (len(r.b) != 0 || c.from > c.through || c.from == 0) {
		r.fail()
	}
	c.size = c.bytes()
	return k, c, r.err
}

// dict reads a front-coded dict.
func (r *setReader) dict() dict {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return dict{}
	}
	d := dict{ends: make([]uint32, n)}
	last := 0
	for i := range n {
		p := r.uvarint()
		rest := r.bytes(r.uvarint())
		if p > uint64(last) || r.err != nil {
			r.fail()
			return dict{}
		}
		from := len(d.data) - last
		d.data = append(d.data, d.data[from:from+int(p)]...)
		d.data = append(d.data, rest...)
		last = int(p) + len(rest)
		d.ends[i] = uint32(len(d.data))
	}
	return d
}

// thaw makes c, decoded from the growing chunk's set, a growing set again:
// its words in maps, to which the builder adds.
func (c *chunkTerms) thaw() {
	c.kw = make(map[kwKey]uint32, len(c.kws))
	for i, k := range c.kws {
		c.kw[k] = uint32(i)
	}
	c.kws = nil
	size := c.bytes()
	for f := range c.frozen {
		d := &c.frozen[f]
		c.words[f] = make(map[string]uint32, d.len())
		for i := range d.len() {
			c.words[f][d.at(i)] = uint32(i) // (sharing d's bytes, which stay)
		}
		size += int64(d.len()) * termOverhead
		c.frozen[f] = dict{}
	}
	c.complete, c.size = false, size
}

// snapshot returns a frozen copy of growing set c, to encode. Under c.mu
// (read).
func (c *chunkTerms) snapshot() *chunkTerms {
	s := &chunkTerms{from: c.from, through: c.through, span: c.span, cut: c.cut, pending: slices.Clone(c.pending), kws: sortedKws(c.kw), complete: true}
	for f := range c.words {
		s.frozen[f] = freeze(c.words[f])
	}
	return s
}

// bytes is about what c takes in memory, decoded.
func (c *chunkTerms) bytes() int64 {
	n := int64(8 * len(c.pending))
	for f := range c.frozen {
		n += int64(len(c.frozen[f].data) + 4*len(c.frozen[f].ends))
	}
	for k := range c.kw {
		n += int64(len(k.field)+len(k.v)) + termOverhead
	}
	for _, k := range c.kws {
		n += int64(len(k.field)+len(k.v)) + 32
	}
	return n
}

// setCache keeps the persisted sets searches decoded last, up to
// maxDecodedBytes: a search tests every chunk's set, and the newest
// chunks are tested by nearly every one.
type setCache struct {
	mu    sync.Mutex
	m     map[uint64]*cachedSet
	bytes int64
	tick  uint64
}

type cachedSet struct {
	c    *chunkTerms
	used uint64
}

// get returns chunk k's decoded set, if kept.
func (s *setCache) get(k uint64) *chunkTerms {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m[k]
	if e == nil {
		return nil
	}
	s.tick++
	e.used = s.tick
	return e.c
}

// put keeps c as chunk k's, dropping the least recently used past the bound.
func (s *setCache) put(k uint64, c *chunkTerms) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[uint64]*cachedSet{}
	}
	if old := s.m[k]; old != nil {
		s.bytes -= old.c.size
	}
	s.tick++
	s.m[k] = &cachedSet{c: c, used: s.tick}
	s.bytes += c.size
	for s.bytes > maxDecodedBytes && len(s.m) > 1 {
		var oldest uint64
		first := true
		for key, e := range s.m {
			if key != k && (first || e.used < s.m[oldest].used) {
				oldest, first = key, false
			}
		}
		s.bytes -= s.m[oldest].c.size
		delete(s.m, oldest)
	}
}

// reset forgets every set.
func (s *setCache) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m, s.bytes = nil, 0
}
