package search

import (
	"cmp"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Chunk term sets: the index of the records above the watermark. Bleve
// builds a segment at ~50,000 records a second on two cores, slower than a
// burst arrives; a term set (the distinct terms of each field of a chunk
// of TailChunk IDs, as the mapping indexes them) is built at several
// times that pace, as VictoriaLogs' per-block bloom filters are. A search
// skips every chunk whose terms cannot match its query (chunkPred) and
// evaluates its predicate on the records of the others only, so a rare
// word is found in milliseconds at any lag. The sets live in memory: at a
// start they are built again from the records above the persisted
// watermark, and dropped as bleve's watermark passes them.

// kwKey is a keyword field's value in a term set.
type kwKey struct{ field, v string }

func cmpKw(a, b kwKey) int { return cmp.Or(cmp.Compare(a.field, b.field), cmp.Compare(a.v, b.v)) }

func sortedKws(kw map[kwKey]uint32) []kwKey { return slices.SortedFunc(maps.Keys(kw), cmpKw) }

// hasKw reports whether c holds keyword k. Under c.mu (read).
func (c *chunkTerms) hasKw(k kwKey) bool {
	if c.kw != nil {
		_, ok := c.kw[k]
		return ok
	}
	_, ok := slices.BinarySearchFunc(c.kws, k, cmpKw)
	return ok
}

// anyKw reports whether a value of keyword field that c holds matches.
// Under c.mu (read).
func (c *chunkTerms) anyKw(field string, match func(string) bool) bool {
	if c.kw != nil {
		for k := range c.kw {
			if k.field == field && match(k.v) {
				return true
			}
		}
		return false
	}
	i, _ := slices.BinarySearchFunc(c.kws, kwKey{field: field}, cmpKw)
	for ; i < len(c.kws) && c.kws[i].field == field; i++ {
		if match(c.kws[i].v) {
			return true
		}
	}
	return false
}

// chunkTerms is the term set of one chunk: its records from..through.
type chunkTerms struct {
	mu       sync.RWMutex
	from     uint64               // the lowest ID whose terms are in (the chunk's first, or the watermark's next)
	through  uint64               // the highest
	first    uint64               // the chunk's first ID
	words    [2]map[string]uint32 // text, stack, each term's number in the chunk: while the chunk grows
	frozen   [2]dict              // the same, once the chunk is complete (words nil)
	arena    [2][]byte            // the bytes of words' terms (the last block; the others are held by the terms)
	kw       map[kwKey]uint32     // the keyword fields' values, numbered: while the chunk grows
	kws      []kwKey              // the same, sorted (cmpKw), once the chunk is complete (kw nil)
	kwBytes  int64                // what kw's template IDs take, about (the other keywords are few)
	grow     postGrow             // which records hold each term: while the chunk grows
	post     *chunkPost           // the same, once the chunk is complete; nil once stored (termSets.posts)
	snap     growSnap             // a growing chunk's postings as a search last built them
	span     span
	pending  []uint64 // the operations that were pending when read: matched as they now stand
	pos      uint64   // the completions journal's position before the first read
	complete bool     // every ID of the chunk is in
	cut      [2]bool  // a record held more than maxFieldTerms new words of text, stack: the set may hold any word
	size     int64    // the bytes its terms take, about
}

// termOverhead is about what a term costs a growing chunk's set beside
// its bytes (its map entry).
const termOverhead = 40

// arenaBlock is the size of the blocks that hold a growing chunk's terms.
const arenaBlock = 32 << 10

// termSets are the chunks' term sets: growing or not yet in the sets file
// (chunks), and stored (in the sets file, compressed).
type termSets struct {
	build       sync.Mutex // one buildTerms at a time
	mu          sync.Mutex
	rev         uint64 // the store generation of the sets
	through     uint64 // every record from the generation's first up to here is in a set
	chunks      map[uint64]*chunkTerms
	bytes       int64 // the sum of chunks' sizes
	stored      map[uint64]*storedSet
	storedBytes int64 // the sum of the stored sets' compressed bytes
	deadBytes   int64 // what the sets file holds of sets retention dropped
	cache       setCache
	posts       map[uint64]*chunkPost // the stored chunks' postings, the newest up to maxPostBytes
	postBytes   int64
	postTried   map[uint64]bool // the stored chunks whose postings postAgain built, or could not
}

// reset drops every set, for store generation rev, the sets starting after through.
func (t *termSets) reset(rev, through uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rev, t.through, t.chunks, t.bytes = rev, through, map[uint64]*chunkTerms{}, 0
	t.stored, t.storedBytes, t.deadBytes = map[uint64]*storedSet{}, 0, 0
	t.posts, t.postBytes, t.postTried = map[uint64]*chunkPost{}, 0, map[uint64]bool{}
	t.cache.reset()
}

// keepPost keeps stored chunk k's postings, dropping the oldest chunks'
// while they take more than maxPostBytes. Under t.mu.
func (t *termSets) keepPost(k uint64, p *chunkPost) {
	if p == nil {
		return
	}
	t.posts[k] = p
	t.postBytes += p.size()
	for t.postBytes > maxPostBytes && len(t.posts) > 0 {
		t.dropPost(t.oldestPost())
	}
}

// oldestPost is the lowest chunk with stored postings (there is one).
// Under t.mu.
func (t *termSets) oldestPost() uint64 { return slices.Min(slices.Collect(maps.Keys(t.posts))) }

// dropPost forgets chunk k's postings. Under t.mu.
func (t *termSets) dropPost(k uint64) {
	if p := t.posts[k]; p != nil {
		t.postBytes -= p.size()
		delete(t.posts, k)
	}
}

// postings returns chunk k's postings if they hold every record lo..hi.
func (t *termSets) postings(rev, k, lo, hi uint64) *chunkPost {
	t.mu.Lock()
	c, p := t.chunks[k], t.posts[k]
	ok := t.rev == rev
	t.mu.Unlock()
	switch {
	case !ok:
		return nil
	case c != nil:
		c.mu.RLock()
		defer c.mu.RUnlock()
		return c.postings(lo, hi)
	case p == nil || p.from > lo || p.through < hi:
		return nil
	}
	return p
}

func (t *termSets) storedCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.stored)
}

