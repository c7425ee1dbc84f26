package api

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/mcplogd/mcplogd/oplog"
)

// Media types of OTLP/HTTP.
const (
	otlpProtobuf = "application/x-protobuf"
	otlpJSON     = "application/json"
)

// maxOTLPDepth bounds the nesting of attribute values kept in data: deeper
// arrays and maps become a placeholder string, so that no reader of data
// has to walk a pathological structure.
const maxOTLPDepth = 32

// mountOTLP adds the OTLP/HTTP logs receiver: POST /v1/logs at the
// server's root, where OTLP exporters send logs when their endpoint is this
// server. It takes an ExportLogsServiceRequest in binary protobuf
// (application/x-protobuf) or OTLP/JSON (application/json, hex trace and
// span IDs), plain or gzip-compressed, with the same bearer token as
// /api/v1, and appends its log records as one durable batch.
//
// Answers follow the OTLP/HTTP specification: 200 with an
// ExportLogsServiceResponse in the request's encoding, whose
// partial_success counts the records refused (not stored) and gives the
// first reason. A failure is answered with a google.rpc.Status, in JSON
// for a JSON request (and for an unknown content type, so that a person
// with curl can read it), in protobuf otherwise, with the HTTP status of
// the error table: 400 for a malformed body (nothing stored), 401 for a
// missing or wrong token, 413 for a body over Options.MaxBodyBytes before
// or after decompression, 415 for another content type or content
// encoding, 503 when the log is closing. Status.code is the gRPC code of
// the oplog error code. One exception: a Content-Length over the limit is
// refused by the server's body limit before this handler runs, in the
// server's own JSON error shape.
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
// Source and name lose line breaks and are cut to oplog.MaxLabelBytes;
// a record whose text, stack or data is over oplog's limits is refused.
func (s *Server) mountOTLP() {
	s.echo.POST("/v1/logs", s.otlpErrors(s.authorize(s.otlpLogs)))
}

// otlpErrors answers the errors of next (the token check's too) with a
// google.rpc.Status in the request's encoding and the HTTP status that the
// rest of the API would give them.
func (s *Server) otlpErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		if err == nil || c.Response().Committed {
			return err
		}
		status, body := s.errorAnswer(err, c)
		// Decoders quote the bad input, which protobuf strings cannot hold
		// when it is not UTF-8.
		msg := strings.ToValidUTF8(body.Message, "\uFFFD")
		st := &spb.Status{Code: int32(grpcCode(body.Code)), Message: msg}
		return writeOTLP(c, status, !isOTLPProtobuf(c.Request()), st)
	}
}

// grpcCode maps an oplog error code to the gRPC code of a google.rpc.Status.
func grpcCode(code string) codes.Code {
	switch code {
	case oplog.EINVALID:
		return codes.InvalidArgument
	case oplog.EUNAUTHORIZED:
		return codes.Unauthenticated
	case oplog.ENOTFOUND:
		return codes.NotFound
	case oplog.ECONFLICT:
		return codes.FailedPrecondition
	case oplog.EUNAVAILABLE:
		return codes.Unavailable
	}
	return codes.Internal
}

func otlpMediaType(req *http.Request) string {
	mt, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	return mt
}

func isOTLPProtobuf(req *http.Request) bool {
	mt := otlpMediaType(req)
	return mt == otlpProtobuf || mt == "application/protobuf"
}

func writeOTLP(c echo.Context, status int, asJSON bool, m proto.Message) error {
	var (
		b   []byte
		err error
		ct  = otlpProtobuf
	)
	if asJSON {
		b, err = protojson.Marshal(m)
		ct = otlpJSON
	} else {
		b, err = proto.Marshal(m)
	}
	if err != nil {
		return fmt.Errorf("encoding the OTLP answer: %w", err)
	}
	return c.Blob(status, ct, b)
}

