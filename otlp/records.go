package otlp

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"

	"github.com/mcplogd/mcplogd/oplog"
)

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

// records turns the log records of msg into lines, in order. Records
// that break oplog's size limits are left out and counted. The records of
// one request are held to b: past it, the request fails (413) and nothing
// of it is stored.
func records(msg *collogspb.ExportLogsServiceRequest, b *budget) ([]oplog.Record, rejections, error) {
	var (
		recs     []oplog.Record
		rejected rejections
	)
	for ri, rl := range msg.GetResourceLogs() {
		source, resource := "", map[string]any{}
		for _, kv := range rl.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				source = oplog.Label(stringOf(kv.GetValue()))
				continue
			}
			resource[kv.GetKey()] = valueOf(kv.GetValue(), 0)
		}
		resourceBytes := jsonSize(resource)
		for si, sl := range rl.GetScopeLogs() {
			scope := sl.GetScope()
			scopeData := map[string]any{}
			if v := scope.GetVersion(); v != "" {
				scopeData["version"] = v
			}
			if attrs := scope.GetAttributes(); len(attrs) > 0 {
				scopeData["attributes"] = mapOf(attrs, 0)
			}
			g := &group{shared: resourceBytes + jsonSize(scopeData), records: len(sl.GetLogRecords()), ri: ri, si: si}
			name := oplog.Label(scope.GetName())
			for _, lr := range sl.GetLogRecords() {
				if err := b.start(g); err != nil {
					return nil, rejections{}, err
				}
				r, err := record(lr, source, name, resource, scopeData)
				if err != nil {
					rejected.add(err)
					continue
				}
				if err := b.own(g, &r); err != nil {
					return nil, rejections{}, err
				}
				recs = append(recs, r)
			}
		}
	}
	return recs, rejected, nil
}

// jsonSize is the length of m's JSON, 0 for an empty map (left out of data).
func jsonSize(m map[string]any) int {
	if len(m) == 0 {
		return 0
	}
	b, err := marshalJSON(m)
	if err != nil {
		return 0
	}
	return len(b)
}

// record maps one log record as the package documentation describes.
func record(lr *logspb.LogRecord, source, name string, resource, scope map[string]any) (oplog.Record, error) {
	r := oplog.Record{
		Kind:   oplog.KindLine,
		Source: source,
		Name:   name,
		Level:  level(lr.GetSeverityNumber(), lr.GetSeverityText()),
	}
	data := map[string]any{}

	observed, hasObserved := timeOf(lr.GetObservedTimeUnixNano())
	if t, ok := timeOf(lr.GetTimeUnixNano()); ok {
		r.Time = t
		if hasObserved {
			data["observedTime"] = observed.Format(time.RFC3339Nano)
		}
	} else if hasObserved {
		r.Time = observed
	} // else arrival, which oplog.Log.Append fills in

	attrs, excType, excMessage := attributes(lr, &r)
	r.Text = text(lr, excType, excMessage)
	recordData(lr, data, attrs, resource, scope)
	if len(data) > 0 {
		b, err := marshalJSON(data)
		if err != nil {
			return oplog.Record{}, oplog.Errorf(oplog.EINVALID, "data: %v", err)
		}
		r.Data = b
	}
	if err := checkLimits(&r); err != nil {
		return oplog.Record{}, err
	}
	return r, nil
}

// attributes returns the record's attributes but exception.stacktrace,
// which becomes r's stack, and the exception's type and message.
func attributes(lr *logspb.LogRecord, r *oplog.Record) (attrs map[string]any, excType, excMessage string) {
	attrs = map[string]any{}
	for _, kv := range lr.GetAttributes() {
		switch kv.GetKey() {
		case "exception.stacktrace":
			r.Stack = stringOf(kv.GetValue())
			continue
		case "exception.type":
			excType = stringOf(kv.GetValue())
		case "exception.message":
			excMessage = stringOf(kv.GetValue())
		}
		attrs[kv.GetKey()] = valueOf(kv.GetValue(), 0)
	}
	return attrs, excType, excMessage
}

// text is the body; with none, "exception.type: exception.message", else
// the event's name.
func text(lr *logspb.LogRecord, excType, excMessage string) string {
	if lr.GetBody().GetValue() != nil {
		if t := stringOf(lr.GetBody()); t != "" {
			return t
		}
	}
	switch {
	case excType != "" && excMessage != "":
		return excType + ": " + excMessage
	case excType != "" || excMessage != "":
		return excType + excMessage
	}
	return lr.GetEventName()
}

// recordData adds to data what of lr has no field of its own in a record.
func recordData(lr *logspb.LogRecord, data, attrs, resource, scope map[string]any) {
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
}

// checkLimits refuses a record over oplog's limits here, not only in
// Append, so that one oversized record is refused alone rather than
// failing the attempt for all.
func checkLimits(r *oplog.Record) error {
	switch {
	case len(r.Text) > oplog.MaxTextBytes:
		return oplog.Errorf(oplog.EINVALID, "body: %d bytes is over the limit of %d", len(r.Text), oplog.MaxTextBytes)
	case len(r.Stack) > oplog.MaxStackBytes:
		return oplog.Errorf(oplog.EINVALID, "exception.stacktrace: %d bytes is over the limit of %d", len(r.Stack), oplog.MaxStackBytes)
	case len(r.Data) > oplog.MaxJSONBytes:
		return oplog.Errorf(oplog.EINVALID, "attributes: %d bytes of JSON is over the limit of %d", len(r.Data), oplog.MaxJSONBytes)
	}
	return nil
}

// level maps a severity number in its OTLP ranges (TRACE and DEBUG are
// debug); when it is unset or out of range, the severity text as
// oplog.ParseLevel reads it (trailing digits dropped: "INFO2", "WARN3");
// else info.
func level(n logspb.SeverityNumber, text string) oplog.Level {
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

// timeOf converts Unix nanoseconds; false for zero (unknown, in OTLP) and
// for times outside the years oplog accepts (1971 to 2261).
func timeOf(ns uint64) (time.Time, bool) {
	if ns == 0 || ns > math.MaxInt64 {
		return time.Time{}, false
	}
	t := time.Unix(0, int64(ns)).UTC()
	if y := t.Year(); y < 1971 || y > 2261 {
		return time.Time{}, false
	}
	return t, true
}

// stringOf returns a string value as it is and any other value as JSON
// (an absent value as "").
func stringOf(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case nil:
		return ""
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	}
	b, err := marshalJSON(valueOf(v, 0))
	if err != nil {
		return ""
	}
	return string(b)
}

// valueOf converts an AnyValue to what encoding/json writes as its
// natural JSON: maps as objects, bytes as base64, NaN and infinities as
// strings ("NaN", "+Inf", "-Inf").
func valueOf(v *commonpb.AnyValue, depth int) any {
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
		if depth >= maxDepth {
			return "[nested too deeply]"
		}
		vals := x.ArrayValue.GetValues()
		out := make([]any, len(vals))
		for i, e := range vals {
			out[i] = valueOf(e, depth+1)
		}
		return out
	case *commonpb.AnyValue_KvlistValue:
		if depth >= maxDepth {
			return "{nested too deeply}"
		}
		return mapOf(x.KvlistValue.GetValues(), depth+1)
	}
	// Unset, or a profiles string-table index that means nothing in logs.
	return nil
}

func mapOf(kvs []*commonpb.KeyValue, depth int) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = valueOf(kv.GetValue(), depth)
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
