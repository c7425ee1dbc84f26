package migrations

// Schema versions: one per step of All, in order. The file records the
// version it is at under meta/schema (a big-endian uint32); a new file is
// at 0 until the first step runs.
const (
	// SchemaBuckets created the meta and records buckets, with the
	// generation under meta/revision.
	SchemaBuckets = 1
	// SchemaStats moved counters, IDs and the generation into meta/stats.
	SchemaStats = 2
	// SchemaNames added the names bucket of per-(source, name) counters.
	SchemaNames = 3
	// SchemaSeen recomputed every name's first and last seen, which
	// schema 3 and the store before it wrote with the wrong time unit for
	// records dated before 1973.
	SchemaSeen = 4
	// SchemaPositions added the positions bucket: each writer's read
	// position (a followed file's offset), written in the same transaction
	// as its records. An older mcplogd refuses the file rather than append
	// without moving the positions, which would then be stale.
	SchemaPositions = 5
	// SchemaRuns added the marker kind's counts (stats and names count
	// 4×6) and the runs bucket; records written since carry their run
	// (RecordFormat2).
	SchemaRuns = 6
	// SchemaCompressed lets records be written compressed (RecordFormat3).
	// Nothing is rewritten; an older mcplogd refuses the file rather than
	// read its compressed records as corrupt.
	SchemaCompressed = 7
	// SchemaBlocks added the blocks bucket: records sealed into blocks
	// compressed together (zstd), in place of their keys in the records
	// bucket. Records written before stay where they are until the store
	// seals them, oldest first, a block or two with each commit; an older
	// mcplogd refuses the file rather than miss the sealed records.
	SchemaBlocks = 8
	// SchemaColumns lets blocks be kept by column (one zstd frame for the
	// texts, one for the stacks, ...). Nothing is rewritten; an older
	// mcplogd refuses the file rather than read the new blocks as corrupt.
	SchemaColumns = 9
	// SchemaWords lets blocks keep their texts as words (a word list and
	// ranks) with a checksum per 64 records. Nothing is rewritten here:
	// the store rewrites the older blocks in the background once appends
	// pause; an older mcplogd refuses the file rather than read the new
	// blocks as corrupt.
	SchemaWords = 10
)

// RecordFormat1 is the format byte that starts every record value written
// by schemas 1 to 5 (see v1codec.go); schema 6 writes RecordFormat2
// (v6codec.go) and leaves format-1 records as they are; schema 7 adds
// RecordFormat3 (v7codec.go), compressed. A new record format gets the next
// number and a step.
const RecordFormat1 = 1

// The bbolt names of buckets and meta keys. They have not changed since the
// schema that introduced them; a step that renames one keeps the old name
// here under a new identifier.
var (
	metaBucket      = []byte("meta")      // since schema 1
	recordsBucket   = []byte("records")   // since schema 1
	namesBucket     = []byte("names")     // since schema 3
	positionsBucket = []byte("positions") // since schema 5: key -> value, both raw bytes
	runsBucket      = []byte("runs")      // since schema 6: source NUL run -> run info
	blocksBucket    = []byte("blocks")    // since schema 8: last ID -> block of records
	schemaKey       = []byte("schema")    // meta: uint32 big-endian schema version
	revisionKey     = []byte("revision")  // meta: the generation in schema 1 only
	statsKey        = []byte("stats")     // meta: counters since schema 2
)