func (s *Server) otlpLogs(c echo.Context) error {
	req := c.Request()
	asJSON := false
	switch {
	case isOTLPProtobuf(req):
	case otlpMediaType(req) == otlpJSON:
		asJSON = true
	default:
		return echo.NewHTTPError(http.StatusUnsupportedMediaType,
			fmt.Sprintf("unsupported content type %q: send OTLP logs as %s or %s", req.Header.Get(echo.HeaderContentType), otlpProtobuf, otlpJSON))
	}
	b, err := s.readOTLPBody(req)
	if err != nil {
		return err
	}
	msg, err := decodeOTLPLogs(b, asJSON)
	if err != nil {
		return err
	}
	recs, rejected := otlpRecords(msg)
	for len(recs) > 0 {
		err := s.log.Append(req.Context(), recs)
		be, ok := oplog.IsBatchError(err)
		if !ok {
			if err != nil {
				return err
			}
			break
		}
		// A rule of oplog that otlpRecords did not foresee: refuse that
		// record alone, as OTLP's partial success allows, and append the
		// rest (nothing of the failed attempt was written).
		rejected.add(be.Err)
		recs = slices.Delete(recs, be.Index, be.Index+1)
	}
	resp := &collogspb.ExportLogsServiceResponse{}
	if rejected.n > 0 {
		resp.PartialSuccess = &collogspb.ExportLogsPartialSuccess{RejectedLogRecords: rejected.n, ErrorMessage: rejected.message()}
	}
	return writeOTLP(c, http.StatusOK, asJSON, resp)
}

// readOTLPBody reads the body, decompressing gzip; the decompressed size is
// held to MaxBodyBytes too, so that a small gzip bomb gets 413 after at
// most MaxBodyBytes+1 bytes of output.
func (s *Server) readOTLPBody(req *http.Request) ([]byte, error) {
	limit := s.opts.MaxBodyBytes
	var r io.Reader = req.Body
	switch enc := strings.ToLower(strings.TrimSpace(req.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			return nil, otlpReadError("malformed gzip body", err)
		}
		defer zr.Close()
		r = zr
	default:
		return nil, echo.NewHTTPError(http.StatusUnsupportedMediaType,
			fmt.Sprintf("unsupported content encoding %q: send OTLP bodies plain or gzip-compressed", enc))
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, otlpReadError("cannot read the body", err)
	}
	if int64(len(b)) > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	return b, nil
}

// otlpReadError keeps an *http.MaxBytesError (413) as it is and makes any
// other read error EINVALID (400).
func otlpReadError(what string, err error) error {
	if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return mbe
	}
	return &oplog.Error{Code: oplog.EINVALID, Message: fmt.Sprintf("%s: %v", what, err), Err: err}
}

// decodeOTLPLogs decodes an ExportLogsServiceRequest. Unknown fields are
// ignored, as OTLP asks of receivers; a malformed body is EINVALID.
func decodeOTLPLogs(b []byte, asJSON bool) (*collogspb.ExportLogsServiceRequest, error) {
	msg := &collogspb.ExportLogsServiceRequest{}
	if !asJSON {
		if err := proto.Unmarshal(b, msg); err != nil {
			return nil, oplog.Errorf(oplog.EINVALID, "malformed OTLP protobuf body: %v", err)
		}
		return msg, nil
	}
	b, err := otlpJSONIDs(b)
	if err != nil {
		return nil, oplog.Errorf(oplog.EINVALID, "malformed OTLP/JSON body: %v", err)
	}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, msg); err != nil {
		return nil, oplog.Errorf(oplog.EINVALID, "malformed OTLP/JSON body: %v", err)
	}
	return msg, nil
}

