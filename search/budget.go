package search

import (
	"math"
	"math/bits"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
	zap "github.com/mcplogd/mcplogd/third_party/zapx"
)

func init() {
	// Zap sizes a new segment's buffer by the bytes per document of the
	// segment it built before (of any index: that state is pooled) times
	// this one's documents plus 100: after a batch of a few large
	// documents, a batch of 5,000 small ones would ask for gigabytes. The
	// buffer grows as it is written instead.
	zap.NewSegmentBufferAvgBytesPerDocFactor = 0
}

// What one indexing step holds is bounded by its records' bytes and words,
// not only by their number (see the bounds in consts.go): the step reads
// the records after the watermark a few at a time and weighs each before
// taking it. The step's words are counted as the analyzer splits them, and
// its distinct words estimated from their hashes, before bleve sees them;
// a field that will be cut (cut.go) counts maxFieldTerms.

// recordOverhead is about what a decoded record takes beside its text,
// JSON and labels (the oplog.Record itself).
const recordOverhead = 288

// recordBytes is about the memory a decoded record takes: its strings and
// JSON share one buffer (codec.Decode), and the Record holds them.
func recordBytes(r *oplog.Record) int64 {
	return int64(recordOverhead + len(r.Source) + len(r.Name) + len(r.Text) + len(r.Stack) + len(r.Data) +
		len(r.Tool) + len(r.Arguments) + len(r.Result) + len(r.Error))
}

// sizeHint is the largest record the recent reads met, halved by each read
// that met none as large. A read takes as many records as its room holds
// at that size, or at the store's average size if larger, between 1 and
// maxReadRecords: a store of large records is read a few at a time, one of
// small records maxReadRecords at a time.
type sizeHint struct{ v atomic.Int64 }

// limit is how many records the next read of st takes to fill room bytes.
func (h *sizeHint) limit(room int64, st oplog.Store) int {
	size := h.v.Load()
	if s := st.Stats(); s.Records > 0 {
		size = max(size, int64(s.Bytes/s.Records)+recordOverhead)
	}
	return int(min(max(room/max(size, 1), 1), maxReadRecords))
}

// saw is told the records of a read.
func (h *sizeHint) saw(recs []oplog.Record) {
	var m int64
	for i := range recs {
		m = max(m, recordBytes(&recs[i]))
	}
	h.v.Store(max(m, h.v.Load()/2))
}

// eachRecord calls fn with the stored records lo..hi, oldest first, a read
// at a time (see sizeHint; hint nil: a new one), until fn returns false.
func eachRecord(st oplog.Store, hint *sizeHint, lo, hi uint64, fn func([]oplog.Record) bool) error {
	if hint == nil {
		hint = new(sizeHint)
	}
	for since := lo - 1; since < hi; {
		lim := min(uint64(hint.limit(readBytes, st)), hi-since)
		tl, err := st.Tail(oplog.TailQuery{SinceID: since, HasSince: true, Limit: int(lim)})
		if err != nil {
			return err
		}
		hint.saw(tl.Lines)
		n := len(tl.Lines)
		for n > 0 && tl.Lines[n-1].ID > hi {
			n--
		}
		if !fn(tl.Lines[:n]) || tl.Reset || tl.LastID <= since || len(tl.Lines) == 0 {
			return nil // done, or the store moved on (cleared): nothing more here
		}
		since = tl.LastID
	}
	return nil
}

// readStep reads the records of the next indexing step after wm, as a Tail
// of the store would answer: at most BatchSize, and no more than the step's
// bounds take (at least one). It returns each record's weight too, its
// words (at least 1), by which the step is shared among bleve batches.
func (x *Index) readStep(wm, rev uint64) (oplog.Tail, []int, error) {
	var out oplog.Tail
	var weights []int
	b := &x.budget
	b.reset()
	for since := wm; ; {
		room := min(readBytes, maxStepBytes-b.bytes)
		lim := min(x.hint.limit(room, x.st), x.opts.BatchSize-len(out.Lines))
		t, err := x.st.Tail(oplog.TailQuery{SinceID: since, HasSince: true, Revision: rev, Limit: lim})
		if err != nil || t.Reset {
			return t, nil, err
		}
		for _, dm := range t.Damaged { // the store stepped over it: the index goes on after it
			x.opts.Logger.Warn("search: records of a damaged block of the data file are not indexed", "from", dm.From, "to", dm.To, "damage", dm.String())
		}
		x.hint.saw(t.Lines)
		if out.Lines == nil { // room for the records there are, copied once, as one read would take them
			out.Lines = make([]oplog.Record, 0, min(uint64(x.opts.BatchSize), max(t.LastID, x.st.Stats().LastID)-since))
		}
		out.Revision = t.Revision
		for i := range t.Lines {
			w, ok := b.take(&t.Lines[i], len(out.Lines) == 0)
			if !ok { // the step ends at the record before: the rest is read again
				out.LastID, out.More = out.Lines[len(out.Lines)-1].ID, true
				return out, weights, nil
			}
			out.Lines = append(out.Lines, t.Lines[i])
			weights = append(weights, w)
		}
		out.LastID, out.More = t.LastID, t.More
		if !t.More || len(out.Lines) >= x.opts.BatchSize {
			return out, weights, nil
		}
		since = t.LastID
	}
}

