// Package search is mcplogd's full-text index: a bleve implementation of
// oplog.Index.
//
// The index is partitioned by ID range: one bleve (scorch) index per
// segment of SegmentSize IDs under DATA/index/seg-<first ID>, plus
// meta.json with the mapping version, the store generation and the
// watermark (the highest ID indexed and persisted). Documents store
// nothing: hits are IDs, and records load from bbolt. A background indexer
// reads the store after the watermark in large batches, woken by the Log's
// Changed channel, so appends never wait for it. Retention drops whole
// segments; a cleared store starts the index over.
//
// Bleve builds segments at ~50,000 records a second on two cores, slower
// than a burst arrives. The records above the watermark are therefore
// indexed first in memory, by chunk of TailChunk IDs: a second background
// loop puts each field's distinct terms (as the mapping analyses them) in
// the chunk's term set, ~300,000 records a second on one core (terms.go);
// a complete chunk's set is frozen into one sorted block (~80 bytes a
// record). Status counts a record as indexed once it is in a segment or in
// a term set (SegmentsThrough and SegmentLag say how far the segments
// are). A search tests each chunk's set with the query's mirror on terms
// (terms_pred.go: a NOT, or a shape it does not know, is a maybe) and
// skips the chunks that cannot match, so a rare word is found in
// milliseconds at any lag. While a burst arrives and the sets keep up, or
// while the sets catch up, the indexer steps aside (for up to two seconds
// at a time, see yields), leaving the cores to the writers and the sets;
// the segments catch up after them. While more than a step's records are
// in no segment, the index holds the store's sealer
// (store.DB.HoldSealing), whose compression would take a core from the
// catch-up.
//
// Answers are exact whatever the indexer's lag: the compiled query is
// evaluated directly on the records above the watermark that no term set
// rules out, read from the
// store TailChunk IDs at a time (whole chunks kept decoded until the
// watermark passes them), newest first, with bleve's semantics (eval.go),
// and on the operations indexed while still pending (whose
// status and level change when they complete) as they now stand: those
// that completed since, by the log's journal of completions
// (Options.Completed), so that operations that never complete are not read
// again by every step and every search (pending.go). A search
// walks those records and then the segments newest first, unscored,
// collecting IDs and sorting them in Go, and stops when the page is full,
// so newest-first never sorts all matches. A query with a phrase, which
// a segment confirms on its candidates' records, searches each segment in
// windows of IDs from the newest down (searchWindows), so that it reads
// the records of the window's candidates only. The walk above the watermark
// holds no lock of the index, ends with the request's context, and takes
// one of Options.Walks turns when it may read more than one chunk, so that
// searches during a lag cannot crowd out the indexer that ends it.
//
// A template ID is indexed by its first digits, and a search by template
// confirms the rest on the records of those (templates.go). Documents' IDs
// are the records' IDs in bytes, not decimal.
//
// Record times are not in bleve (a datetime field was a third of the
// indexing cost): each segment keeps its records' times in a
// column beside it (filled from the store, once, for a segment opened from
// disk) and the span of those times (in meta.json for segments). A
// since/until search skips the segments its range cannot meet, takes every
// match of those wholly inside it, and checks the time of each match in the
// others; a time range in the query string filters through the column.
// Text and stack are split into words of letters, digits and underscores,
// lower-cased, without English stop words, each indexed by its first
// maxTokenBytes (a search for a longer word is confirmed on the records,
// as phrases are) (analyzer.go); a field of more than maxFieldTerms
// distinct words is indexed by its first ones, and a search confirms the
// others on the record (cut.go). The indexer runs a bleve batch per core
// but one at once (Options.Parallel), so that one is analysed while another
// builds its segment, and a core is left to searches. Nothing is scored,
// so terms are indexed without frequencies and field lengths
// (mapping.go), and written without the zero byte a posting zap kept for
// them, a word of one record as its dictionary entry alone
// (third_party/zapx/MCPLOGD.md: 85 bytes a workload record against 120);
// and once every ID of a segment is
// indexed, the indexer, when it has nothing else to do, merges the
// segment's files into one (compact.go): the index takes ~30% fewer bytes
// a record. What an indexing step holds is bounded by its records' bytes,
// words and distinct words, not only their number, and the store is read
// a few large records at a time (budget.go), so that the index's memory
// stays bounded whatever the records hold.
//
// A missing, unreadable, corrupt or older-mapping index is rebuilt from the
// store at Open, in the background, with progress in the log and in Status.
//
// The files follow those parts: index.go (Open, Status, Close), meta.go
// (meta.json and the segments on disk), segments.go (one bleve index per
// ID range, and retention), indexer.go (the background indexer), budget.go
// (what one indexing step takes, and reading the store), compact.go
// (sealed segments merged into one file), cut.go (fields indexed in part),
// rebuild.go (starting over, Reindex), tail.go (the records above the
// watermark and the pending operations), terms.go (their term sets),
// search.go (a search over all of them), and the three compilers of the
// query language (package oplog/query parses it, leaving out the words
// and phrases of only stop words as the analyzer leaves them out of the
// index; oplog.ParseQuery checks its values, once, in oplog.Resolve; the
// filters join the tree as leaves in oplog.SearchQuery.Node), one case
// per node type each: bleve.go (the tree for bleve), eval.go (a query evaluated on a record) and
// terms_pred.go (on a chunk's term set). Format versions and limits are
// in consts.go.
//
//	idx, err := search.Open("mcplogd-data/index", db, &search.Options{Changed: log.Changed})
//	...
//	log.SetIndex(idx) // the Log closes it
//	page, err := log.Search(ctx, oplog.SearchQuery{Query: `level:error AND name:Physics "null reference"`})
//
// Query strings are mcplogd's language (package oplog/query), whose
// clauses read as bleve's query strings do, read the way log search usually is: terms are
// all required (AND may be written), OR joins alternatives, NOT or -
// excludes, parentheses group; unqualified words search text and stack;
// level, kind and status values are spelled as oplog parses them, and
// another value is an error that lists them. Wildcards (Physi*) and
// regular expressions ignore case on text and stack, as words do, and keep
// it on name, source and tool, which match exactly. A word and a trailing
// star (Physi*) on text and stack runs as a prefix query, which bleve
// answers from each segment's term dictionary without the regular
// expression automaton a wildcard builds per segment and field. A hit's
// fragment marks the first word that a word of the query, or a prefix or
// wildcard, matches whole (oplog.Fragment); a fuzzy word marks only the
// word as written, and a regular expression none.
package search
