package search

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/blevesearch/bleve/v2/size"
	index "github.com/blevesearch/bleve_index_api"
)

// The fields of a document, analysed without bleve's general path: the same
// terms, frequencies and lengths as bleve's TextField with the keyword
// analyzer (keyword fields) or wordsAnalyzer (text and stack) gives, with a
// few allocations per field instead of a few per word. Indexing
// allocated most of its garbage there.

// kwField is a keyword field: one term, the value itself. Its token
// frequencies are shared, read only, by every document with the same value
// (bleve only reads them: a document never holds a field twice).
type kwField struct {
	name  string
	value []byte
	freqs index.TokenFrequencies
	opts  index.FieldIndexingOptions
}

func (f *kwField) Name() string                                     { return f.name }
func (f *kwField) ArrayPositions() []uint64                         { return nil }
func (f *kwField) Options() index.FieldIndexingOptions              { return f.opts }
func (f *kwField) Analyze()                                         {}
func (f *kwField) Value() []byte                                    { return f.value }
func (f *kwField) NumPlainTextBytes() uint64                        { return uint64(len(f.value)) }
func (f *kwField) EncodedFieldType() byte                           { return 't' }
func (f *kwField) AnalyzedLength() int                              { return 1 }
func (f *kwField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }
func (f *kwField) Size() int                                        { return 64 + len(f.name) + len(f.value) }

// kwKey is a keyword field and its value.
type kwKey struct{ field, v string }

// kwCache holds the keyword fields met so far, up to maxKeywordCache; the
// keyword fields are few-valued but for replayOf and run.
type kwCache struct {
	mu sync.Mutex
	m  map[kwKey]*kwField
}

func newKwCache() *kwCache { return &kwCache{m: map[kwKey]*kwField{}} }

// field returns the keyword field name with value v.
func (c *kwCache) field(name, v string) *kwField {
	k := kwKey{name, v}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.m[k]; ok {
		return f
	}
	// v may be a substring of a whole record (codec.Decode): what the cache
	// keeps is a copy, so that it holds no record's text
	v = strings.Clone(v)
	opts := keywordOptions(name)
	tf := &index.TokenFreq{Term: []byte(v)}
	tf.SetFrequency(freqOne(opts))
	f := &kwField{name: name, value: tf.Term, freqs: index.TokenFrequencies{v: tf}, opts: opts}
	if len(c.m) < maxKeywordCache {
		c.m[kwKey{name, v}] = f
	}
	return f
}

// textField is a text or stack field, analysed by wordsAnalyzer.
type textField struct {
	name   string
	value  []byte
	an     *wordsAnalyzer
	length int
	freqs  index.TokenFrequencies
	cut    bool // it holds more than maxFieldTerms distinct words: only the first are in freqs
}

func (f *textField) Name() string                                     { return f.name }
func (f *textField) ArrayPositions() []uint64                         { return nil }
func (f *textField) Options() index.FieldIndexingOptions              { return textOpts }
func (f *textField) Value() []byte                                    { return f.value }
func (f *textField) NumPlainTextBytes() uint64                        { return uint64(len(f.value)) }
func (f *textField) EncodedFieldType() byte                           { return 't' }
func (f *textField) AnalyzedLength() int                              { return f.length }
func (f *textField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }

// Size is an estimate (bleve's walks the frequencies, a few percent of
// indexing).
func (f *textField) Size() int {
	return 96 + len(f.name) + 2*len(f.value) + f.length*tokenFreqSize
}

// tokenFreqSize estimates the bytes of one term of a field's frequencies.
var tokenFreqSize = 64 + size.SizeOfPtr

// Analyze counts the field's words as wordsAnalyzer and bleve's
// TokenFrequency (without term vectors) would: the terms lower-cased in one
// buffer, the map's keys cut from one string. A field long enough to hold
// more than maxFieldTerms words keeps its first maxFieldTerms distinct ones
// (analyzeCapped). Analysed once: document analyses the long fields itself.
func (f *textField) Analyze() {
	if f.freqs != nil {
		return
	}
	if len(f.value) >= cutMinBytes {
		f.analyzeCapped()
		return
	}
	in := f.value
	buf := make([]byte, 0, len(in))
	ends := make([]int32, 0, len(in)/6+1)
	eachWord(in, func(start, end int, ascii bool) bool {
		from := len(buf)
		buf = appendTerm(buf, in[start:end], ascii)
		if f.an.isStop(buf[from:]) {
			buf = buf[:from]
			return true
		}
		ends = append(ends, int32(len(buf)))
		return true
	})
	f.length = len(ends)
	one := freqOne(textOpts)
	str := string(buf)
	// Words repeat (stacks most): room for half of them to be distinct,
	// the map grows past that and the slab is topped up.
	f.freqs = make(index.TokenFrequencies, len(ends)/2+1)
	slab := make([]index.TokenFreq, 0, len(ends)/2+1)
	from := int32(0)
	for _, end := range ends {
		key := str[from:end]
		if tf, ok := f.freqs[key]; ok {
			tf.SetFrequency(tf.Frequency() + one)
		} else {
			if len(slab) == cap(slab) { // the pointers taken stay valid
				slab = make([]index.TokenFreq, 0, cap(slab))
			}
			slab = append(slab, index.TokenFreq{Term: buf[from:end:end]})
			tf := &slab[len(slab)-1]
			tf.SetFrequency(one)
			f.freqs[key] = tf
		}
		from = end
	}
}

// cutMinBytes is the shortest field that can hold more than maxFieldTerms
// words: n words take 2n-1 bytes at least.
const cutMinBytes = 2 * maxFieldTerms

// analyzeCapped is Analyze for a field that may hold more than
// maxFieldTerms distinct words: it keeps the first maxFieldTerms, and at
// the next new one stops and marks the field cut. (The words after are not
// counted: nothing is scored.)
func (f *textField) analyzeCapped() {
	in := f.value
	f.freqs = make(index.TokenFrequencies, 1024)
	var slab []index.TokenFreq
	var arena, buf []byte
	one := freqOne(textOpts)
	eachWord(in, func(start, end int, ascii bool) bool {
		buf = appendTerm(buf[:0], in[start:end], ascii)
		if f.an.isStop(buf) {
			return true
		}
		if tf, ok := f.freqs[string(buf)]; ok {
			f.length++
			tf.SetFrequency(tf.Frequency() + one)
			return true
		}
		if len(f.freqs) == maxFieldTerms {
			f.cut = true
			return false
		}
		f.length++
		if cap(arena)-len(arena) < len(buf) {
			arena = make([]byte, 0, max(arenaBlock, len(buf)))
		}
		from := len(arena)
		arena = append(arena, buf...)
		term := arena[from:len(arena):len(arena)]
		if len(slab) == cap(slab) {
			slab = make([]index.TokenFreq, 0, 1024)
		}
		slab = append(slab, index.TokenFreq{Term: term})
		tf := &slab[len(slab)-1]
		tf.SetFrequency(one)
		f.freqs[unsafe.String(&term[0], len(term))] = tf
		return true
	})
}

// freqOne is what one occurrence of a term adds to its frequency: 0 for
// fields indexed with SkipFreqNorm, which bleve writes without frequency
// nor norm.
func freqOne(opts index.FieldIndexingOptions) int {
	if opts.SkipFreqNorm() {
		return 0
	}
	return 1
}
