package otlp

// Path is where OTLP exporters send logs when their endpoint is a server's
// root: POST /v1/logs.
const Path = "/v1/logs"

// DefaultMaxBodyBytes is Options.MaxBodyBytes when zero: 1 MiB, as the
// API's own limit.
const DefaultMaxBodyBytes = 1 << 20

// Media types of OTLP/HTTP.
const (
	mediaProtobuf = "application/x-protobuf"
	mediaJSON     = "application/json"
)

// maxDepth bounds the nesting of attribute values kept in data: deeper
// arrays and maps become a placeholder string, so that no reader of data
// has to walk a pathological structure.
const maxDepth = 32
