package mcptools

import (
	"fmt"

	"github.com/mcplogd/mcplogd/oplog"
)

// listArgs are the arguments of get_logs and the by-name tools beyond
// their filters and paging.
type listArgs struct {
	Collapse bool `json:"collapse,omitempty" jsonschema:"alike runs as one entry"`
	Stacks   bool `json:"stacks,omitempty" jsonschema:"include stacks (max 2048 bytes each)"`
	budgetArg

	textOnly bool // entries in the text block alone (get_logs; see formatArg)
}

// logEntry is one entry of a list of records, newest first: a record, or
// a run of identical console lines in a row (repeat), from id (the newest)
// down to oldestId.
type logEntry struct {
	recordSummary
	Repeat   int    `json:"repeat,omitempty" jsonschema:"lines in a row alike but for values (template), from id (newest) down to oldestId"`
	OldestID uint64 `json:"oldestId,omitempty"`
	Template string `json:"template,omitempty" jsonschema:"with repeat, when the texts differ: their template; text is the newest's"`

	line string // the entry's line in the text block
}

// logPage is the paging state of a list of records. Its numbers count
// records, not entries.
type logPage struct {
	Count      int      `json:"count" jsonschema:"records covered (repeats counted)"`
	Offset     int      `json:"offset"`
	Total      int64    `json:"total" jsonschema:"every match"`
	More       bool     `json:"more" jsonschema:"more past this page: call again with offset nextOffset"`
	NextOffset int      `json:"nextOffset,omitempty"`
	Damaged    []string `json:"damaged,omitempty" jsonschema:"runs of IDs skipped, unreadable: the data file is damaged there (mcplogd salvage)"`
}

// header is the first line of a list's text block.
func (p logPage) header(what string, entries []logEntry) string {
	h := fmt.Sprintf("%s: %d of %d records (%d entries), newest first, offset=%d", what, p.Count, p.Total, len(entries), p.Offset)
	if p.More {
		h += fmt.Sprintf(" more=true: call again with offset=%d", p.NextOffset)
	}
	return withDamage(h, p.Damaged)
}

// listText is a list's text block: header, then each entry's line.
func listText(header string, entries []logEntry) string {
	var w textLog
	for i := range entries {
		w.keep(entries[i].line)
	}
	return w.block(header)
}

// fitLogs turns a page of records, newest first, read from offset, into
// entries: repeats collapsed, texts cut, stacks when asked, as many as the
// budget holds in the answer that mk makes of them. When the budget stops
// it early, more is true and nextOffset follows the last record kept, so
// that paging with offset visits every record once.
func (t *toolset) fitLogs(pg *oplog.Page, offset int, a listArgs, mk func([]logEntry, logPage) any) ([]logEntry, logPage) {
	p := logPage{Count: len(pg.Records), Offset: offset, Total: pg.Total, More: true, NextOffset: offset + len(pg.Records),
		Damaged: oplog.DamageText(pg.Damaged)}
	f := newFitter(a.bytes(DefaultBudget), mk([]logEntry{}, p))
	f.lean = a.textOnly
	kept, start := t.fitEntries(pg.Records, nil, a, f)
	entries := make([]logEntry, len(kept))
	for i := range kept {
		entries[i] = kept[i].logEntry
	}
	p.Count, p.More, p.NextOffset = start, start < len(pg.Records) || pg.More, 0
	if p.More {
		p.NextOffset = offset + start
	}
	return entries, p
}

// fitEntries turns records, newest first, into list entries as f's budget
// holds them: repeats in a row collapsed when asked, texts cut, stacks
// when asked. With machines (studio scope: the machine of each record),
// each entry names its machine, and is measured as the studio answer
// carries it. It returns the entries and how many records they cover.
func (t *toolset) fitEntries(recs []oplog.Record, machines []string, a listArgs, f *fitter) ([]studioEntry, int) {
	entries := []studioEntry{}
	var w textLog
	start := 0
	for _, run := range repeats(recs, a.Collapse) {
		r := &recs[start]
		e := studioEntry{logEntry: logEntry{recordSummary: t.summary(r, a.Stacks)}}
		if n := run.end - run.start; n > 1 {
			e.Repeat, e.OldestID, e.Template = n, recs[run.end-1].ID, run.template
		}
		e.line = w.line(r, runText(e.Template, e.Text), e.TextChars, max(e.Repeat, 1), e.OldestID)
		var entry any = &e.logEntry
		if machines != nil {
			e.Machine, entry = machines[start], &e
			e.line = withMachine(e.line, e.Machine)
		}
		e.line += e.stackLines()
		if !f.fits(entry, e.line) {
			break
		}
		w.keep(e.line)
		entries = append(entries, e)
		start = run.end
	}
	return entries, start
}
