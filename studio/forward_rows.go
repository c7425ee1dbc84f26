package studio

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/mcplogd/mcplogd/oplog"
)

// rowSchema holds what every row of one machine carries besides its record.
type rowSchema struct {
	project, machine string
	// signature returns a record's crash signature, "" for none; nil: none.
	signature func(*oplog.Record) string
}

// maxFieldBytes bounds _msg, stack and data in a row: VictoriaLogs skips
// a line over 256 KiB (-insert.maxLineSizeBytes) and still answers 2xx.
// Longer texts are cut (at a character); a larger data object is left out.
const maxFieldBytes = 64 << 10

// appendRow appends r as one JSON line of the studio schema: stream fields
// project, machine and source; _msg, _time, id, seq, revision, kind,
// level, name, stack, signature, tool, status, end_time (an operation's,
// once it ended), run, template (the ID of
// the record's template, as the local index has it: oplog.RecordTemplateID,
// an operation's shape for a call),
// template_text (the template itself, for stats by template), and data
// (which VictoriaLogs flattens into data.* fields). Empty fields are left
// out.
func (s *rowSchema) appendRow(b []byte, r *oplog.Record, seq, revision uint64) []byte {
	b = append(b, `{"project":`...)
	b = appendString(b, s.project)
	b = append(b, `,"machine":`...)
	b = appendString(b, s.machine)
	b = append(b, `,"source":`...)
	b = appendString(b, r.Source)
	b = append(b, `,"_msg":`...)
	b = appendString(b, oplog.ClipBytes(r.Text, maxFieldBytes))
	b = append(b, `,"_time":"`...)
	b = r.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","id":`...)
	b = strconv.AppendUint(b, r.ID, 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, `,"revision":`...)
	b = strconv.AppendUint(b, revision, 10)
	b = append(b, `,"kind":"`...)
	b = append(b, r.Kind.String()...)
	b = append(b, `","level":"`...)
	b = append(b, r.Level.String()...)
	b = append(b, '"')
	b = appendField(b, "name", r.Name)
	b = appendField(b, "stack", oplog.ClipBytes(r.Stack, maxFieldBytes))
	if s.signature != nil {
		b = appendField(b, "signature", s.signature(r))
	}
	b = appendField(b, "tool", r.Tool)
	b = appendField(b, "status", r.Status.String())
	if r.IsComplete() && !r.EndTime.IsZero() {
		b = append(b, `,"end_time":"`...)
		b = r.EndTime.UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	if r.Run != 0 {
		b = append(b, `,"run":`...)
		b = strconv.AppendUint(b, r.Run, 10)
	}
	if t := oplog.RecordTemplate(r); t != "" {
		b = appendField(b, "template", oplog.TemplateID(t))
		b = appendField(b, "template_text", t)
	}
	if len(r.Data) > 0 && len(r.Data) <= maxFieldBytes && r.Data[0] == '{' {
		b = append(b, `,"data":`...)
		b = append(b, r.Data...)
	}
	return append(b, "}\n"...)
}

// appendField appends ,"key":"value" when value is not empty.
func appendField(b []byte, key, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	return appendString(b, value)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
