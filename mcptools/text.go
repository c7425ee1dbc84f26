package mcptools

import (
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// The text blocks of list answers are one line per entry, the way a
// console shows them:
//
//	#123 12:34:56.789 ERROR unity/Physics NullReferenceException: … [+2345 chars] [stack]
//	#124..#723 ×600 12:34:57.002 WARN unity/Shader Shader warning: …
//	#724 12:35:00.000 INFO agent/op run_code success 12ms: print(1)
//
// A line "= 2026-03-14" comes before the first entry and wherever the
// date changes, so that each entry needs only its time of day.

// textLog writes the lines of a text block, with the date lines.
type textLog struct {
	entries []string
	day     string
}

// line returns the text of one entry, r standing for repeat records up to
// the ID last (repeat 1: r alone), its text cut from truncatedFrom
// characters (0: whole), preceded by a date line when the date changes.
// keep adds it to the block.
func (w *textLog) line(r *oplog.Record, text string, truncatedFrom int, repeat int, last uint64) string {
	b := make([]byte, 0, 64+len(r.Source)+len(r.Name)+len(text))
	if day := dayOf(r.Time); day != w.day {
		b = append(b, "= "...)
		b = append(b, day...)
		b = append(b, '\n')
	}
	return string(appendEntry(b, r, text, truncatedFrom, repeat, last))
}

// entryLine is line without the date line.
func entryLine(r *oplog.Record, text string, truncatedFrom int, repeat int, last uint64) string {
	b := make([]byte, 0, 48+len(r.Source)+len(r.Name)+len(text))
	return string(appendEntry(b, r, text, truncatedFrom, repeat, last))
}

// dayOf is the date line's date of t.
func dayOf(t time.Time) string {
	var a [10]byte
	if b, ok := appendDate(a[:0], t.UTC()); ok {
		return string(b)
	}
	return t.UTC().Format(time.DateOnly)
}

// appendEntry appends an entry's line (see line) without its date line.
func appendEntry(b []byte, r *oplog.Record, text string, truncatedFrom int, repeat int, last uint64) []byte {
	b = append(b, '#')
	b = strconv.AppendUint(b, r.ID, 10)
	if repeat > 1 {
		b = append(b, "..#"...)
		b = strconv.AppendUint(b, last, 10)
		b = append(b, " ×"...)
		b = strconv.AppendInt(b, int64(repeat), 10)
	}
	b = append(b, ' ')
	b = appendClock(b, r.Time.UTC())
	b = append(b, ' ')
	b = append(b, upperLevel(r.Level)...)
	b = append(b, ' ')
	b = append(b, r.Source...)
	if r.Kind == oplog.KindOp {
		b = append(b, "/op "...)
		b = append(b, r.Tool...)
		b = append(b, ' ')
		b = append(b, r.Status.String()...)
		if d := durationMs(r); d != nil {
			b = append(b, ' ')
			b = strconv.AppendInt(b, *d, 10)
			b = append(b, "ms"...)
		}
		b = append(b, ':')
	} else if r.Kind == oplog.KindMarker {
		b = append(b, "/marker "...)
		b = append(b, r.Name...)
	} else if r.Name != "" { // a line without a name: its source alone, not "unity/"
		b = append(b, '/')
		b = append(b, r.Name...)
	}
	b = append(b, ' ')
	b = append(b, oplog.OneLine(text, false)...)
	if truncatedFrom > 0 {
		b = append(b, "… ["...)
		b = strconv.AppendInt(b, int64(truncatedFrom), 10)
		b = append(b, " chars]"...)
	}
	if r.Stack != "" {
		b = append(b, " [stack]"...)
	}
	return b
}

// runText is the text an entry's line shows: a run of texts that differ
// shows their template and then the first text whole.
func runText(template, text string) string {
	if template == "" {
		return text
	}
	return template + " | first: " + text
}

// keep adds a line that line returned.
func (w *textLog) keep(line string) {
	if d, rest, ok := strings.Cut(line, "\n"); ok && strings.HasPrefix(d, "= ") {
		w.day = d[2:]
		w.entries = append(w.entries, d)
		line = rest
	}
	w.entries = append(w.entries, line)
}

// block is the text: header, then the entries.
func (w *textLog) block(header string) string { return lines(header, w.entries) }

// run is a run of consecutive records, in answer order, that say the
// same thing: recs[start:end]. template is their message template when
// their texts differ (only in values the template blanks), "" when every
// text is the same.
type run struct {
	start, end int
	template   string
}

// repeats groups recs into runs (see sameRun). Without collapse every
// record is its own run.
func repeats(recs []oplog.Record, collapse bool) []run {
	runs := make([]run, 0, len(recs))
	for i := 0; i < len(recs); {
		r := run{start: i, end: i + 1}
		tmpl := ""
		for collapse && r.end < len(recs) {
			a, b := &recs[i], &recs[r.end]
			if !sameRun(a, b) {
				break
			}
			if a.Text != b.Text {
				if tmpl == "" {
					tmpl = oplog.Template(a.Text)
				}
				if !templated(a.Text, b.Text) || oplog.Template(b.Text) != tmpl {
					break
				}
				r.template = tmpl
			}
			r.end++
		}
		if r.template != "" && r.end-r.start < minValueRun {
			r.end, r.template = r.start+1, "" // a short run would hide its values for no room saved
		}
		runs = append(runs, r)
		i = r.end
	}
	return runs
}

// minValueRun is how long a run of texts that differ in their values must
// be to be shown as its template: two or three lines take about the room
// of the template and the first line, and say their values.
const minValueRun = 4

// sameRun reports whether b may join a's run: console lines of one kind,
// source, name and level, with the same stack and data (where each was
// read from aside, oplog.SameData), so that a run of errors with different
// stacks never merges and nothing but the values in the text's first line
// and the lines' provenance is left out. The texts are compared by the
// caller.
func sameRun(a, b *oplog.Record) bool {
	return a.Kind == oplog.KindLine && b.Kind == oplog.KindLine && a.Source == b.Source && a.Name == b.Name &&
		a.Level == b.Level && a.Stack == b.Stack && oplog.SameData(a.Data, b.Data)
}

// templated reports whether two different texts may be compared by their
// templates: the template reads only the first line and its first
// MaxTemplateInput bytes, so texts that differ past them never merge.
func templated(a, b string) bool {
	ia, ib := strings.IndexAny(a, "\r\n"), strings.IndexAny(b, "\r\n")
	if ia < 0 {
		ia = len(a)
	}
	if ib < 0 {
		ib = len(b)
	}
	return ia <= oplog.MaxTemplateInput && ib <= oplog.MaxTemplateInput && a[ia:] == b[ib:]
}
