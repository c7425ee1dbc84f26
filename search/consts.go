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
//   - 7: a text or stack field of more than maxFieldTerms distinct words
//     indexed by its first maxFieldTerms, its document marked cut (cut.go).
//   - 8: template, the ID of the text's template (oplog.TextTemplateID):
//     the rebuild gives the records stored before theirs.
//   - 9: no term frequencies nor field lengths but for template and
//     replayOf (SkipFreqNorm, see mapping.go): nothing is scored.
//   - 10: template indexed by its first templateBucketLen digits
//     (templates.go).
//   - 11: a record's document ID is its ID's big-endian bytes, not its
//     decimal (recordDocID).
//   - 12: a term of frequency 0 in each posting is written without its
//     frequency bytes (third_party/zapx/MCPLOGD.md); an index whose files
//     hold them is rebuilt rather than merged with.
//   - 13: an operation's template is its call shape, the tool and its
//     arguments' names (oplog.RecordTemplateID), no longer its text's.
const MappingVersion = 13

// maxTokenBytes is the longest term of text and stack: a longer word is
// indexed by its first maxTokenBytes bytes, lower-cased (as Lucene's
// maxTokenLength, 255 characters), so that a word of a megabyte does not
// cost the index's term dictionary a node per byte (twenty 1 MiB one-word
// stacks took 242 MB of peak RSS to index). The record keeps the word
// whole, and a search for a long word is confirmed on the records.
const maxTokenBytes = 256

// maxFieldTerms is how many distinct words of one text or stack field the
// index holds: a field of more is indexed by its first maxFieldTerms and
// its document marked, so that searches confirm it on the record (cut.go).
// Bleve's time and memory for a document follow its distinct words: a 1
// MiB stack of 120,000 random words took 5 s and ~80 MB to index. Logs
// hold far fewer: no whole file of follow/testdata's real logs (crash
// reports and native dumps among them) holds 700.
const maxFieldTerms = 8 << 10

// metaName is the file, in the index's directory, that records the mapping
// version, the store generation, the persisted watermark and the segments.
const metaName = "meta.json"

// segPrefix starts the name of a segment's directory: seg-<first ID>, the
// ID in 20 digits so that names sort as IDs do.
const segPrefix = "seg-"

// Defaults of Options (see there).
const (
	defaultSegmentSize = 1 << 16         // IDs per segment; meta.json records it, another size rebuilds
	defaultBatchSize   = 10_000          // records per indexing step, at most (see the step's bounds below)
	maxDefaultParallel = 4               // bleve batches at once when Parallel is zero (and GOMAXPROCS allows)
	defaultTailChunk   = 4096            // IDs read at a time above the watermark
	defaultWalkBudget  = 2 * time.Second // Options.WalkBudget
	defaultInterval    = time.Second
)

// The memory of indexing. Bleve's memory for a batch follows its words, not
// its records: ~130 bytes for each distinct word of a document, ~500 more
// for a word new to the batch (its dictionary entry and postings); a
// document of 120,000 distinct words (a 1 MiB stack of random identifiers)
// took ~80 MB and 5 s, and an indexing step of 10,000 records held
// whatever they weighed (a rebuild of 300 such records passed 12 GB). So
// an indexing step, on every path (a burst, a catch-up, a rebuild,
// reindex), ends at whichever bound it meets first: Options.BatchSize
// records, maxStepBytes of records, maxStepWords words indexed or
// maxStepTerms distinct words among them (budget.go), and a field indexes
// maxFieldTerms distinct words at most (cut.go). The workload's steps of
// 10,000 records hold ~2.5 MB, ~310,000 words and ~20,000 distinct ones:
// they are as before. What the index holds live is then bounded whatever
// the records: a step (its records, ~100 MB of bleve's batch at most), the
// term sets (maxTermSetBytes), the decoded records above the watermark
// (maxTailCachedBytes and a chunk, maxChunkBytes) and one read of the store
// (maxReadRecords). Under a --memory-limit that holds it (the default 200
// MiB does), RSS stays within --memory-limit plus 128 MiB: the runtime's
// own memory, the program (~20 MiB), the log's pages read since they last
// went back (release.go) and the pages of the segment files bleve maps
// (~40-90 MiB measured). Measured: a rebuild of 300 records of 1 MiB of
// distinct words peaked at 197-201 MiB, a live ingest of 100 at 176-178
// MiB (148 and 127 MiB under a 64 MiB limit), the workload's
// 1,000,000-record ingest and catch-up at 317 MiB (docs/faults.md, "Indexing
// memory, whatever the records hold"; TestIndex_Memory_*).
const (
	// maxStepBytes bounds the bytes of an indexing step's records (their
	// text, stack, JSON and labels, and ~300 bytes each beside).
	maxStepBytes = 16 << 20

	// maxStepWords bounds the words an indexing step indexes (of text and
	// stack; a field cut at maxFieldTerms counts that many).
	maxStepWords = 512 << 10

	// maxStepTerms bounds the distinct words of an indexing step,
	// estimated (termSketch; a field cut at maxFieldTerms counts that
	// many).
	maxStepTerms = 64 << 10

	// maxReadRecords bounds the records of one read of the store, and
	// readBytes is what one read aims at, sized by the largest record the
	// recent reads met (sizeHint): a read of large records takes a few.
	// One read past a run of small records holds at most maxReadRecords
	// large ones (64 MiB of 1 MiB records); a read costs ~3.5 µs beside
	// ~0.45 µs a record.
	maxReadRecords = 64
	readBytes      = 1 << 20
)

// Limits of reading and searching.
const (
	// maxQueryBytes bounds a query string: longer ones are refused rather
	// than parsed.
	maxQueryBytes = 4096

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

	// maxTailCachedBytes bounds the same cache's records by their bytes
	// (recordBytes), and maxChunkBytes one chunk's: a chunk of larger
	// records is not kept whole but evaluated as it is read.
	maxTailCachedBytes = 48 << 20
	maxChunkBytes      = 16 << 20

	// termsStep is how many records the term sets' builder reads before it
	// looks whether the index is closing (see buildTerms).
	termsStep = 1 << 16

	// maxTermSetRecords bounds the records above the watermark in term
	// sets (~80 bytes of memory each for the workload's records, ~21 MB
	// in all; a burst of 200,000 lines fits): past it (a rebuild of a
	// large store, an ingest far faster than bleve for many seconds), the
	// newer records are evaluated without one until the watermark moves.
	maxTermSetRecords = 1 << 18

	// wordsWalk bounds the records in no term set yet that Words reads
	// for their words (the newest of them; Words runs for an empty
	// answer only).
	wordsWalk = 1 << 14
)

// maxTermSetBytes bounds the memory of the term sets (records of long
// texts with many distinct words: logs of base64 blobs, say), as
// maxTermSetRecords does for the workload's. A variable for tests.
var maxTermSetBytes int64 = 64 << 20

// Timings of the background indexer and of WaitIndexed.
const (
	// While the term sets catch up with the log, or records arrive at
	// yieldRate a second or more, the term sets are less than
	// yieldUncovered records behind them and the segments less than half
	// maxTermSetRecords, the indexer looks again every yieldFor instead
	// of building segments, for at most yieldMax in a row (see yields): a
	// burst is written sooner, and searched through the term sets
	// meanwhile.
	yieldRate      = 10_000
	yieldFor       = 20 * time.Millisecond
	yieldMax       = 2 * time.Second
	yieldUncovered = 1 << 16

	rebuildLogEvery = 2 * time.Second       // progress lines while rebuilding
	waitPoll        = 50 * time.Millisecond // how often WaitIndexed looks at the watermark
)
