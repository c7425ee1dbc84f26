package gateway

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// entry is one upstream console line as JSON, read through the field names
// that the engines use.
type entry map[string]json.RawMessage

// str returns the first of keys that holds a non-empty string, or a number
// or boolean as written.
func (e entry) str(keys ...string) string {
	for _, k := range keys {
		v := bytes.TrimSpace(e[k])
		if len(v) == 0 || string(v) == "null" || v[0] == '{' || v[0] == '[' {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return string(v)
		}
		if s != "" {
			return s
		}
	}
	return ""
}

// id returns the line's ID when it is a number or a string of digits.
func (e entry) id() (uint64, bool) {
	v, err := strconv.ParseUint(e.str("id"), 10, 64)
	return v, err == nil
}

var (
	idKeys    = []string{"id", "logId", "log_id"}
	timeKeys  = []string{"time", "timestamp", "ts"}
	levelKeys = []string{"level", "type", "logType", "severity"}
	nameKeys  = []string{"name", "logName", "log_name", "logger", "category"}
	textKeys  = []string{"text", "message", "msg"}
	stackKeys = []string{"stack", "stackTrace", "stack_trace", "traceback"}
)

// key identifies a line without a numeric ID across two get_logs answers.
func (e entry) key() string {
	if id := e.str(idKeys...); id != "" {
		return id
	}
	return strings.Join([]string{e.str(timeKeys...), e.str(levelKeys...), e.str(nameKeys...), e.str(textKeys...)}, "\x00")
}

// record turns an upstream line into a log record of run p.run. An unknown
// level is info; a time that cannot be read is kept in data.upstreamTime and
// the record gets the arrival time.
func (m *mirror) record(e entry, p position) oplog.Record {
	r := oplog.Record{Kind: oplog.KindLine, Source: m.source, Name: oplog.Label(e.str(nameKeys...)),
		Text: oplog.ClipText(e.str(textKeys...)), Stack: oplog.ClipBytes(e.str(stackKeys...), oplog.MaxStackBytes)}
	if r.Text == "" && !slices.ContainsFunc(textKeys, func(k string) bool { _, ok := e[k]; return ok }) {
		b, _ := json.Marshal(e) // no message field: keep the whole record
		r.Text = oplog.ClipText(string(b))
	}
	if l, err := oplog.ParseLevel(e.str(levelKeys...)); err == nil && l != 0 {
		r.Level = l
	} else {
		r.Level = oplog.LevelInfo
	}
	data := map[string]any{"upstreamRun": p.run}
	for _, k := range idKeys {
		if v := bytes.TrimSpace(e[k]); len(v) > 0 && len(v) <= maxUpstreamValue {
			data["upstreamId"] = json.RawMessage(v)
			break
		}
	}
	if p.revision != "" && len(p.revision) <= maxUpstreamValue {
		data["upstreamRevision"] = json.RawMessage(p.revision)
	}
	if src := e.str("source"); src != "" && src != m.source {
		data["upstreamSource"] = oplog.Label(src)
	}
	if ts := e.str(timeKeys...); ts != "" {
		t, err := oplog.ParseTime(ts, time.Now())
		if y := t.Year(); err == nil && y > 1970 && y < 2262 { // the years oplog accepts
			r.Time = t
		} else {
			data["upstreamTime"] = oplog.ClipBytes(ts, maxUpstreamTime)
		}
	}
	r.Data, _ = json.Marshal(data)
	return r
}

// number is a non-negative integer sent as a JSON number or a string of
// digits; anything else reads as absent.
type number struct {
	v  uint64
	ok bool
}

func (n *number) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseUint(strings.Trim(string(b), `"`), 10, 64)
	*n = number{v, err == nil}
	return nil
}

// compact returns v as compact JSON, "" for nothing or null.
func compact(v json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil || buf.String() == "null" {
		return ""
	}
	return buf.String()
}
