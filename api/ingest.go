package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

// DecodeLines reads a batch of lines in the wire format: a JSON array of
// line objects, NDJSON (one object per line, blank lines skipped), or one
// object, which may span several lines. A UTF-8 byte order mark is skipped.
// Empty input gives no records and no error.
//
// A bad line fails the whole batch with an *oplog.Error (code EINVALID)
// that wraps an *oplog.BatchError whose Index is the line's 0-based position
// among the records; the message names that position, the NDJSON line
// number and the field. A read error is an EINVALID *oplog.Error wrapping
// it (an *http.MaxBytesError stays reachable with errors.As).
func DecodeLines(r io.Reader) ([]oplog.Record, error) {
	return decodeLines(r, 0)
}

// errTooManyLines is decodeLines' answer to a batch of more than its
// maximum of records.
var errTooManyLines = errors.New("too many lines")

// decodeLines is DecodeLines refusing a batch of more than max records
// (0: any number) with errTooManyLines, before it decodes more.
func decodeLines(r io.Reader, max int) ([]oplog.Record, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, &oplog.Error{Code: oplog.EINVALID, Message: fmt.Sprintf("cannot read the body: %v", err), Err: err}
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	t := bytes.TrimSpace(b)
	if recs, ok := fastLines(b, t, max); ok {
		return recs, nil
	}
	return decodeLinesSlow(b, t, max)
}

// decodeLinesSlow decodes field by field what fastLines left: it words
// the error of a bad batch, or answers errTooManyLines at the record after
// max (0: no maximum).
func decodeLinesSlow(b, t []byte, max int) ([]oplog.Record, error) {
	switch {
	case len(t) == 0:
		return nil, nil
	case t[0] == '[':
		return decodeArray(t, max)
	case t[0] == '{' && json.Valid(t):
		r, err := decodeLineSlow(t)
		if err != nil {
			return nil, recordError(0, 0, err)
		}
		return []oplog.Record{r}, nil
	}
	return decodeNDJSON(b, max)
}

func decodeArray(b []byte, max int) ([]oplog.Record, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // the '[' that DecodeLines saw
		return nil, oplog.Errorf(oplog.EINVALID, "malformed JSON: %v", err)
	}
	var recs []oplog.Record
	for dec.More() {
		if max > 0 && len(recs) == max {
			return nil, errTooManyLines
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, recordError(len(recs), 0, oplog.Errorf(oplog.EINVALID, "malformed JSON: %v", err))
		}
		r, err := decodeLineSlow(raw)
		if err != nil {
			return nil, recordError(len(recs), 0, err)
		}
		recs = append(recs, r)
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return nil, oplog.Errorf(oplog.EINVALID, "malformed JSON: the array is not closed with ]")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, oplog.Errorf(oplog.EINVALID, "malformed JSON: unexpected data after the closing ]")
	}
	return recs, nil
}

