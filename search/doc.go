// Package search is mcplogd's search index, the oplog.Index behind
// Log.Search: a term set per chunk of the log, as VictoriaLogs keeps
// bloom filters per block, and each query evaluated on the records of
// the chunks whose sets do not rule it out.
//
// A chunk is TailChunk (4,096) IDs. Its term set holds the distinct terms
// of its records: the words of text and of stack (split into words of
// letters, digits and underscores, lower-cased, without English stop
// words, each cut to maxTokenBytes: analyzer.go), and each keyword
// field's values (name, level, source, kind, tool, status, replayOf,
// run, template), with the span of the records' times and the operations
// still pending when it was built (terms.go). A background loop builds
// the sets from the store as records arrive, ~300,000 records a second on
// one core, woken by the Log's Changed channel, so appends never wait for
// it (sets.go). Once a chunk is complete its set is frozen (sorted words
// in one block of bytes), compressed (front-coded and zstd, ~9 bytes a
// record on random-word lines, ~15 on mcplogd bench's workload:
// chunkcodec.go) and appended, with its checksum, to the sets file
// DATA/index/sets, which is synced (setfile.go). What is stored stays
// compressed in memory; a search decodes the sets it tests, keeping the
// last decoded ones (setCache). The growing last chunk's set lives in
// memory only: a restart builds it again from its records, and nothing
// older. Retention drops the sets of the chunks it emptied; a cleared
// store starts the sets over; a damaged or torn set ends what Open reads
// of the file, and the chunks from there on are built again, searches
// staying exact meanwhile.
//
// Beside each set, in memory only, its chunk's postings (postings.go):
// for each term, which of the chunk's records hold it (a uint16 place
// each, ~2 bytes a term a record). The builder notes them as it analyses
// each record; a stored chunk keeps them up to maxPostBytes (32 MiB, the
// newest chunks first: at 200,000 random-word lines they all fit). After
// a restart the chunks read from the sets file have none until the
// warming loop has read their records again, newest first (postAgain);
// meanwhile they are searched on their sets and records.
//
// A search (search.go, tail.go) walks the chunks from the newest down,
// the query compiled once. On a chunk with postings it is answered as two
// bitmaps (postings_pred.go): the records that match, taken as they are,
// and those the postings cannot tell of (a phrase's order, a time range
// that cuts the chunk's span), read one by one and checked; NOT is exact
// there. Elsewhere it is tested on the chunk's set (terms_pred.go: false
// only when no record of the chunk can match; a NOT, or a shape the set
// cannot tell, is a maybe), and evaluated on the records of the chunks
// that may match (eval.go), read from the store a chunk at a time (the
// newest chunks kept decoded, tailCache). A chunk without a set yet is
// evaluated whole. The
// walk stops once a page and one more are found; the total is then
// estimated from the share of IDs walked (TotalExact false). Operations
// completed since their chunk was read are read again and matched as they
// now stand, by the log's journal of completions (Options.Completed,
// pending.go). A search takes one of Options.Walks turns when it may read
// more than one chunk, and stops at Options.WalkBudget with what it found
// and where the next page goes on.
//
// Words (words.go) answers the spelling suggestions of an empty answer:
// the words within one or two edits in the newest records, read for it,
// and in the sets of older chunks.
//
// Why not bleve's postings per record (mcplogd's index before): a posting
// per word per record cost 66-87 bytes a record, more than the sealed
// records themselves, and bleve built segments at ~50,000 records a
// second, so that for seconds after a burst the term sets had to answer
// anyway. The sets answer every query shape the language
// has (words, phrases, prefixes, wildcards, fuzzy words, regular
// expressions, ranges), as the words themselves are kept, not only a
// filter of them. Without postings, a query whose words are in every
// chunk but rarely in one record (two common words) read every record of
// the log: 200-500 ms at 200,000 records, where bleve's postings took
// under a millisecond. The postings in memory give that back without
// their bytes on disk. bleve remains the analysis library: its tokenizer
// types, English stop words and vellum's automata.
//
// The files follow those parts: index.go (Open, Status, Close), sets.go
// (building and storing the sets, retention, starting over), setfile.go
// and chunkcodec.go (the sets file and a set's bytes), terms.go (a
// chunk's set), postings.go (its postings), budget.go (reading the store a few records at a time),
// rebuild.go (Reindex, WaitIndexed), tail.go and search.go (a search),
// and the two compilers of the query language (package oplog/query
// parses it, leaving out the words and phrases of only stop words as the
// analyzer leaves them out; oplog.ParseQuery checks its values, once, in
// oplog.Resolve; the filters join the tree as leaves in
// oplog.SearchQuery.Node), one case per node type each: eval.go (a query
// evaluated on a record), terms_pred.go (on a chunk's term set) and
// postings_pred.go (on a chunk's postings).
// Limits are in consts.go.
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
// star (Physi*) on text and stack is a prefix: a chunk's sorted words
// holding it are a run of them, found without the automaton a wildcard
// builds. A hit's
// fragment marks the first word that a word of the query, or a prefix or
// wildcard, matches whole (oplog.Fragment); a fuzzy word marks only the
// word as written, and a regular expression none.
package search
