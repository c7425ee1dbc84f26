package search

import (
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcplogd/mcplogd/oplog"
)

// Postings: for each term of a chunk's set, which of the chunk's records
// hold it. A set tells a search which chunks may hold a match; their
// postings tell it which records, so that it reads only the records it
// answers with (or must check: a phrase's order, a time). Two common words
// that meet in one record of 5,000 were found by reading and checking
// every record of the log, ~200 ms for 200,000; their postings answer it
// in a few milliseconds. Postings live in memory only: the sets builder
// keeps them as it reads each record (it analyses its words anyway), and
// termSets.posts keeps the newest chunks' up to maxPostBytes. After a
// restart, the chunks read back from the sets file have none until
// postAgain has read their records again, newest first, in the
// background. A chunk without postings is searched on its records, as
// before. A record's place in its chunk is a uint16: chunks of
// more than 65,536 IDs keep none.

// kwField is where postGrow keeps the keyword fields' terms (after text
// and stack).
const kwField = 2

// maxPostBytes bounds the postings of stored chunks (termSets.posts).
var maxPostBytes int64 = 32 << 20

// maxPostFetch is the most records a search reads one by one in a chunk
// to check them; more, and it reads the chunk.
const maxPostFetch = 256

// postGrow is what a growing chunk's set knows of its records: for text,
// stack and the keywords, each (term number, record) once, in the order
// the records came.
type postGrow struct {
	from    uint64      // the first record it holds (0: none)
	present []uint64    // the places of the records it holds (a bitmap)
	entries [3][]uint64 // term number << 32 | record's place
	last    [3][]uint32 // by term number: 1 + the place of the last record that held it
	skip    bool        // a chunk too large for places of 16 bits: no postings
}

// record starts the record id of the chunk that starts at first,
// returning its place.
func (g *postGrow) record(id, first uint64) int {
	if g.from == 0 {
		g.from = id
	}
	off := int(id - first)
	if g.skip = g.skip || id-first > 0xffff; !g.skip {
		for off>>6 >= len(g.present) {
			g.present = append(g.present, 0)
		}
		bitmap(g.present).set(off)
	}
	return off
}

// hold notes that the record at off holds term id of field f, returning
// the bytes that took.
func (g *postGrow) hold(f int, id uint32, off int) int64 {
	if g.skip {
		return 0
	}
	var grown int64
	for int(id) >= len(g.last[f]) {
		g.last[f] = append(g.last[f], 0)
		grown += 4
	}
	if g.last[f][id] == uint32(off)+1 {
		return grown
	}
	g.last[f][id] = uint32(off) + 1
	g.entries[f] = append(g.entries[f], uint64(id)<<32|uint64(off))
	return grown + 8
}

// chunkPost is the postings of a chunk's records from..through.
type chunkPost struct {
	first, from, through uint64 // the chunk's first ID; the records it holds
	n                    int    // bits of a bitmap: the chunk's IDs
	present              bitmap
	fields               [2]postings // text, stack
	kws                  []kwKey     // sorted (cmpKw)
	kw                   postings    // by kws' order
	cut                  [2]bool     // as the set's: a field's terms were cut short
	span                 span
	pending              []uint64
	pos                  uint64
}

// postings is a dict's postings: term i's records are recs[offs[i]:offs[i+1]].
type postings struct {
	d    dict // (text and stack)
	offs []uint32
	recs []uint16
}

// of returns the records of term i as a bitmap of n.
func (p *postings) of(i int, s *scratch) bitmap {
	b := s.bitmap()
	for _, r := range p.recs[p.offs[i]:p.offs[i+1]] {
		b.set(int(r))
	}
	return b
}

// orOf adds the records of term i to b.
func (p *postings) orOf(i int, b bitmap) {
	for _, r := range p.recs[p.offs[i]:p.offs[i+1]] {
		b.set(int(r))
	}
}

// size is about what p takes in memory.
func (p *chunkPost) size() int64 {
	n := int64(8*len(p.present) + 8*len(p.pending) + 4*len(p.kw.offs) + 2*len(p.kw.recs) + 32*len(p.kws))
	for f := range p.fields {
		q := &p.fields[f]
		n += int64(len(q.d.data) + 4*len(q.d.ends) + 4*len(q.offs) + 2*len(q.recs))
	}
	return n
}

