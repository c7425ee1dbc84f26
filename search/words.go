package search

import (
	"cmp"
	"context"
	"slices"

	"github.com/mcplogd/mcplogd/oplog"
	ql "github.com/mcplogd/mcplogd/oplog/query"
)

// Words answers oplog.Index.Words: the words within edits of word (the
// same automata as a fuzzy word's, fuzzyMatcher), counted in the records
// of the newest wordsWalk IDs, read for it, and once a chunk in the term
// sets of the chunks below them, newest first, at most wordsSets sets.
// EINVALID for edits outside 1..2.
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
	from := max(st.FirstID, st.GenStart, 1)
	if st.LastID >= wordsWalk {
		from = max(from, st.LastID-wordsWalk+1)
	}
	n := x.opts.TailChunk
	t := &x.terms
	t.mu.Lock()
	var ks []uint64
	if t.rev == st.Revision {
		for k := range t.stored {
			if (k+1)*n < from {
				ks = append(ks, k)
			}
		}
	}
	t.mu.Unlock()
	slices.Sort(ks)
	slices.Reverse(ks)
	for i, k := range ks {
		if i == wordsSets || ctx.Err() != nil {
			break
		}
		if c := t.set(st.Revision, k); c != nil {
			c.mu.RLock()
			c.matching(m, counts)
			c.mu.RUnlock()
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := x.recentWords(from, st.LastID, m, counts); err != nil {
		return nil, err
	}
	return rankWords(word, edits, limit, counts), nil
}

// matching adds to counts the words of c's text and stack that m matches,
// each once. Under c.mu (read).
func (c *chunkTerms) matching(m termMatcher, counts map[string]int64) {
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
}

// recentWords adds to counts the words m matches of the records
// from..last, once a record.
func (x *Index) recentWords(from, last uint64, m termMatcher, counts map[string]int64) error {
	if last < from {
		return nil
	}
	var buf []byte
	return eachRecord(x.st, &x.hint, from, last, func(recs []oplog.Record) bool {
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

// rankWords orders counts' words closest to word first, then most
// records, then alphabetically, keeping those within edits, at most limit
// (zero: all).
func rankWords(word string, edits, limit int, counts map[string]int64) []oplog.WordCount {
	out := make([]oplog.WordCount, 0, len(counts))
	for w, n := range counts {
		if d := ql.EditDistance(word, w); d <= edits {
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