// stepBudget weighs the records an indexing step takes. The indexer's
// (Index.budget) is used by one step at a time, under Index.work.
type stepBudget struct {
	bytes, words int64
	cutTerms     int64 // the distinct words of the fields counted as cut
	sketch       termSketch
	hashes       []uint64 // scratch: the words of the record being weighed
	set          []uint32 // scratch: the bits it set in sketch
}

func (b *stepBudget) reset() {
	b.bytes, b.words, b.cutTerms = 0, 0, 0
	b.sketch.reset()
}

// take adds r to the step, unless the step holds a record already (first
// false) and r would bring it past one of its bounds. It returns r's
// weight: the words it indexes, at least 1.
func (b *stepBudget) take(r *oplog.Record, first bool) (int, bool) {
	size := recordBytes(r)
	var words, cut int64
	b.hashes = b.hashes[:0]
	for _, s := range [2]string{r.Text, r.Stack} {
		from := len(b.hashes)
		var n int
		n, b.hashes = fieldWords(s, b.hashes)
		if n > maxFieldTerms { // it may be cut: it counts as if it were
			b.hashes = b.hashes[:from]
			words, cut = words+maxFieldTerms, cut+maxFieldTerms
			continue
		}
		words += int64(n)
	}
	b.set = b.set[:0]
	for _, h := range b.hashes {
		if i, ok := b.sketch.add(h); ok {
			b.set = append(b.set, i)
		}
	}
	if !first && (b.bytes+size > maxStepBytes || b.words+words > maxStepWords ||
		b.cutTerms+cut+b.sketch.estimate() > maxStepTerms) {
		for _, i := range b.set {
			b.sketch.remove(i)
		}
		return 0, false
	}
	b.bytes, b.words, b.cutTerms = b.bytes+size, b.words+words, b.cutTerms+cut
	return int(max(words, 1)), true
}

// fieldWords returns how many words s holds, as eachWord splits them (stop
// words too), up to maxFieldTerms+1, appending a hash of each (of its first
// maxTokenBytes, ASCII letters in either case alike: what its term is made
// of) to hs. It weighs every record indexed, so words are scanned in runs
// and hashed eight bytes at a time, without eachWord's call per word.
func fieldWords(s string, hs []uint64) (int, []uint64) {
	n, h, l, in := 0, uint64(0), 0, false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf && asciiWord[c] == 0 { // an ASCII separator
			if in {
				hs, in = append(hs, h), false
			}
			i++
			continue
		}
		word, size := true, 1
		if c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			word = ql.IsWordRune(r)
		}
		switch {
		case word && !in:
			if n++; n > maxFieldTerms {
				return n, hs // enough to know it may be cut
			}
			in, h, l = true, hashOffset, 0
		case !word && in:
			hs, in = append(hs, h), false
		}
		if !word {
			i += size
			continue
		}
		end := i + size
		for end < len(s) && s[end] < utf8.RuneSelf && asciiWord[s[end]] != 0 {
			end++ // the ASCII run of the word
		}
		if take := min(end-i, maxTokenBytes-l); take > 0 {
			h, l = hashWord(h, s[i:i+take]), l+take
		}
		i = end
	}
	if in {
		hs = append(hs, h)
	}
	return n, hs
}

// hashWord mixes the bytes of w into h eight at a time, each with its bit
// 0x20 set: ASCII letters in either case alike, and no other two word
// bytes (digits have it, _ becomes DEL).
func hashWord(h uint64, w string) uint64 {
	const prime, lower = 0x9E3779B97F4A7C15, 0x2020202020202020
	for ; len(w) >= 8; w = w[8:] {
		v := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		h = bits.RotateLeft64((h^(v|lower))*prime, 31)
	}
	if len(w) > 0 {
		var v uint64
		for k := range len(w) {
			v |= uint64(w[k]|0x20) << (8 * k)
		}
		h = bits.RotateLeft64((h^v)*prime, 31)
	}
	return h
}

// hashOffset starts a word's hash.
const hashOffset = 0xCBF29CE484222325

// asciiWord maps the ASCII bytes of words to their lower case, others to 0.
var asciiWord = func() (t [utf8.RuneSelf]byte) {
	for c := byte(0); c < utf8.RuneSelf; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
			t[c] = c
		case c >= 'A' && c <= 'Z':
			t[c] = c + 'a' - 'A'
		}
	}
	return t
}()

// termSketch estimates how many distinct words a step holds by linear
// counting: a bit of sketchBits per word's hash, the estimate from the
// share of bits set (within a few percent up to maxStepTerms).
type termSketch struct {
	bits []uint64
	ones int
}

const sketchBits = 1 << 20

func (s *termSketch) reset() {
	if s.bits == nil {
		s.bits = make([]uint64, sketchBits/64)
	}
	if s.ones > 0 {
		clear(s.bits)
		s.ones = 0
	}
}

// add sets h's bit, returning it and whether it was clear.
func (s *termSketch) add(h uint64) (uint32, bool) {
	i := uint32((h ^ h>>32) % sketchBits)
	w, m := i/64, uint64(1)<<(i%64)
	if s.bits[w]&m != 0 {
		return i, false
	}
	s.bits[w] |= m
	s.ones++
	return i, true
}

// remove clears bit i, which add set.
func (s *termSketch) remove(i uint32) {
	s.bits[i/64] &^= uint64(1) << (i % 64)
	s.ones--
}

// estimate is how many distinct hashes were added.
func (s *termSketch) estimate() int64 {
	return int64(-sketchBits * math.Log1p(-float64(s.ones)/sketchBits))
}