// freeze returns growing set c's terms sorted and its postings (nil: it
// keeps none). Only the builder calls it, outside c.mu; a search's
// snapshot calls it under c.mu (read).
func (c *chunkTerms) freeze() ([2]dict, []kwKey, *chunkPost) {
	var frozen [2]dict
	var ranks [3][]uint32
	for f := range c.words {
		frozen[f], ranks[f] = freezeIDs(c.words[f])
	}
	kws := sortedKws(c.kw)
	ranks[kwField] = make([]uint32, len(kws))
	for i, k := range kws {
		ranks[kwField][c.kw[k]] = uint32(i)
	}
	g := &c.grow
	if g.from == 0 || g.skip {
		return frozen, kws, nil
	}
	p := &chunkPost{first: c.first, from: g.from, through: c.through, kws: kws, cut: c.cut, span: c.span,
		pending: slices.Clone(c.pending), pos: c.pos}
	p.n = int(c.through-c.first) + 1
	p.present = newBitmap(p.n)
	copy(p.present, g.present)
	for f := range frozen {
		p.fields[f] = csr(frozen[f], ranks[f], g.entries[f])
	}
	p.kw = csr(dict{}, ranks[kwField], g.entries[kwField])
	return frozen, kws, p
}

// csr turns entries (term number << 32 | place, places ascending) into
// d's postings; rank[id] is term id's place in d.
func csr(d dict, rank []uint32, entries []uint64) postings {
	p := postings{d: d, offs: make([]uint32, len(rank)+1), recs: make([]uint16, len(entries))}
	for _, e := range entries {
		p.offs[rank[e>>32]+1]++
	}
	for i := 1; i < len(p.offs); i++ {
		p.offs[i] += p.offs[i-1]
	}
	at := slices.Clone(p.offs[:len(rank)])
	for _, e := range entries {
		r := rank[e>>32]
		p.recs[at[r]] = uint16(e)
		at[r]++
	}
	return p
}

// growSnap is a growing chunk's postings as a search built them, kept
// while the chunk holds the same records.
type growSnap struct {
	mu      sync.Mutex
	post    *chunkPost // nil: the chunk keeps none
	through uint64     // the chunk's last record when built (0: not built)
}

// postings returns c's postings when they hold every record lo..hi (nil
// when they do not). Under c.mu (read).
func (c *chunkTerms) postings(lo, hi uint64) *chunkPost {
	p := c.post
	if !c.complete {
		c.snap.mu.Lock()
		if c.snap.through != c.through {
			_, _, c.snap.post = c.freeze()
			c.snap.through = c.through
		}
		p = c.snap.post
		c.snap.mu.Unlock()
	}
	if p == nil || p.from > lo || p.through < hi {
		return nil
	}
	return p
}

// term returns the records whose text field f holds t.
func (p *chunkPost) term(s *scratch, f int, t string) bitmap {
	q := &p.fields[f]
	i, ok := q.d.find(t)
	if !ok {
		return nil
	}
	return q.of(i, s)
}

// terms returns the records whose text field f holds one of ts.
func (p *chunkPost) terms(s *scratch, f int, ts []string) bitmap {
	q := &p.fields[f]
	var b bitmap
	for _, t := range ts {
		if i, ok := q.d.find(t); ok {
			if b == nil {
				b = s.bitmap()
			}
			q.orOf(i, b)
		}
	}
	return b
}

// match returns the records that hold a term of text field f that m
// matches (as chunkTerms.any finds one).
func (p *chunkPost) match(s *scratch, f int, m termMatcher) bitmap {
	test := func(t string) bool { return (m.lit == "" || strings.Contains(t, m.lit) || !isASCII(t)) && m.match(t) }
	q := &p.fields[f]
	d := &q.d
	lo, hi := 0, d.len()
	if m.prefix != "" {
		lo = sort.Search(hi, func(i int) bool { return d.at(i) >= m.prefix })
		hi = lo + sort.Search(hi-lo, func(i int) bool { return !strings.HasPrefix(d.at(lo+i), m.prefix) })
	}
	b := s.bitmap()
	for i := lo; i < hi; i++ {
		if test(d.at(i)) {
			q.orOf(i, b)
		}
	}
	return b
}

// keyword returns the records whose keyword field holds a value that
// matches (the value itself, when exact is not "").
func (p *chunkPost) keyword(s *scratch, field, exact string, match func(string) bool) bitmap {
	i, _ := slices.BinarySearchFunc(p.kws, kwKey{field: field, v: exact}, cmpKw)
	if exact != "" {
		if i == len(p.kws) || p.kws[i] != (kwKey{field, exact}) {
			return nil
		}
		return p.kw.of(i, s)
	}
	b := s.bitmap()
	for ; i < len(p.kws) && p.kws[i].field == field; i++ {
		if match(p.kws[i].v) {
			p.kw.orOf(i, b)
		}
	}
	return b
}

// bitmap is a set of a chunk's places; nil is empty.
type bitmap []uint64

