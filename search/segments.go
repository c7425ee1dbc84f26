package search

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/mcplogd/mcplogd/oplog"
)

func (x *Index) segLo(id uint64) uint64 { return (id-1)/x.opts.SegmentSize*x.opts.SegmentSize + 1 }

// segmentFor returns the segment starting at lo, creating it.
func (x *Index) segmentFor(lo uint64) (*segment, error) {
	x.mu.RLock()
	for _, s := range x.segs {
		if s.lo == lo {
			x.mu.RUnlock()
			return s, nil
		}
	}
	x.mu.RUnlock()
	path := filepath.Join(x.dir, segName(lo))
	_ = removeSegments(x.dir, x.keepNames()) // leftovers of a segment meta.json did not list
	idx, err := bleve.NewUsing(path, x.m, scorch.Name, scorch.Name, scorchConfig())
	if err != nil {
		return nil, fmt.Errorf("index: create %s: %w", segName(lo), err)
	}
	s := &segment{lo: lo, hi: lo + x.opts.SegmentSize - 1, span: newSpan(), times: newTimeCol(lo, x.opts.SegmentSize), idx: idx}
	s.times.full = true // new: the indexer sets every time
	x.mu.Lock()
	x.segs = append(x.segs, s)
	slices.SortFunc(x.segs, func(a, b *segment) int { return cmp.Compare(a.lo, b.lo) })
	x.mu.Unlock()
	return s, nil
}

func (x *Index) keepNames() map[string]bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	keep := map[string]bool{}
	for _, s := range x.segs {
		keep[segName(s.lo)] = true
	}
	return keep
}

// dropTrimmed removes from segs (under x.mu) the segments whose every ID is
// below the store's first retained record, and returns them.
func (x *Index) dropTrimmed(st oplog.Stats) []*segment {
	first := st.FirstID
	if first == 0 {
		first = st.LastID + 1 // empty: nothing is retained
	}
	var dropped []*segment
	x.segs = slices.DeleteFunc(x.segs, func(s *segment) bool {
		if s.hi < first && s.hi <= x.watermark {
			dropped = append(dropped, s)
			return true
		}
		return false
	})
	return dropped
}