// get returns chunk k's set if it holds every record lo..hi of it.
func (t *termSets) get(rev, k, lo, hi uint64) *chunkTerms {
	c := t.set(rev, k)
	if c == nil {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.from > lo || c.through < hi {
		return nil
	}
	return c
}

// set returns chunk k's set: the growing one, or the stored one decoded.
func (t *termSets) set(rev, k uint64) *chunkTerms {
	t.mu.Lock()
	c, s := t.chunks[k], t.stored[k]
	ok := t.rev == rev
	t.mu.Unlock()
	switch {
	case !ok:
		return nil
	case c != nil || s == nil:
		return c
	}
	if c = t.cache.get(k); c != nil {
		return c
	}
	_, c, err := decodeSet(s.packed)
	if err != nil {
		return nil // (it was decoded at Open or encoded here): the records are evaluated
	}
	c.pos = s.pos
	t.cache.put(k, c)
	return c
}

// covered returns the highest ID through which every record is in a term
// set (wm, the sets file's, when the sets are of another generation).
func (t *termSets) covered(rev, wm uint64) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rev != rev {
		return wm
	}
	return max(t.through, wm)
}

// buildTerms adds up to termsStep records (or releaseBytes of them) after the sets' end to their
// chunks' sets, dropping those the watermark passed, and holding no more
// than maxTermSetRecords above it nor more than maxTermSetBytes and one
// record's terms. It returns how many it added, and the bytes it read.
func (x *Index) buildTerms() (int, int64, error) {
	x.terms.build.Lock()
	defer x.terms.build.Unlock()
	st := x.st.Stats()
	x.mu.RLock()
	wm, rev := x.watermark, x.revision
	x.mu.RUnlock()
	t := &x.terms
	n := x.opts.TailChunk
	t.mu.Lock()
	if t.rev != rev || rev != st.Revision {
		t.mu.Unlock()
		return 0, 0, nil // the index starts over first
	}
	from, full := max(t.through, wm), t.bytes > maxTermSetBytes
	t.mu.Unlock()
	if full {
		return 0, 0, nil // until the watermark passes some of them
	}
	last := min(st.LastID, from+termsStep, wm+maxTermSetRecords)
	if rev != st.Revision || last <= from {
		return 0, 0, nil
	}
	pos := x.dirty.mark()
	added, read := 0, int64(0)
	var buf []byte
	err := eachRecord(x.st, &x.hint, from+1, last, func(recs []oplog.Record) bool {
		for i := range recs {
			read += recordBytes(&recs[i])
		}
		for i := 0; i < len(recs) && !full; {
			k := (recs[i].ID - 1) / n
			j := i
			for j < len(recs) && (recs[j].ID-1)/n == k {
				j++
			}
			t.mu.Lock()
			c := t.chunks[k]
			if c == nil {
				c = &chunkTerms{from: recs[i].ID, first: k*n + 1, words: [2]map[string]uint32{make(map[string]uint32, 1024), {}}, kw: map[kwKey]uint32{},
					span: newSpan(), pos: pos}
				if t.rev == rev {
					t.chunks[k] = c
				}
			}
			room := maxTermSetBytes - t.bytes
			t.mu.Unlock()
			took, grown := c.addAll(recs[i:j], x.an.words, (k+1)*n, room, &buf)
			t.mu.Lock()
			if t.rev == rev && t.through < recs[i+took-1].ID {
				t.through = recs[i+took-1].ID
				t.bytes += grown
				// the records after these wait for the watermark
				full = took < j-i || t.bytes > maxTermSetBytes
			}
			t.mu.Unlock()
			added += took
			i = j
		}
		return !full && read < releaseBytes // the mapped pages it read go back before it reads more (release.go)
	})
	return added, read, err
}