func decodeNDJSON(b []byte, max int) ([]oplog.Record, error) {
	var recs []oplog.Record
	for n := 1; len(b) > 0; n++ {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if max > 0 && len(recs) == max {
			return nil, errTooManyLines
		}
		r, err := decodeLineSlow(line)
		if err != nil {
			return nil, recordError(len(recs), n, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// recordError says which record of a batch was refused, and on which NDJSON
// line when line > 0.
func recordError(index, line int, err error) error {
	where := fmt.Sprintf("record %d", index)
	if line > 0 {
		where += fmt.Sprintf(" (line %d)", line)
	}
	return &oplog.Error{Code: oplog.EINVALID, Message: where + ": " + oplog.ErrorMessage(err),
		Err: &oplog.BatchError{Index: index, Err: err}}
}

// DecodeLine decodes one line object of the wire format:
//
//	{"time": "2026-01-02T15:04:05Z" or Unix s/ms/µs/ns as a number,
//	 "level": "info",                      required; any oplog.ParseLevel spelling
//	 "name": "Player",                     or "log_name", "logName"
//	 "source": "unity-editor",
//	 "text": "spawned",                    or "message"
//	 "stack": "at Player.Spawn ()",        or "stackTrace", "stack_trace"
//	 "data": {"x": 3},                     a JSON object, or "context"
//	 "kind": "line"}                       or "marker": name is then a marker's (oplog.Markers)
//
// A null value counts as absent. Unknown fields, two spellings of one field
// and values of the wrong type are EINVALID *oplog.Errors naming the field.
// Sizes and label characters are checked later, by oplog.Log.Append.
func DecodeLine(b []byte) (oplog.Record, error) {
	if r, ok := fastLine(b); ok {
		return r, nil
	}
	return decodeLineSlow(b)
}

func decodeLineSlow(b []byte) (oplog.Record, error) {
	f, err := parseObject(b)
	if err != nil {
		return oplog.Record{}, err
	}
	r := oplog.Record{
		Kind:   oplog.KindLine,
		Time:   f.time("time"),
		Name:   f.string("name", "log_name", "logName"),
		Source: f.string("source"),
		Text:   f.string("text", "message"),
		Stack:  f.string("stack", "stackTrace", "stack_trace"),
		Data:   f.json(true, "data", "context"),
	}
	level := f.string("level")
	kind := f.string("kind")
	if err := f.done(); err != nil {
		return oplog.Record{}, err
	}
	switch kind {
	case "", "line":
	case "marker":
		r.Kind = oplog.KindMarker // name says which: run, compile.*, exit
	default:
		return oplog.Record{}, oplog.Errorf(oplog.EINVALID, "kind: want line or marker, got %q (operations go to POST /api/v1/operations)", kind)
	}
	if r.Level, err = oplog.ParseLevel(level); err != nil {
		return oplog.Record{}, oplog.Errorf(oplog.EINVALID, "level: %s", oplog.ErrorMessage(err))
	}
	if r.Level == 0 {
		return oplog.Record{}, oplog.Errorf(oplog.EINVALID, "level: missing; expected debug, info, warn, error or fatal")
	}
	return r, nil
}

// decodeOperation decodes the body of POST /api/v1/operations: an operation
// that starts now, or one recorded after it ended when status is given.
func decodeOperation(b []byte) (oplog.Record, error) {
	f, err := parseObject(b)
	if err != nil {
		return oplog.Record{}, err
	}
	r := oplog.Record{
		Kind:      oplog.KindOp,
		Tool:      f.string("tool"),
		Arguments: f.json(false, "arguments"),
		Source:    f.string("source"),
		Name:      f.string("name"),
		Text:      f.string("text"),
		Time:      f.time("time"),
		Data:      f.json(true, "data", "context"),
		Status:    f.status("status"),
		Result:    f.json(false, "result"),
		Error:     f.string("error"),
		EndTime:   f.time("endTime"),
	}
	if oplog.HasForwardedKey(r.Data) {
		f.fail(oplog.Errorf(oplog.EINVALID, "data: %q is the gateway's mark of the calls it forwarded itself, which alone can be replayed; leave it out", oplog.ForwardedKey))
	}
	return r, f.done()
}

// decodeCompletion decodes the body of POST /api/v1/operations/:id/complete.
// An empty body means success now.
func decodeCompletion(b []byte) (oplog.Completion, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return oplog.Completion{}, nil
	}
	f, err := parseObject(b)
	if err != nil {
		return oplog.Completion{}, err
	}
	c := oplog.Completion{
		Status:  f.status("status"),
		Result:  f.json(false, "result"),
		Error:   f.string("error"),
		EndTime: f.time("endTime"),
	}
	return c, f.done()
}

// fields is a JSON object taken apart field by field. Each getter removes
// the fields it reads and keeps the first error; done reports it, or the
// fields that no getter wanted.
type fields struct {
	m   map[string]json.RawMessage
	err error
}

func parseObject(b []byte) (*fields, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		if len(b) > 0 && !json.Valid(b) { // plain text would be called "a number" below
			c, _ := oplog.ClipRunes(string(b), 40)
			return nil, oplog.Errorf(oplog.EINVALID, "expected a JSON object, got text that is not JSON: %q", c)
		}
		return nil, oplog.Errorf(oplog.EINVALID, "expected a JSON object, got %s", jsonKind(b))
	}
	f := &fields{}
	if err := json.Unmarshal(b, &f.m); err != nil {
		return nil, oplog.Errorf(oplog.EINVALID, "malformed JSON: %v", err)
	}
	if k, ok := duplicateKey(b, len(f.m)); ok {
		return nil, oplog.Errorf(oplog.EINVALID, "%s: given twice; give each field once", k)
	}
	return f, nil
}

// duplicateKey returns the first key that the object b (valid JSON, with
// distinct keys that decode to n) gives twice: a map keeps only the last,
// which would silently drop the first.
func duplicateKey(b []byte, distinct int) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return "", false
	}
	seen := make(map[string]bool, distinct)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		k, _ := tok.(string)
		if seen[k] {
			return k, true
		}
		seen[k] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return "", false
		}
	}
	return "", false
}