// otlpJSONIDs rewrites the traceId and spanId of every log record from the
// hex strings of OTLP/JSON to base64, the proto3 JSON form of bytes that
// protojson reads. A body without such fields is returned as it is.
// Both spellings of each field (lowerCamelCase and the proto's snake_case)
// are handled, as protojson accepts both.
func otlpJSONIDs(b []byte) ([]byte, error) {
	if !bytes.Contains(b, []byte("raceId")) && !bytes.Contains(b, []byte("race_id")) &&
		!bytes.Contains(b, []byte("panId")) && !bytes.Contains(b, []byte("pan_id")) {
		return b, nil
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(b, &root); err != nil {
		return nil, errors.New("expected a JSON object (an ExportLogsServiceRequest)")
	}
	changed, err := eachJSONObject(root, "resourceLogs", "resource_logs", func(rl map[string]json.RawMessage) (bool, error) {
		return eachJSONObject(rl, "scopeLogs", "scope_logs", func(sl map[string]json.RawMessage) (bool, error) {
			return eachJSONObject(sl, "logRecords", "log_records", func(lr map[string]json.RawMessage) (bool, error) {
				t, err := hexIDToBase64(lr, 16, "traceId", "trace_id")
				if err != nil {
					return false, err
				}
				s, err := hexIDToBase64(lr, 8, "spanId", "span_id")
				return t || s, err
			})
		})
	})
	if err != nil || !changed {
		return b, err
	}
	return json.Marshal(root)
}

// eachJSONObject calls f on each object of the array obj[camel] or
// obj[snake] and stores back the objects f changed. A missing or null array
// is skipped; anything else that is not an array of objects is an error
// naming its path.
func eachJSONObject(obj map[string]json.RawMessage, camel, snake string, f func(map[string]json.RawMessage) (bool, error)) (bool, error) {
	changed := false
	for _, name := range []string{camel, snake} {
		raw, ok := obj[name]
		if !ok || string(raw) == "null" {
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return false, fmt.Errorf("%s: expected an array", name)
		}
		itemsChanged := false
		for i, item := range items {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(item, &m); err != nil {
				return false, fmt.Errorf("%s[%d]: expected an object", name, i)
			}
			c, err := f(m)
			if err != nil {
				return false, fmt.Errorf("%s[%d].%w", name, i, err)
			}
			if c {
				if items[i], err = json.Marshal(m); err != nil {
					return false, err
				}
				itemsChanged = true
			}
		}
		if itemsChanged {
			var err error
			if obj[name], err = json.Marshal(items); err != nil {
				return false, err
			}
			changed = true
		}
	}
	return changed, nil
}

// hexIDToBase64 rewrites the hex string m[name] (of either name) holding
// size bytes as base64. An empty string (no ID) stays.
func hexIDToBase64(m map[string]json.RawMessage, size int, names ...string) (bool, error) {
	changed := false
	for _, name := range names {
		raw, ok := m[name]
		if !ok || string(raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return false, fmt.Errorf("%s: must be a hex string", name)
		}
		if s == "" {
			continue
		}
		id, err := hex.DecodeString(s)
		if err != nil || len(id) != size {
			return false, fmt.Errorf("%s: %q is not %d bytes in hex (%d hex digits)", name, s, size, 2*size)
		}
		if m[name], err = json.Marshal(base64.StdEncoding.EncodeToString(id)); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// rejections counts the records refused from one request and keeps the
// first reason.
type rejections struct {
	n     int64
	first string
}

func (r *rejections) add(err error) {
	if r.n == 0 {
		r.first = strings.ToValidUTF8(oplog.ErrorMessage(err), "\uFFFD")
	}
	r.n++
}

func (r *rejections) message() string {
	if r.n == 1 {
		return "1 log record refused: " + r.first
	}
	return fmt.Sprintf("%d log records refused; the first: %s", r.n, r.first)
}

// otlpRecords turns the log records of msg into lines, in order. Records
// that break oplog's size limits are left out and counted.
func otlpRecords(msg *collogspb.ExportLogsServiceRequest) ([]oplog.Record, rejections) {
	var (
		recs     []oplog.Record
		rejected rejections
	)
	for _, rl := range msg.GetResourceLogs() {
		source, resource := "", map[string]any{}
		for _, kv := range rl.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				source = otlpLabel(otlpString(kv.GetValue()))
				continue
			}
			resource[kv.GetKey()] = otlpValue(kv.GetValue(), 0)
		}
		for _, sl := range rl.GetScopeLogs() {
			scope := sl.GetScope()
			scopeData := map[string]any{}
			if v := scope.GetVersion(); v != "" {
				scopeData["version"] = v
			}
			if attrs := scope.GetAttributes(); len(attrs) > 0 {
				scopeData["attributes"] = otlpMap(attrs, 0)
			}
			name := otlpLabel(scope.GetName())
			for _, lr := range sl.GetLogRecords() {
				r, err := otlpRecord(lr, source, name, resource, scopeData)
				if err != nil {
					rejected.add(err)
					continue
				}
				recs = append(recs, r)
			}
		}
	}
	return recs, rejected
}

// otlpRecord maps one log record as mountOTLP describes.
func otlpRecord(lr *logspb.LogRecord, source, name string, resource, scope map[string]any) (oplog.Record, error) {
	r := oplog.Record{
		Kind:   oplog.KindLine,
		Source: source,
		Name:   name,
		Level:  otlpLevel(lr.GetSeverityNumber(), lr.GetSeverityText()),
	}
	data := map[string]any{}

	observed, hasObserved := otlpTime(lr.GetObservedTimeUnixNano())
	if t, ok := otlpTime(lr.GetTimeUnixNano()); ok {
		r.Time = t
		if hasObserved {
			data["observedTime"] = observed.Format(time.RFC3339Nano)
		}
	} else if hasObserved {
		r.Time = observed
	} // else arrival, which oplog.Log.Append fills in

	var excType, excMessage string
	attrs := map[string]any{}
	for _, kv := range lr.GetAttributes() {
		switch kv.GetKey() {
		case "exception.stacktrace":
			r.Stack = otlpString(kv.GetValue())
			continue
		case "exception.type":
			excType = otlpString(kv.GetValue())
		case "exception.message":
			excMessage = otlpString(kv.GetValue())
		}
		attrs[kv.GetKey()] = otlpValue(kv.GetValue(), 0)
	}

	if lr.GetBody().GetValue() != nil {
		r.Text = otlpString(lr.GetBody())
	}
	if r.Text == "" {
		switch {
		case excType != "" && excMessage != "":
			r.Text = excType + ": " + excMessage
		case excType != "" || excMessage != "":
			r.Text = excType + excMessage
		default:
			r.Text = lr.GetEventName()
		}
	}

	if len(attrs) > 0 {
		data["attributes"] = attrs
	}
	if len(resource) > 0 {
		data["resource"] = resource
	}
	if len(scope) > 0 {
		data["scope"] = scope
	}
	if id := lr.GetTraceId(); !allZero(id) {
		data["traceId"] = hex.EncodeToString(id)
	}
	if id := lr.GetSpanId(); !allZero(id) {
		data["spanId"] = hex.EncodeToString(id)
	}
	if f := lr.GetFlags(); f != 0 {
		data["flags"] = f
	}
	if n := lr.GetSeverityNumber(); n != 0 {
		data["severityNumber"] = int32(n)
	}
	if t := lr.GetSeverityText(); t != "" {
		data["severityText"] = t
	}
	if e := lr.GetEventName(); e != "" {
		data["eventName"] = e
	}
	if n := lr.GetDroppedAttributesCount(); n != 0 {
		data["droppedAttributesCount"] = n
	}
	if len(data) > 0 {
		b, err := marshalJSON(data)
		if err != nil {
			return oplog.Record{}, oplog.Errorf(oplog.EINVALID, "data: %v", err)
		}
		r.Data = b
	}

	// Checked here, not only by Append, so that one oversized record is
	// refused alone rather than failing the attempt for all.
	switch {
	case len(r.Text) > oplog.MaxTextBytes:
		return oplog.Record{}, oplog.Errorf(oplog.EINVALID, "body: %d bytes is over the limit of %d", len(r.Text), oplog.MaxTextBytes)
	case len(r.Stack) > oplog.MaxStackBytes:
		return oplog.Record{}, oplog.Errorf(oplog.EINVALID, "exception.stacktrace: %d bytes is over the limit of %d", len(r.Stack), oplog.MaxStackBytes)
	case len(r.Data) > oplog.MaxJSONBytes:
		return oplog.Record{}, oplog.Errorf(oplog.EINVALID, "attributes: %d bytes of JSON is over the limit of %d", len(r.Data), oplog.MaxJSONBytes)
	}
	return r, nil
}

// otlpLevel maps a severity number in its OTLP ranges (TRACE and DEBUG are
// debug); when it is unset or out of range, the severity text as
// oplog.ParseLevel reads it (trailing digits dropped: "INFO2", "WARN3");
// else info.
func otlpLevel(n logspb.SeverityNumber, text string) oplog.Level {
	switch {
	case n >= 1 && n <= 8:
		return oplog.LevelDebug
	case n >= 9 && n <= 12:
		return oplog.LevelInfo
	case n >= 13 && n <= 16:
		return oplog.LevelWarn
	case n >= 17 && n <= 20:
		return oplog.LevelError
	case n >= 21 && n <= 24:
		return oplog.LevelFatal
	}
	if l, err := oplog.ParseLevel(strings.TrimRight(text, "0123456789")); err == nil && l != 0 {
		return l
	}
	return oplog.LevelInfo
}

// otlpTime converts Unix nanoseconds; false for zero (unknown, in OTLP) and
// for times outside the years oplog accepts (1971 to 2261).
func otlpTime(ns uint64) (time.Time, bool) {
	if ns == 0 || ns > math.MaxInt64 {
		return time.Time{}, false
	}
	t := time.Unix(0, int64(ns)).UTC()
	if y := t.Year(); y < 1971 || y > 2261 {
		return time.Time{}, false
	}
	return t, true
}

// otlpLabel makes s fit as a source or name: line breaks and NULs become
// spaces, and it is cut to oplog.MaxLabelBytes on a character boundary.
func otlpLabel(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == 0 || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
	if len(s) <= oplog.MaxLabelBytes {
		return s
	}
	cut := oplog.MaxLabelBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// otlpString returns a string value as it is and any other value as JSON
// (an absent value as "").
func otlpString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case nil:
		return ""
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	}
	b, err := marshalJSON(otlpValue(v, 0))
	if err != nil {
		return ""
	}
	return string(b)
}

