package search

import "time"

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

// Defaults of Options (see there).
const (
	defaultTailChunk  = 4096            // IDs of a chunk: a term set's, and a search's read of the store
	defaultWalkBudget = 2 * time.Second // Options.WalkBudget
	defaultInterval   = time.Second
)

// The memory of indexing. What the index holds live is bounded whatever
// the records: the growing term sets (maxTermSetBytes, their postings
// counted), the stored sets (compressed, ~9-15 bytes a record; setCache
// keeps maxDecodedBytes of them decoded), the stored chunks' postings
// (maxPostBytes, postings.go), the decoded records of the newest chunks
// (maxTailCachedBytes and a chunk, maxChunkBytes) and one read of the
// store (maxReadRecords); a field's words count maxFieldTerms at most.
const (
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
	// writes the chunks they completed and looks whether the index is
	// closing (see buildTerms).
	termsStep = 1 << 16

	// holdBehind is how many records in no term set hold the store's
	// sealer (Index.behind).
	holdBehind = 10_000

	// maxDecodedBytes bounds the stored sets kept decoded (setCache):
	// ~200 chunks of the workload's, ~800,000 records.
	maxDecodedBytes = 32 << 20

	// exactTotalIDs: a search of a log of fewer IDs walks all of them,
	// so that its total is exact; a larger log's total is estimated from
	// the IDs walked when the page was full.
	exactTotalIDs = 1 << 14

	// tailEvery is how often, at most, the growing chunk's set is written
	// while records keep arriving (sets.go, writeGrowing).
	tailEvery = time.Second

	// wordsSets bounds the sets Words reads (the newest): ~4M records.
	wordsSets = 1024

	// maxTermSetRecords bounds the records in growing sets, not yet in
	// the sets file (~80 bytes of memory each for the workload's records):
	// the builder writes each chunk it completes, so this is met only
	// when the sets file cannot be written (a full disk).
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

// minRewriteBytes: the sets file is rewritten once what retention dropped
// of it is more than what it keeps and than this. A variable for tests.
var minRewriteBytes int64 = 1 << 20

// waitPoll is how often WaitIndexed looks at the sets.
const waitPoll = 50 * time.Millisecond