// addAll puts the terms of recs, the next records of c, in c until they
// grew it by more than room bytes, freezing c once its records reach end,
// and returns how many records it took (at least one) and how many bytes
// c grew by. It holds c's lock lockRecords records at a time and freezes
// outside it: a search that looks at c waits for no more than that (a
// chunk's 4,096 records took ~40 ms, the longest searches after a burst).
// Only the builder writes c (termSets.build), so it reads c.words unlocked.
func (c *chunkTerms) addAll(recs []oplog.Record, an *wordsAnalyzer, end uint64, room int64, buf *[]byte) (int, int64) {
	took, grown := 0, int64(0)
	for took < len(recs) && (took == 0 || grown <= room) {
		c.mu.Lock()
		size := c.size
		for stop := min(len(recs), took+lockRecords); took < stop && (took == 0 || grown+c.size-size <= room); took++ {
			*buf = c.add(&recs[took], an, *buf)
		}
		c.through = recs[took-1].ID
		grown += c.size - size
		c.mu.Unlock()
		if addAllHook != nil {
			addAllHook(c)
		}
	}
	if c.through == end && !c.complete {
		frozen, kws, post := c.freeze()
		c.mu.Lock()
		c.complete, c.frozen, c.words, c.arena, c.kw, c.kws = true, frozen, [2]map[string]uint32{}, [2][]byte{}, nil, kws
		c.post, c.grow = post, postGrow{}
		c.snap.mu.Lock()
		c.snap.post, c.snap.through = nil, 0
		c.snap.mu.Unlock()
		size := c.bytes()
		grown += size - c.size
		c.size = size
		c.mu.Unlock()
	}
	return took, grown
}

// lockRecords is how many records addAll adds under one hold of a chunk's
// lock.
const lockRecords = 256

// addAllHook, when set, runs each time addAll lets go of a chunk's lock
// (tests).
var addAllHook func(c *chunkTerms)

// add puts r's terms in c; buf is scratch space, returned for reuse.
// Under c.mu.
func (c *chunkTerms) add(r *oplog.Record, an *wordsAnalyzer, buf []byte) []byte {
	off := c.grow.record(r.ID, c.first)
	c.keyword(kwKey{"level", r.Level.String()}, off, false)
	for _, f := range keywords(r.Name, r.Source, r.Kind, r.Tool, r.Status, r.ReplayOf) {
		if f.v != "" {
			c.keyword(kwKey(f), off, true)
		}
	}
	if r.Run != 0 {
		c.keyword(kwKey{"run", docID(r.Run)}, off, false)
	}
	if id := oplog.RecordTemplateID(r); id != "" {
		// many-valued, unlike the other keywords: counted in the size
		if c.keyword(kwKey{ql.TemplateField, id}, off, false) {
			c.kwBytes += int64(len(id)) + termOverhead
			c.size += int64(len(id)) + termOverhead
		}
	}
	for f, s := range [2]string{r.Text, r.Stack} {
		if s == "" || c.cut[f] {
			continue
		}
		set := c.words[f]
		in := unsafe.Slice(unsafe.StringData(s), len(s)) // only read
		added := 0
		eachWord(in, func(start, end int, ascii bool) bool {
			buf = appendTerm(buf[:0], in[start:end], ascii)
			id, ok := set[string(buf)]
			if !ok {
				if an.isStop(buf) {
					return true
				}
				if added++; added > maxFieldTerms {
					c.cut[f] = true // as the document is (cut.go): any word of f may be in the chunk
					return false
				}
				id = uint32(len(set))
				set[c.intern(f, buf)] = id
				c.size += int64(len(buf)) + termOverhead
			}
			c.size += c.grow.hold(f, id, off)
			return true
		})
	}
	c.span.add(r.Time)
	if r.Kind == oplog.KindOp && !r.IsComplete() {
		c.pending = append(c.pending, r.ID)
	}
	return buf
}