// take removes the fields called any of names and returns the one that is
// given (not null), or nil.
func (f *fields) take(names ...string) (string, json.RawMessage) {
	var name string
	var v json.RawMessage
	for _, n := range names {
		raw, ok := f.m[n]
		delete(f.m, n)
		if !ok || string(raw) == "null" {
			continue
		}
		if v != nil {
			f.fail(oplog.Errorf(oplog.EINVALID, "%s: give either %s or %s, not both", name, name, n))
			return "", nil
		}
		name, v = n, raw
	}
	return name, v
}

func (f *fields) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

func (f *fields) string(names ...string) string {
	name, v := f.take(names...)
	if v == nil {
		return ""
	}
	if s, ok := plainString(v); ok {
		return s
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		f.fail(oplog.Errorf(oplog.EINVALID, "%s: must be a string, got %s", name, jsonKind(v)))
	}
	return s
}

// plainString returns the JSON string v (already validated) without
// decoding it when it has no escapes and is valid UTF-8, the common case.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// time reads an RFC 3339 string (or anything oplog.ParseTime reads) or a
// Unix timestamp in seconds, milliseconds, microseconds or nanoseconds.
func (f *fields) time(names ...string) time.Time {
	name, v := f.take(names...)
	var s string
	switch {
	case v == nil:
		return time.Time{}
	case v[0] == '"':
		var ok bool
		if s, ok = plainString(v); !ok && json.Unmarshal(v, &s) != nil {
			f.fail(oplog.Errorf(oplog.EINVALID, "%s: malformed string", name))
			return time.Time{}
		}
	case v[0] == '-' || v[0] >= '0' && v[0] <= '9':
		s = string(v)
	default:
		f.fail(oplog.Errorf(oplog.EINVALID, "%s: must be an RFC 3339 string or a Unix timestamp, got %s", name, jsonKind(v)))
		return time.Time{}
	}
	t, err := oplog.ParseTime(s, time.Now())
	switch {
	case err != nil:
		f.fail(oplog.Errorf(oplog.EINVALID, "%s: %s", name, oplog.ErrorMessage(err)))
	case t.IsZero() && strings.TrimSpace(s) != "":
		// 0 and 0001-01-01T00:00:00Z are no moment a game logged, as 1.5
		// (1970) is none: refused alike, rather than read as "now".
		f.fail(oplog.Errorf(oplog.EINVALID, "%s: %s is the zero time, out of range (years %d to %d); leave %s out for the arrival time",
			name, s, oplog.MinRecordYear, oplog.MaxRecordYear, name))
	}
	return t
}

func (f *fields) status(names ...string) oplog.Status {
	s := f.string(names...)
	st, err := oplog.ParseStatus(s)
	if err != nil {
		f.fail(oplog.Errorf(oplog.EINVALID, "%s: %s", names[0], oplog.ErrorMessage(err)))
	}
	return st
}

// json returns a JSON value compacted, or nil when absent; objectOnly
// refuses anything but an object.
func (f *fields) json(objectOnly bool, names ...string) json.RawMessage {
	name, v := f.take(names...)
	if v == nil {
		return nil
	}
	if objectOnly && v[0] != '{' {
		f.fail(oplog.Errorf(oplog.EINVALID, "%s: must be a JSON object, got %s", name, jsonKind(v)))
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		f.fail(oplog.Errorf(oplog.EINVALID, "%s: %v", name, err))
	}
	return buf.Bytes()
}

// done returns the first error, or names the fields nobody took.
func (f *fields) done() error {
	if f.err != nil || len(f.m) == 0 {
		return f.err
	}
	names := make([]string, 0, len(f.m))
	for n := range f.m {
		names = append(names, fmt.Sprintf("%q", n))
	}
	slices.Sort(names)
	what := "field"
	if len(names) > 1 {
		what = "fields"
	}
	return oplog.Errorf(oplog.EINVALID, "unknown %s %s; put extra fields in data", what, strings.Join(names, ", "))
}

// jsonKind names the type of a JSON value for error messages.
func jsonKind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