func newBitmap(n int) bitmap    { return make(bitmap, (n+63)/64) }
func (b bitmap) set(i int)      { b[i>>6] |= 1 << (i & 63) }
func (b bitmap) has(i int) bool { return i>>6 < len(b) && b[i>>6]&(1<<(i&63)) != 0 }
func (b bitmap) clear(i int)    { b[i>>6] &^= 1 << (i & 63) }
func (b bitmap) count() (n int) {
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// scratch holds the bitmaps of n places of one chunk's test, reused for
// the next chunk's: a search tests many chunks, and a bitmap of 4,096
// places allocated each time was a third of the test's time.
type scratch struct {
	n     int
	words []uint64
}

// reset starts the bitmaps of a chunk of n places over.
func (s *scratch) reset(n int) { s.n, s.words = n, s.words[:0] }

// bitmap returns an empty bitmap of s.n places.
func (s *scratch) bitmap() bitmap {
	w := (s.n + 63) / 64
	if len(s.words)+w > cap(s.words) {
		s.words = make([]uint64, 0, max(2*cap(s.words), 16*w)) // the bitmaps given out keep the old array
	}
	b := s.words[len(s.words) : len(s.words)+w]
	s.words = s.words[:len(s.words)+w]
	clear(b)
	return bitmap(b)
}

// and, or and andNot return new bitmaps (or one of theirs: nil is empty).
func and(s *scratch, a, b bitmap) bitmap {
	if a == nil || b == nil {
		return nil
	}
	c := s.bitmap()
	for i := range c {
		c[i] = a[i] & b[i]
	}
	return c
}

func or(s *scratch, a, b bitmap) bitmap {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	c := s.bitmap()
	for i := range c {
		c[i] = a[i] | b[i]
	}
	return c
}

func andNot(s *scratch, a, b bitmap) bitmap {
	if a == nil || b == nil {
		return a
	}
	c := s.bitmap()
	for i := range c {
		c[i] = a[i] &^ b[i]
	}
	return c
}

// postAgain builds the postings of the stored chunks that have none (read
// back from the sets file at a start), newest first, from their records,
// while they fit in maxPostBytes. It runs on the warming goroutine, once
// the sets caught up: a chunk of 4,096 records takes a few milliseconds.
func (x *Index) postAgain() error {
	st := x.st.Stats()
	x.mu.RLock()
	rev := x.revision
	x.mu.RUnlock()
	n := x.opts.TailChunk
	t := &x.terms
	t.mu.Lock()
	var ks []uint64
	for k := range t.stored {
		if t.lacksPost(k) {
			ks = append(ks, k)
		}
	}
	t.mu.Unlock()
	if rev != st.Revision || n > 1<<16 || len(ks) == 0 {
		return nil
	}
	slices.Sort(ks)
	for _, k := range slices.Backward(ks) {
		select {
		case <-x.stop:
			return nil
		default:
		}
		t.mu.Lock()
		full := t.postBytes >= maxPostBytes && (len(t.posts) == 0 || k < t.oldestPost())
		t.mu.Unlock()
		if full {
			return nil // older than every chunk kept: dropped at once
		}
		post, err := x.postChunk(k, max(k*n+1, st.FirstID, st.GenStart), (k+1)*n)
		if err != nil {
			return err
		}
		t.mu.Lock()
		if t.rev == rev && t.lacksPost(k) {
			t.postTried[k] = true
			t.dropPost(k)
			t.keepPost(k, post)
		}
		t.mu.Unlock()
	}
	return nil
}

// lacksPost reports whether stored chunk k has no postings, or postings of
// only its records since a restart, and postAgain has not built them.
// Under t.mu.
func (t *termSets) lacksPost(k uint64) bool {
	s, p := t.stored[k], t.posts[k]
	return s != nil && !t.postTried[k] && (p == nil || p.from > s.from)
}

// postChunk reads the records lo..hi of chunk k and returns their
// postings (nil: they hold more than maxTermSetBytes of terms, or none).
func (x *Index) postChunk(k, lo, hi uint64) (*chunkPost, error) {
	c := &chunkTerms{from: lo, first: k*x.opts.TailChunk + 1, words: [2]map[string]uint32{{}, {}}, kw: map[kwKey]uint32{},
		span: newSpan(), pos: x.dirty.mark()}
	var buf []byte
	err := eachRecord(x.st, &x.hint, lo, hi, func(recs []oplog.Record) bool {
		var bytes int64
		for i := range recs {
			buf = c.add(&recs[i], x.an.words, buf) // (c is this goroutine's alone)
			c.through = recs[i].ID
			bytes += recordBytes(&recs[i])
		}
		x.readBytes(bytes)
		return c.size <= maxTermSetBytes
	})
	if err != nil || c.size > maxTermSetBytes || c.through == 0 {
		return nil, err
	}
	_, _, post := c.freeze()
	return post, nil
}
