// Package otlp receives OpenTelemetry logs over OTLP/HTTP and appends them
// to the operation log as lines. It is the only package of mcplogd that
// imports the OTLP protobufs and gRPC's status codes. Package api mounts
// the Handler at POST /v1/logs, at the server's root, where OTLP exporters
// send logs when their endpoint is this server, behind the same bearer
// token as /api/v1:
//
//	h := otlp.New(log, &otlp.Options{MaxBodyBytes: maxBody, Logger: logger})
//	route := api.Route{Method: "POST", Path: otlp.Path, Handler: h, WriteError: h.WriteError}
//
// It takes an ExportLogsServiceRequest in binary protobuf
// (application/x-protobuf) or OTLP/JSON (application/json, hex trace and
// span IDs), plain or gzip-compressed, and appends its log records as one
// durable batch.
//
// Answers follow the OTLP/HTTP specification: 200 with an
// ExportLogsServiceResponse in the request's encoding, whose
// partial_success counts the records refused (not stored) and gives the
// first reason. A failure is answered with a google.rpc.Status, in JSON
// for a JSON request (and for an unknown content type, so that a person
// with curl can read it), in protobuf otherwise, with the HTTP status of
// the error table (oplog.HTTPStatus): 400 for a malformed body (nothing
// stored), 401 for a missing or wrong token, 413 for a body over
// Options.MaxBodyBytes before or after decompression, or whose log records
// would take more than 8 times that as records (each counted 256 bytes
// besides its text, stack, labels and data; the data holds a copy of its
// resource's and scope's attributes), so that a request's memory follows
// its size (nothing is stored; the message names the count or the
// resource whose copies were too big), 415 for another
// content type or content encoding, 503 when the log is closing.
// Status.code is the gRPC code of the oplog error code. One exception: a
// Content-Length over the limit is refused by the server's body limit
// before this handler runs, in the server's own JSON error shape.
//
// A log record becomes a line:
//
//	level   severity_number 1-8 (TRACE, DEBUG) debug, 9-12 info, 13-16 warn,
//	        17-20 error, 21-24 fatal; unset: severity_text as
//	        oplog.ParseLevel reads it; neither: info
//	time    time_unix_nano, else observed_time_unix_nano, else arrival
//	source  the resource attribute service.name; absent: "default", as
//	        for every writer
//	name    the instrumentation scope's name (the logger's name in the
//	        SDKs' logging bridges)
//	text    the body: a string as it is, other values as JSON; with no
//	        body, "exception.type: exception.message", else event_name
//	stack   the attribute exception.stacktrace
//	data    {"attributes": the record's other attributes,
//	         "resource": the resource's other attributes,
//	         "scope": {"version", "attributes"},
//	         "traceId", "spanId" (hex), "flags", "severityNumber",
//	         "severityText", "eventName", "observedTime",
//	         "droppedAttributesCount"}, each only when present
//
// Source and name pass through oplog.Label (one line, at most
// oplog.MaxLabelBytes); a record whose text, stack or data is over
// oplog's limits is refused alone.
package otlp