// otlpValue converts an AnyValue to what encoding/json writes as its
// natural JSON: maps as objects, bytes as base64, NaN and infinities as
// strings ("NaN", "+Inf", "-Inf").
func otlpValue(v *commonpb.AnyValue, depth int) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		if f := x.DoubleValue; math.IsNaN(f) || math.IsInf(f, 0) {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return x.DoubleValue
	case *commonpb.AnyValue_BytesValue:
		return x.BytesValue
	case *commonpb.AnyValue_ArrayValue:
		if depth >= maxOTLPDepth {
			return "[nested too deeply]"
		}
		vals := x.ArrayValue.GetValues()
		out := make([]any, len(vals))
		for i, e := range vals {
			out[i] = otlpValue(e, depth+1)
		}
		return out
	case *commonpb.AnyValue_KvlistValue:
		if depth >= maxOTLPDepth {
			return "{nested too deeply}"
		}
		return otlpMap(x.KvlistValue.GetValues(), depth+1)
	}
	// Unset, or a profiles string-table index that means nothing in logs.
	return nil
}

func otlpMap(kvs []*commonpb.KeyValue, depth int) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = otlpValue(kv.GetValue(), depth)
	}
	return m
}

// marshalJSON is json.Marshal without HTML escaping, which would turn a
// stored "<" into \u003c.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
