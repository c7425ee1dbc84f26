package codec

// Format is the version byte that starts every record value written
// today: format 2 adds the record's run (a uvarint right after the header).
// Package migrations freezes each format it has to read (RecordFormat1 and
// RecordFormat2 there).
const Format = 2

// FormatS2 is the version byte of a record written compressed: format 2
// with the fields after the name in one S2 block (compress.go). Append
// writes it for records with a large text, stack or JSON field; every
// reader takes both.
const FormatS2 = 3

// Format1 is the record format written before runs were kept. Its records
// are never rewritten: Decode, Header, SourceName and Run read them, with
// run 0 (no run).
const Format1 = 1

// HeaderSize is the length of the fixed part of a record value.
const HeaderSize = 12

// statsFields is the number of uint64s in an encoded oplog.Stats: eight
// counters and the 4×6 counts by kind and level.
const statsFields = 8 + 4*6

// The bbolt file's layout at the current schema version (migrations.Latest).
// Package migrations owns how older layouts become this one.
var (
	MetaBucket    = []byte("meta")    // schema version and counters
	RecordsBucket = []byte("records") // Key(id) -> Append(record): the records not in a block yet

	// BlocksBucket holds the records sealed into blocks: Key(the block's
	// last ID) -> AppendBlock (block.go).
	BlocksBucket = []byte("blocks")

	// NamesBucket holds, per (source, name), how many records of each kind
	// and level are retained and when the name was first and last seen:
	// NameKey(source, name) -> AppendNameInfo.
	NamesBucket = []byte("names")

	// PositionsBucket holds each writer's read position, written with its
	// records (oplog.Position): the key's bytes -> the value's bytes.
	PositionsBucket = []byte("positions")
	// RunsBucket holds each source's runs: RunKey(source, run) ->
	// AppendRunInfo. A source's current run is its last key.
	RunsBucket = []byte("runs")

	SchemaKey = []byte("schema") // meta: uint32 big-endian schema version
	StatsKey  = []byte("stats")  // meta: AppendStats(oplog.Stats)

	// TxBaseKey, in meta, is a uint64 big-endian that the store adds to
	// bbolt's transaction IDs, which start over in a compacted copy of the
	// file (store/compact.go). None: 0.
	TxBaseKey = []byte("txbase")
)
