package api

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

// This file is DecodeLines' fast path: one pass over each line object that
// checks its syntax and fills the record's fields as it goes, with no map
// and no second scan of data. It only ever answers a well-formed batch of
// well-formed lines. Anything else (a syntax error, an unknown field, two
// spellings of one field, a field given twice, a value of the wrong type,
// a bad level or time (the zero time too),
// nesting deeper than fastMaxDepth) makes it give up, and the batch is
// decoded again by the field-by-field decoder in ingest.go, which words
// the error. So the two decoders agree on every input by construction of
// the fallback; TestDecodeLines_FastMatchesSlow and FuzzDecodeLines_FastSlow
// check that the fast path, when it answers, answers what the slow one does.

// The fields of a line object, one per spelling.
const (
	slotTime = iota
	slotLevel
	slotName
	slotLogName
	slotLogNameCamel
	slotSource
	slotText
	slotMessage
	slotStack
	slotStackTrace
	slotStackTraceSnake
	slotData
	slotContext
	numSlots
)

func slotOf(key []byte) int {
	switch string(key) {
	case "time":
		return slotTime
	case "level":
		return slotLevel
	case "name":
		return slotName
	case "log_name":
		return slotLogName
	case "logName":
		return slotLogNameCamel
	case "source":
		return slotSource
	case "text":
		return slotText
	case "message":
		return slotMessage
	case "stack":
		return slotStack
	case "stackTrace":
		return slotStackTrace
	case "stack_trace":
		return slotStackTraceSnake
	case "data":
		return slotData
	case "context":
		return slotContext
	}
	return -1
}

// fastValue is one field's value as it appears in the line: a string with
// its quotes, a number, or data's object. plain says the string needs no
// unescaping (ASCII, no backslash) or the object no compacting (no
// whitespace outside strings).
type fastValue struct {
	raw   []byte
	plain bool
}

// fastLine reads the line object at s.i and returns its record; ok is false
// when the slow decoder must have the last word.
func (s *scanner) fastLine() (oplog.Record, bool) {
	var vals fastValues
	var seen uint16 // the slots given, null or not
	if !s.next('{') {
		return oplog.Record{}, false
	}
	s.ws()
	if !s.next('}') {
		for {
			if s.i >= len(s.b) || s.b[s.i] != '"' {
				return oplog.Record{}, false
			}
			start := s.i
			ok, plain := s.str()
			if !ok || !plain {
				return oplog.Record{}, false
			}
			slot := slotOf(s.b[start+1 : s.i-1])
			s.ws()
			if slot < 0 || !s.next(':') {
				return oplog.Record{}, false
			}
			s.ws()
			vstart := s.i
			ok, plain = s.value(1)
			if !ok {
				return oplog.Record{}, false
			}
			if seen&(1<<slot) != 0 {
				return oplog.Record{}, false // a field given twice: the slow decoder refuses it
			}
			seen |= 1 << slot
			vals[slot] = fastValue{raw: s.b[vstart:s.i], plain: plain}
			if s.b[vstart] == 'n' {
				vals[slot] = fastValue{} // null is absent
			}
			s.ws()
			if s.next('}') {
				break
			}
			if !s.next(',') {
				return oplog.Record{}, false
			}
			s.ws()
		}
	}
	return vals.record()
}

type fastValues [numSlots]fastValue

// one returns the value of the one spelling given; ok is false when two
// are.
func (v *fastValues) one(slots ...int) (fastValue, bool) {
	var got fastValue
	for _, s := range slots {
		if v[s].raw != nil {
			if got.raw != nil {
				return fastValue{}, false
			}
			got = v[s]
		}
	}
	return got, true
}

// str returns the string of the one spelling given, "" when none is; ok is
// false for anything but a string.
func (v *fastValues) str(slots ...int) (string, bool) {
	f, ok := v.one(slots...)
	switch {
	case !ok:
		return "", false
	case f.raw == nil:
		return "", true
	case f.raw[0] != '"':
		return "", false
	case f.plain:
		return string(f.raw[1 : len(f.raw)-1]), true
	}
	if in := f.raw[1 : len(f.raw)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in), true
	}
	return unquoteJSON(f.raw[1 : len(f.raw)-1]), true
}

