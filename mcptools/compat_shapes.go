package mcptools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bridgeNames maps mcplogd's record fields to the Unity-AI Bridge's.
var bridgeNames = map[string]string{
	"text": "message", "time": "timestamp", "level": "type", "stack": "stackTrace",
	"data": "context", "name": "logName", "id": "logId",
}

// bridgeRecord is a record (an entry of a list, or a whole one) with the
// bridge's field names. The id and level stay too (id as a string), as
// some of the bridge's answers spell them so; times of operations are Unix
// ms, and timeMs is the timestamp's.
func bridgeRecord(e map[string]any) map[string]any {
	out := make(map[string]any, len(e)+6)
	for k, v := range e {
		if n, ok := bridgeNames[k]; ok {
			out[n] = v
		}
		if _, renamed := bridgeNames[k]; !renamed || k == "id" || k == "level" {
			out[k] = v
		}
	}
	for _, k := range []string{"id", "logId", "prev", "next", "oldestId"} {
		if v, ok := out[k]; ok {
			out[k] = idString(v)
		}
	}
	if ms, ok := unixMS(out["timestamp"]); ok {
		out["timeMs"] = ms
	}
	for _, k := range []string{"startTime", "endTime"} {
		if ms, ok := unixMS(out[k]); ok {
			out[k] = ms
		}
	}
	if out["kind"] == "op" {
		if out["startTime"] == nil {
			out["startTime"] = out["timeMs"]
		}
		start, ok1 := out["startTime"].(int64)
		d, ok2 := out["durationMs"].(float64)
		if out["endTime"] == nil && out["isComplete"] == true && ok1 && ok2 {
			out["endTime"] = start + int64(d)
		}
		out["operationType"] = out["tool"]
	}
	return out
}

// bridgeLists is m with the records of its lists in the bridge's names.
func bridgeLists(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
		if slices.Contains([]string{"lines", "logs", "entries", "hits", "records", "before", "after"}, k) {
			out[k] = mapList(v, bridgeRecord)
		}
	}
	if logs, ok := out["logs"].([]any); ok {
		// get_logs_by_name: the bridge nests the line in data as well.
		for _, x := range logs {
			e := asMap(x)
			if e["data"] == nil {
				e["data"] = map[string]any{"level": e["level"], "message": e["message"], "timestamp": e["timestamp"]}
			}
		}
	}
	return out
}

func mapList(v any, f func(map[string]any) map[string]any) []any {
	list, _ := v.([]any)
	out := make([]any, 0, len(list))
	for _, x := range list {
		out = append(out, f(asMap(x)))
	}
	return out
}

func asMap(v any) map[string]any {
	if m, ok := v.(map[string]any); ok && m != nil {
		return m
	}
	return map[string]any{}
}

func copyKeys(dst, src map[string]any, keys ...string) {
	for _, k := range keys {
		if v, ok := src[k]; ok {
			dst[k] = v
		}
	}
}

// firstID is the first of keys that m has, as a string; "" if none.
func firstID(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return fmt.Sprint(idString(v))
		}
	}
	return ""
}

// argID is the record ID a call's arguments name, as a string; "" if none.
func argID(args json.RawMessage) string {
	var m map[string]any
	_ = json.Unmarshal(args, &m)
	return firstID(m, "log_id", "logId", "id")
}

// idString is an ID as the bridge writes it: a string.
func idString(v any) any {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	}
	return v
}

// unixMS is an RFC 3339 time in Unix milliseconds.
func unixMS(v any) (int64, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return tm.UnixMilli(), true
}

// resultText is a tool result's first text block.
func resultText(r *mcp.CallToolResult) string {
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// linedJSON is v as JSON with each object of a list on a line of its own
// (and no HTML escaping): the text block of the bridge's answers, which
// parses as the same JSON and reads one entry per line.
func linedJSON(v any) string {
	var b bytes.Buffer
	writeLined(&b, v)
	return b.String()
}

func writeLined(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeLined(b, k)
			b.WriteByte(':')
			writeLined(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			_, obj := e.(map[string]any)
			if obj {
				b.WriteByte('\n')
			}
			writeLined(b, e)
			if obj && i == len(x)-1 {
				b.WriteByte('\n')
			}
		}
		b.WriteByte(']')
	default:
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(x)
		b.Truncate(b.Len() - 1) // Encode's newline
	}
}
