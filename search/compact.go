package search

import (
	"context"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// A segment of the index is written as scorch writes any index: each batch
// becomes a file, and its merger keeps up to ten files of each size tier,
// so that a segment whose IDs are all indexed may stay in ten or more
// files, each with its own term dictionaries and posting lists. Once every
// ID of a segment is indexed and on disk, nothing is added to it but the
// operations that complete later; the indexer then merges it into one
// file, once, while it has nothing else to do: ~30% fewer bytes on the
// workload (docs/benchmarks.md, "Index size"), for a merge of its
// documents (~1 s of a core for 65,536 of them).

// maxCompactFiles is more files than a segment holds (scorch keeps ~10 of
// each tier, a few tiers).
const maxCompactFiles = 1 << 10

// compactSealed says whether the indexer merges sealed segments into one
// file. A variable for the benchmarks and tests, which set it while
// indexers of other tests may still be closing.
var compactSealed = func() *atomic.Bool { var b atomic.Bool; b.Store(true); return &b }()

// compactNext starts merging the oldest sealed segment not yet merged into
// one file, in the background, unless one is being merged. The merge ends
// with the index (or the segment, dropped by retention).
func (x *Index) compactNext() {
	if !compactSealed.Load() || !x.compacting.CompareAndSwap(false, true) {
		return
	}
	s, sc := x.nextSealed()
	if sc == nil {
		x.compacting.Store(false)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	x.compactions.Go(func() {
		defer x.compacting.Store(false)
		defer cancel()
		go func() {
			select {
			case <-x.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		opts := mergeplan.SingleSegmentMergePlanOptions
		opts.SegmentsPerMergeTask = maxCompactFiles // one merge into one file, not one per ten
		if err := sc.ForceMerge(ctx, &opts); err != nil && ctx.Err() == nil {
			x.opts.Logger.Warn("search: merging a sealed segment failed", "segment", segName(s.lo), "err", err)
		}
	})
}

// nextSealed returns the oldest segment whose every ID is indexed and on
// disk and that was not merged since it was opened, and its scorch index,
// marking it merged; nil if there is none.
func (x *Index) nextSealed() (*segment, *scorch.Scorch) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, s := range x.segs {
		if s.hi > x.persisted || s.compacted {
			continue
		}
		s.compacted = true
		if a, err := s.idx.Advanced(); err == nil {
			if sc, ok := a.(*scorch.Scorch); ok {
				return s, sc
			}
		}
	}
	return nil, nil
}
