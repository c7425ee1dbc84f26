package search

import (
	"context"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// Stacks are indexed once a segment. A game prints the same stack trace
// again and again (an exception each frame, the same crash each run), and
// a stack holds ~100 words: indexed on every record, the stacks took a
// sixth of the index's bytes and of its time on the benchmark workload,
// whose stacks repeat. So a segment holds one document per distinct stack
// (ID stackDocPrefix and the stack's key, its only field stack), and a
// record with a stack holds the keyword stackRefField: its stack's key. A
// leaf on stack (a word, a prefix, a wildcard, a regular expression, a
// fuzzy word, a phrase's words) is searched on the stack documents, and
// the keys of those it matches become the records that refer to them
// (stackQuery). A stack cut to its first maxFieldTerms words (cut.go) marks
// the records that hold it, which searches confirm as before.

// stackRefField is the keyword field of a record with a stack: its stack's
// key (stackKey). Queries cannot name it.
const stackRefField = "stackref"

// stackDocPrefix starts the document ID of a stack, before its key: no
// record's document ID starts with a zero byte (recordDocID).
const stackDocPrefix = "\x00s"

// stackKey is the key of a stack: its 64-bit FNV-1a hash in base 36. Two
// stacks of one key in a segment would answer for each other; at 64 bits
// that takes ~4 billion distinct stacks.
func stackKey(stack string) string {
	h := fnv.New64a()
	_, _ = h.Write(bytesOf(stack))
	return strconv.FormatUint(h.Sum64(), 36)
}

// isStackDoc reports whether a document's ID is a stack's.
func isStackDoc(ext string) bool { return strings.HasPrefix(ext, stackDocPrefix) }

// stackSet is the stacks a segment's index holds, by key, each with whether
// it was cut. It starts empty for a segment opened from disk: a stack
// indexed again replaces its document.
type stackSet struct {
	mu sync.Mutex
	m  map[string]bool
}

// maxStackSet bounds a segment's set; past it, stacks are indexed again
// whenever they come.
const maxStackSet = 1 << 16

// get returns whether key is in s (nil: none) and was cut.
func (s *stackSet) get(key string) (cut, ok bool) {
	if s == nil {
		return false, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cut, ok = s.m[key]
	return cut, ok
}

func (s *stackSet) add(key string, cut bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]bool)
	}
	if len(s.m) < maxStackSet {
		s.m[key] = cut
	}
}

// stackQuery is a leaf on stack: the records whose stack's document the
// leaf matches.
type stackQuery struct{ leaf query.Query }

func (q *stackQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, opts search.SearcherOptions) (search.Searcher, error) {
	s, err := q.leaf.Searcher(ctx, r, m, opts)
	if err != nil {
		return nil, err
	}
	return stackRecords(ctx, r, s, opts)
}

// stackTerm is the searcher of term in field, on stack the records whose
// stack holds it.
func stackTerm(ctx context.Context, r index.IndexReader, term, field string, opts search.SearcherOptions) (search.Searcher, error) {
	s, err := searcher.NewTermSearcher(ctx, r, term, field, 1, opts)
	if err != nil || field != "stack" {
		return s, err
	}
	return stackRecords(ctx, r, s, opts)
}

// stackRecords reads s, a searcher of stack documents, to its end, and
// returns the searcher of the records that refer to those it matched.
func stackRecords(ctx context.Context, r index.IndexReader, s search.Searcher, opts search.SearcherOptions) (search.Searcher, error) {
	defer s.Close()
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0), IndexReader: r}
	var keys []string
	for n := 0; ; n++ {
		if n%ctxCheckEvery == ctxCheckEvery-1 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		dm, err := s.Next(sctx)
		if err != nil {
			return nil, err
		}
		if dm == nil {
			break
		}
		ext, err := r.ExternalID(dm.IndexInternalID)
		sctx.DocumentMatchPool.Put(dm)
		if err != nil {
			return nil, err
		}
		if isStackDoc(ext) {
			keys = append(keys, ext[len(stackDocPrefix):])
		}
	}
	if len(keys) == 0 {
		// A searcher of nothing, but not a MatchNoneSearcher, which
		// cutQuery would take for a leaf of none: it adds the cut records.
		return searcher.NewTermSearcher(ctx, r, "", stackRefField, 1, opts)
	}
	return searcher.NewMultiTermSearcher(ctx, r, keys, stackRefField, 1, opts, false)
}
