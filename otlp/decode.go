package otlp

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/mcplogd/mcplogd/oplog"
)

// decodeLogs decodes an ExportLogsServiceRequest. Unknown fields are
// ignored, as OTLP asks of receivers; a malformed body is EINVALID.
func decodeLogs(b []byte, asJSON bool) (*collogspb.ExportLogsServiceRequest, error) {
	msg := &collogspb.ExportLogsServiceRequest{}
	if !asJSON {
		if err := proto.Unmarshal(b, msg); err != nil {
			return nil, oplog.Errorf(oplog.EINVALID, "malformed OTLP protobuf body: %v", err)
		}
		return msg, nil
	}
	b, err := jsonIDs(b)
	if err != nil {
		return nil, oplog.Errorf(oplog.EINVALID, "malformed OTLP/JSON body: %v", err)
	}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, msg); err != nil {
		return nil, oplog.Errorf(oplog.EINVALID, "malformed OTLP/JSON body: %v", err)
	}
	return msg, nil
}

// jsonIDs rewrites the traceId and spanId of every log record from the
// hex strings of OTLP/JSON to base64, the proto3 JSON form of bytes that
// protojson reads. A body without such fields is returned as it is.
// Both spellings of each field (lowerCamelCase and the proto's snake_case)
// are handled, as protojson accepts both.
func jsonIDs(b []byte) ([]byte, error) {
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
