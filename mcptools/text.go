package mcptools

import (
	"fmt"
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
	t := r.Time.UTC()
	var b strings.Builder
	if day := t.Format(time.DateOnly); day != w.day {
		b.WriteString("= ")
		b.WriteString(day)
		b.WriteByte('\n')
	}
	b.WriteByte('#')
	b.WriteString(strconv.FormatUint(r.ID, 10))
	if repeat > 1 {
		fmt.Fprintf(&b, "..#%d ×%d", last, repeat)
	}
	b.WriteByte(' ')
	b.WriteString(t.Format("15:04:05.000"))
	b.WriteByte(' ')
	b.WriteString(strings.ToUpper(r.Level.String()))
	b.WriteByte(' ')
	b.WriteString(r.Source)
	b.WriteByte('/')
	if r.Kind == oplog.KindOp {
		b.WriteString("op ")
		b.WriteString(r.Tool)
		b.WriteByte(' ')
		b.WriteString(r.Status.String())
		if d := durationMs(r); d != nil {
			fmt.Fprintf(&b, " %dms", *d)
		}
		b.WriteByte(':')
	} else {
		if r.Kind == oplog.KindMarker {
			b.WriteString("marker ")
		}
		b.WriteString(r.Name)
	}
	b.WriteByte(' ')
	b.WriteString(oneLine(text))
	if truncatedFrom > 0 {
		fmt.Fprintf(&b, "… [%d chars]", truncatedFrom)
	}
	if r.Stack != "" {
		b.WriteString(" [stack]")
	}
	return b.String()
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

// oneLine keeps an entry on one line: newlines and tabs become spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', '\t':
			return ' '
		}
		return r
	}, s)
}

// repeats groups recs into runs of consecutive records that say the same
// thing (kind, source, name, level and text): runs[i] is the index just
// past run i. Without collapse every record is its own run.
func repeats(recs []oplog.Record, collapse bool) []int {
	ends := make([]int, 0, len(recs))
	for i := 0; i < len(recs); {
		j := i + 1
		for collapse && j < len(recs) && same(&recs[i], &recs[j]) {
			j++
		}
		ends = append(ends, j)
		i = j
	}
	return ends
}

func same(a, b *oplog.Record) bool {
	return a.Kind == b.Kind && a.Source == b.Source && a.Name == b.Name && a.Level == b.Level && a.Text == b.Text &&
		a.Kind == oplog.KindLine
}
