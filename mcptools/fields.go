package mcptools

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

// A record's long fields (text, stack, data, arguments, result, error; a
// stack may take a MiB) are cut to fit an answer's budget: each field
// longer than a common cap is cut to it at a UTF-8 boundary, the cap being
// the largest with which the whole answer fits. cut says, per cut field,
// its whole size and where the shown slice ends; get_log_details with
// field and offset reads on from there, a slice at a time.

// fieldCut says what part of a field an answer shows.
type fieldCut struct {
	Bytes      int `json:"bytes" jsonschema:"the whole field's size"`
	Offset     int `json:"offset"`
	Shown      int `json:"shown" jsonschema:"bytes shown from offset"`
	NextOffset int `json:"nextOffset,omitempty" jsonschema:"pass as offset with field to read on; absent at the end"`
}

// detailFields are the fields of a record that may be cut, in the order
// the text block shows them.
var detailFields = []string{"text", "stack", "data", "arguments", "result", "error"}

// longField is one field that may be cut.
type longField struct {
	name  string
	whole string // its content; the JSON text for a JSON field
	json  bool   // data, arguments, result: cut, it is sent as a string
}

// recordFields are r's non-empty fields among names.
func recordFields(r *oplog.Record, names ...string) []longField {
	var out []longField
	for _, n := range names {
		f := longField{name: n}
		switch n {
		case "text":
			f.whole = r.Text
		case "stack":
			f.whole = r.Stack
		case "error":
			f.whole = r.Error
		case "data":
			f.whole, f.json = string(r.Data), true
		case "arguments":
			f.whole, f.json = string(r.Arguments), true
		case "result":
			f.whole, f.json = string(r.Result), true
		}
		if f.whole != "" {
			out = append(out, f)
		}
	}
	return out
}

// shown is a field's part that an answer carries.
type shown struct {
	field *longField
	text  string // the part shown
	cut   *fieldCut
}

// value is the field's JSON value in structuredContent: a cut JSON field
// is a string holding its slice of the JSON text.
func (s *shown) value() json.RawMessage {
	if s.cut == nil && s.field.json {
		return json.RawMessage(s.field.whole)
	}
	return mustJSON(s.text)
}

// slice is f from offset (moved back to a character's start) cut to at
// most n bytes at a character boundary; at least one character when any
// is left, so that paging always moves on.
func slice(f *longField, offset, n int) shown {
	s := f.whole
	offset = min(max(offset, 0), len(s))
	for offset > 0 && offset < len(s) && !utf8.RuneStart(s[offset]) {
		offset--
	}
	part := oplog.ClipBytes(s[offset:], n)
	if part == "" && offset < len(s) {
		_, size := utf8.DecodeRuneInString(s[offset:])
		part = s[offset : offset+size]
	}
	sh := shown{field: f, text: part}
	if offset > 0 || len(part) < len(s) {
		sh.cut = &fieldCut{Bytes: len(s), Offset: offset, Shown: len(part)}
		if end := offset + len(part); end < len(s) {
			sh.cut.NextOffset = end
		}
	}
	return sh
}

// fitFields cuts fields from offset to the largest common cap with which
// size (the answer's size with those parts) stays within budget.
func fitFields(fields []longField, offset, budget int, size func([]shown) int) []shown {
	at := func(c int) []shown {
		out := make([]shown, len(fields))
		for i := range fields {
			out[i] = slice(&fields[i], offset, c)
		}
		return out
	}
	most := 0 // no part longer than the budget fits: a byte takes at least a byte
	for _, f := range fields {
		most = max(most, min(len(f.whole)-offset, budget))
	}
	if all := at(most); size(all) <= budget {
		return all
	}
	lo, hi := 0, most // size(at(lo)) fits or lo is 0; size(at(hi)) does not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if size(at(mid)) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return at(lo)
}

// cuts is the cut map of an answer: nil when nothing was cut.
func cuts(parts []shown) map[string]fieldCut {
	var m map[string]fieldCut
	for _, p := range parts {
		if p.cut != nil {
			if m == nil {
				m = map[string]fieldCut{}
			}
			m[p.field.name] = *p.cut
		}
	}
	return m
}

// cutNote is the header's account of the cut fields.
func cutNote(m map[string]fieldCut) string {
	var b strings.Builder
	for _, n := range detailFields {
		c, ok := m[n]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, " cut: %s %d bytes, shown %d..%d", n, c.Bytes, c.Offset, c.Offset+c.Shown)
		if c.NextOffset > 0 {
			fmt.Fprintf(&b, " (read on: field=%s offset=%d)", n, c.NextOffset)
		}
	}
	return b.String()
}

// checkField checks get_log_details' field argument.
func checkField(name string, offset int) error {
	if name == "" {
		if offset != 0 {
			return argError("offset", "needs field: the field to read from offset")
		}
		return nil
	}
	for _, n := range detailFields {
		if n == name {
			return nil
		}
	}
	return argError("field", "unknown field %q; expected one of %s", name, strings.Join(detailFields, ", "))
}