func (v *fastValues) record() (oplog.Record, bool) {
	r := oplog.Record{Kind: oplog.KindLine}
	var ok [6]bool
	r.Name, ok[0] = v.str(slotName, slotLogName, slotLogNameCamel)
	r.Source, ok[1] = v.str(slotSource)
	r.Text, ok[2] = v.str(slotText, slotMessage)
	r.Stack, ok[3] = v.str(slotStack, slotStackTrace, slotStackTraceSnake)
	r.Level = quickLevel(v[slotLevel].raw)
	var level string
	if r.Level == 0 {
		level, ok[4] = v.str(slotLevel)
	} else {
		ok[4] = true
	}
	data, ok5 := v.one(slotData, slotContext)
	ok[5] = ok5 && (data.raw == nil || data.raw[0] == '{')
	if ok != [6]bool{true, true, true, true, true, true} {
		return oplog.Record{}, false
	}
	if data.raw != nil {
		if data.plain {
			r.Data = bytes.Clone(data.raw)
		} else {
			var buf bytes.Buffer
			if json.Compact(&buf, data.raw) != nil {
				return oplog.Record{}, false
			}
			r.Data = buf.Bytes()
		}
	}
	var err error
	if r.Level == 0 {
		if r.Level, err = oplog.ParseLevel(level); err != nil || r.Level == 0 {
			return oplog.Record{}, false
		}
	}
	t := v[slotTime].raw
	switch {
	case t == nil:
	case t[0] == '"':
		s, _ := v.str(slotTime)
		if r.Time, err = oplog.ParseTime(s, time.Now()); err != nil || r.Time.IsZero() && s != "" {
			return oplog.Record{}, false
		}
	case t[0] == '-' || '0' <= t[0] && t[0] <= '9':
		if r.Time, err = oplog.ParseTime(string(t), time.Now()); err != nil || r.Time.IsZero() {
			return oplog.Record{}, false
		}
	default:
		return oplog.Record{}, false
	}
	return r, true
}

// quickLevel reads the usual spellings of a level without a string; 0
// leaves the rest to oplog.ParseLevel.
func quickLevel(raw []byte) oplog.Level {
	switch string(raw) {
	case `"debug"`:
		return oplog.LevelDebug
	case `"info"`:
		return oplog.LevelInfo
	case `"warn"`:
		return oplog.LevelWarn
	case `"error"`:
		return oplog.LevelError
	case `"fatal"`:
		return oplog.LevelFatal
	}
	return 0
}

// fastLines decodes what DecodeLines was given (b after the byte order
// mark, t trimmed) when every line is well formed; ok is false otherwise.
// Past max records (0: no maximum), it leaves the batch to the slow
// decoder, which refuses it where it is first too long or malformed.
func fastLines(b, t []byte, max int) ([]oplog.Record, bool) {
	switch {
	case len(t) == 0:
		return nil, true
	case t[0] == '[':
		return fastArray(t, max)
	case t[0] == '{':
		s := scanner{b: t}
		r, ok := s.fastLine()
		if ok && s.i == len(t) {
			return []oplog.Record{r}, true
		}
		if !ok {
			return nil, false
		}
		// A well-formed object followed by more: NDJSON.
	}
	return fastNDJSON(b, max)
}

// capacity is the records to make room for: about n, at most max (when
// max > 0).
func capacity(n, max int) int {
	if max > 0 {
		return min(n, max)
	}
	return n
}

func fastArray(t []byte, max int) ([]oplog.Record, bool) {
	s := scanner{b: t, i: 1}
	s.ws()
	var recs []oplog.Record
	if !s.next(']') {
		recs = make([]oplog.Record, 0, capacity(bytes.Count(t, []byte(`"level"`))+1, max)) // about one a line
		for {
			if max > 0 && len(recs) == max {
				return nil, false
			}
			r, ok := s.fastLine()
			if !ok {
				return nil, false
			}
			recs = append(recs, r)
			s.ws()
			if s.next(']') {
				break
			}
			if !s.next(',') {
				return nil, false
			}
			s.ws()
		}
	}
	s.ws()
	return recs, s.i == len(t)
}

func fastNDJSON(b []byte, max int) ([]oplog.Record, bool) {
	recs := make([]oplog.Record, 0, capacity(bytes.Count(b, []byte{'\n'})+1, max))
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if max > 0 && len(recs) == max {
			return nil, false
		}
		s := scanner{b: line}
		r, ok := s.fastLine()
		if !ok || s.i != len(line) {
			return nil, false
		}
		recs = append(recs, r)
	}
	return recs, true
}

// fastLine decodes one line object b, trimmed; ok is false when DecodeLine
// must decode it field by field.
func fastLine(b []byte) (oplog.Record, bool) {
	s := scanner{b: bytes.TrimSpace(b)}
	r, ok := s.fastLine()
	return r, ok && s.i == len(s.b)
}