// keyword puts keyword k of the record at off in c (a copy of its value
// when clone: r's strings share the bytes of its whole record), reporting
// whether c held it yet. Under c.mu.
func (c *chunkTerms) keyword(k kwKey, off int, clone bool) bool {
	id, ok := c.kw[k]
	if !ok {
		if clone {
			k.v = strings.Clone(k.v)
		}
		id = uint32(len(c.kw))
		c.kw[k] = id
	}
	c.size += c.grow.hold(kwField, id, off)
	return !ok
}

// intern copies a new term of text field f into the chunk's arena, so
// that its terms take a few allocations, not one each. Under c.mu.
func (c *chunkTerms) intern(f int, term []byte) string {
	a := c.arena[f]
	if cap(a)-len(a) < len(term) {
		a = make([]byte, 0, max(arenaBlock, len(term)))
	}
	from := len(a)
	a = append(a, term...)
	c.arena[f] = a
	return unsafe.String(&a[from], len(term))
}

// has reports whether text field f (0: text, 1: stack) of c holds term.
// Under c.mu (read).
func (c *chunkTerms) has(f int, term string) bool {
	if c.cut[f] {
		return true
	}
	if c.complete {
		return c.frozen[f].has(term)
	}
	_, ok := c.words[f][term]
	return ok
}

// any reports whether a term of text field f matches m. Under c.mu (read).
func (c *chunkTerms) any(f int, m termMatcher) bool {
	test := func(t string) bool { return (m.lit == "" || strings.Contains(t, m.lit) || !isASCII(t)) && m.match(t) }
	if c.cut[f] {
		return true
	}
	if !c.complete {
		for t := range c.words[f] {
			if test(t) {
				return true
			}
		}
		return false
	}
	d := &c.frozen[f]
	lo, hi := 0, d.len()
	if m.prefix != "" { // the terms with the prefix are a run of the sorted ones
		lo = sort.Search(hi, func(i int) bool { return d.at(i) >= m.prefix })
		hi = lo + sort.Search(hi-lo, func(i int) bool { return !strings.HasPrefix(d.at(lo+i), m.prefix) })
	}
	for i := lo; i < hi; i++ {
		if test(d.at(i)) {
			return true
		}
	}
	return false
}

// dict is a sorted set of terms in one block of bytes: a complete chunk's
// terms take a fifth of the memory of a map of them.
type dict struct {
	data []byte
	ends []uint32 // term i is data[ends[i-1]:ends[i]] (from 0 for the first)
}

func freeze(set map[string]uint32) dict {
	d, _ := freezeIDs(set)
	return d
}

// freezeIDs is freeze, and where each term's number went: rank[id] is its
// place in the dict.
func freezeIDs(set map[string]uint32) (dict, []uint32) {
	terms := slices.Sorted(maps.Keys(set))
	size := 0
	for _, t := range terms {
		size += len(t)
	}
	d := dict{data: make([]byte, 0, size), ends: make([]uint32, len(terms))}
	rank := make([]uint32, len(terms))
	for i, t := range terms {
		d.data = append(d.data, t...)
		d.ends[i] = uint32(len(d.data))
		rank[set[t]] = uint32(i)
	}
	return d, rank
}

func (d *dict) len() int { return len(d.ends) }

// at returns term i, sharing d's bytes (which never change).
func (d *dict) at(i int) string {
	from := uint32(0)
	if i > 0 {
		from = d.ends[i-1]
	}
	if from == d.ends[i] {
		return ""
	}
	return unsafe.String(&d.data[from], int(d.ends[i]-from))
}

func (d *dict) has(term string) bool {
	_, ok := d.find(term)
	return ok
}

// find returns term's place in d.
func (d *dict) find(term string) (int, bool) {
	i := sort.Search(d.len(), func(i int) bool { return d.at(i) >= term })
	return i, i < d.len() && d.at(i) == term
}

// meets reports whether s may hold a time q matches: false only when every
// time of s is known and outside q.
func (s span) meets(q *timeRangeQuery) bool {
	if !s.Known || s.Wild || s.N == 0 || !representable(q.start) || !representable(q.end) {
		return s.N != 0 || s.Wild || !s.Known
	}
	return q.match(s.Min) || q.match(s.Max) ||
		(q.start.IsZero() || s.Max >= q.start.UnixNano()) && (q.end.IsZero() || s.Min <= q.end.UnixNano())
}
