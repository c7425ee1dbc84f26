package search

import "time"

// The on-disk format: DATA/index/meta.json and one directory per segment.

// MappingVersion is the version of the index mapping and of the way records
// become documents. An index written with another version is rebuilt at
// Open. Bump it with every change to newMapping or document.
//
//   - 2: no time field (record times are kept beside the index, see
//     times.go); text and stack analysed by wordsName, not standard.
//   - 3: no term vectors: phrases are checked against the records (see
//     phrase.go).
//   - 4: replayOf, the ID a replayed operation replays.
//   - 5: run, the run of its source a record belongs to (kind marker too).
//   - 6: words of text and stack cut to maxTokenBytes.
const MappingVersion = 6

// maxTokenBytes is the longest term of text and stack: a longer word is
// indexed by its first maxTokenBytes bytes, lower-cased (as Lucene's
// maxTokenLength, 255 characters), so that a word of a megabyte does not
// cost the index's term dictionary a node per byte (twenty 1 MiB one-word
// stacks took 242 MB of peak RSS to index). The record keeps the word
// whole, and a search for a long word is confirmed on the records.
const maxTokenBytes = 256

// metaName is the file, in the index's directory, that records the mapping
// version, the store generation, the persisted watermark and the segments.
const metaName = "meta.json"

// segPrefix starts the name of a segment's directory: seg-<first ID>, the
// ID in 20 digits so that names sort as IDs do.
const segPrefix = "seg-"

// Defaults of Options (see there).
const (
	defaultSegmentSize = 1 << 16         // IDs per segment; meta.json records it, another size rebuilds
	defaultBatchSize   = 10_000          // records per indexing step
	maxDefaultParallel = 4               // bleve batches at once when Parallel is zero (and GOMAXPROCS allows)
	defaultTailChunk   = 4096            // IDs read at a time above the watermark
	defaultWalkBudget  = 2 * time.Second // Options.WalkBudget
	defaultInterval    = time.Second
)

// Limits of reading and searching.
const (
	// maxQueryBytes bounds a query string: longer ones are refused rather
	// than parsed.
	maxQueryBytes = 4096

	// maxReadBatch is how many records one read of the store returns when
	// filling a time column or walking the records above the watermark.
	maxReadBatch = 10_000

	// maxKeywordCache is how many keyword field values the documents'
	// builder keeps (see kwCache).
	maxKeywordCache = 1 << 14

	// ctxCheckEvery is how many matches a searcher walks between looks at
	// its context.
	ctxCheckEvery = 1024

	// maxTailCached bounds the decoded records above the watermark that
	// searches keep (see tailCache): ~37 MB of the workload's records; twice
	// as many raised the peak RSS of a 1M-line ingest by ~100 MB for ~40 ms
	// off the first search after a 200,000-line burst.
	maxTailCached = 1 << 16

	// termsStep is how many records the term sets' builder reads before it
	// looks whether the index is closing (see buildTerms).
	termsStep = 1 << 16

	// termsReadBatch is how many records the term sets' builder reads at a
	// time: few, as it reads while a burst is written (and the memory is
	// the burst's).
	termsReadBatch = 1024

	// maxTermSetRecords bounds the records above the watermark in term
	// sets (~80 bytes of memory each for the workload's records, ~21 MB
	// in all; a burst of 200,000 lines fits): past it (a rebuild of a
	// large store, an ingest far faster than bleve for many seconds), the
	// newer records are evaluated without one until the watermark moves.
	maxTermSetRecords = 1 << 18
)

// maxTermSetBytes bounds the memory of the term sets (records of long
// texts with many distinct words: logs of base64 blobs, say), as
// maxTermSetRecords does for the workload's. A variable for tests.
var maxTermSetBytes int64 = 64 << 20

// Timings of the background indexer and of WaitIndexed.
const (
	// While records arrive at yieldRate a second or more, the term sets
	// are less than yieldUncovered records behind them and the segments
	// less than half maxTermSetRecords, the indexer looks again every
	// yieldFor instead of building segments, for at most yieldMax in a row
	// (see yields): a burst is written sooner, and searched through the
	// term sets meanwhile.
	yieldRate      = 10_000
	yieldFor       = 20 * time.Millisecond
	yieldMax       = 2 * time.Second
	yieldUncovered = 1 << 16

	rebuildLogEvery = 2 * time.Second       // progress lines while rebuilding
	waitPoll        = 50 * time.Millisecond // how often WaitIndexed looks at the watermark
)
