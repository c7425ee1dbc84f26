package search

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/mcplogd/mcplogd/oplog"
)

// Words answers oplog.Index.Words: the words within edits of word in the
// segments' term dictionaries (bleve's fuzzy dictionaries, vellum's
// Levenshtein automata) and in the term sets of the chunks above the
// watermark (the same automata as a fuzzy word's, fuzzyMatcher). A
// segment's count is its dictionary's (records holding the word); a
// chunk adds one. A segment that cannot be read is left out, not an
// error: the words only feed a suggestion. EINVALID for edits outside 1..2.
func (x *Index) Words(ctx context.Context, word string, edits, limit int) ([]oplog.WordCount, error) {
	if edits < 1 || edits > 2 {
		return nil, oplog.Errorf(oplog.EINVALID, "edits: %d: expected 1 or 2", edits)
	}
	m, err := fuzzyMatcher(word, edits, 0)
	if err != nil {
		return nil, oplog.Errorf(oplog.EINVALID, "word %q: %v", word, err)
	}
	counts := map[string]int64{}
	st := x.st.Stats()
	rev := st.Revision
	x.mu.RLock()
	wm := x.watermark
	if x.revision == rev && !x.closed {
		for _, s := range x.segs {
			if ctx.Err() != nil {
				break
			}
			_ = segmentWords(ctx, s.idx, word, edits, counts)
		}
	}
	x.mu.RUnlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := &x.terms
	t.mu.Lock()
	var chunks []*chunkTerms
	if t.rev == rev {
		chunks = slices.Collect(maps.Values(t.chunks))
	}
	t.mu.Unlock()
	for _, c := range chunks {
		c.mu.RLock()
		held := map[string]bool{} // a word of text and stack counts once
		for f := range c.words {
			if c.cut[f] {
				continue
			}
			each := func(w string) {
				if !held[w] && m.match(w) {
					held[w] = true
					counts[w]++
				}
			}
			if c.complete {
				for i := range c.frozen[f].len() {
					each(c.frozen[f].at(i))
				}
			} else {
				for w := range c.words[f] {
					each(w)
				}
			}
		}
		c.mu.RUnlock()
	}
	if err := x.unsetWords(st, wm, m, counts); err != nil {
		return nil, err
	}
	return rankWords(word, edits, limit, counts), nil
}

// unsetWords adds to counts the words m matches of the records in no
// term set yet (the newest wordsWalk of them): the sets catch up within
// moments of an append, but a process that has just opened the index
// has none.
func (x *Index) unsetWords(st oplog.Stats, wm uint64, m termMatcher, counts map[string]int64) error {
	from := x.terms.covered(st.Revision, wm) + 1
	if st.LastID < from {
		return nil
	}
	if st.LastID-from >= wordsWalk {
		from = st.LastID - wordsWalk + 1
	}
	var buf []byte
	return eachRecord(x.st, &x.hint, from, st.LastID, func(recs []oplog.Record) bool {
		for i := range recs {
			held := map[string]bool{}
			for _, s := range [2]string{recs[i].Text, recs[i].Stack} {
				in := []byte(s)
				eachWord(in, func(start, end int, ascii bool) bool {
					buf = appendTerm(buf[:0], in[start:end], ascii)
					if w := string(buf); !held[w] && m.match(w) {
						held[w] = true
						counts[w]++
					}
					return true
				})
			}
		}
		return true
	})
}

// segmentWords adds the words of segment bi's text and stack dictionaries
// within edits of word to counts.
func segmentWords(ctx context.Context, bi bleve.Index, word string, edits int, counts map[string]int64) (err error) {
	defer func() {
		if p := recover(); p != nil { // a damaged segment file (damage.go)
			err = fmt.Errorf("segment words: %v", p)
		}
	}()
	ai, err := bi.Advanced()
	if err != nil {
		return err
	}
	r, err := ai.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	fr, ok := r.(index.IndexReaderFuzzy) // scorch's is
	if !ok {
		return fmt.Errorf("segment words: %T has no fuzzy dictionaries", r)
	}
	for _, f := range textFields {
		d, err := fr.FieldDictFuzzy(f, word, edits, "")
		if err != nil {
			return err
		}
		var terms []string
		for {
			e, err := d.Next()
			if err != nil || e == nil {
				break
			}
			terms = append(terms, e.Term)
		}
		_ = d.Close()
		// (A fuzzy dictionary's entries carry no counts: their postings do.)
		for _, t := range terms {
			tfr, err := r.TermFieldReader(ctx, []byte(t), f, false, false, false)
			if err != nil {
				return err
			}
			counts[t] += int64(tfr.Count())
			_ = tfr.Close()
		}
	}
	return nil
}

// rankWords orders counts' words closest to word first, then most
// records, then alphabetically, keeping those within edits, at most limit
// (zero: all).
func rankWords(word string, edits, limit int, counts map[string]int64) []oplog.WordCount {
	out := make([]oplog.WordCount, 0, len(counts))
	for w, n := range counts {
		if d := editDistance(word, w); d <= edits {
			out = append(out, oplog.WordCount{Word: w, Records: n, Distance: d})
		}
	}
	slices.SortFunc(out, func(a, b oplog.WordCount) int {
		return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(b.Records, a.Records), cmp.Compare(a.Word, b.Word))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// editDistance is the optimal string alignment distance of a and b, by
// characters: insertions, deletions, substitutions and transpositions of
// two neighbours each count one, as vellum's automata with transpositions
// count them.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	d := make([][]int, len(s)+1) // words are short: the whole table
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
