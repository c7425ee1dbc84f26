package codec

// The bbolt file's layout at the current schema version. Package migrations
// owns how older layouts become this one.
var (
	MetaBucket    = []byte("meta")    // schema version and counters
	RecordsBucket = []byte("records") // Key(id) -> Append(record)

	SchemaKey = []byte("schema") // uint32 big-endian schema version
	StatsKey  = []byte("stats")  // AppendStats(oplog.Stats)
)
