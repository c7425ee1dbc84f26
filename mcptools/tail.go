package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- console_tail ----

type tailIn struct {
	SinceID  idArg  `json:"sinceId,omitempty" jsonschema:"the previous lastId; omit for the newest lines"`
	Revision idArg  `json:"revision,omitempty" jsonschema:"the previous revision; if the log was cleared since: reset true"`
	Limit    int    `json:"limit,omitempty" jsonschema:"most lines (max 1000)"`
	Level    string `json:"level,omitempty" jsonschema:"minimum level (debug…fatal)"`
	Name     string `json:"name,omitempty" jsonschema:"only this log name"`
	Source   string `json:"source,omitempty" jsonschema:"only this source"`
	Run      string `json:"run,omitempty" jsonschema:"current, previous or a run number"`
	Since    string `json:"since,omitempty" jsonschema:"a time (as in get_logs) or last_compile"`
	WaitMs   int    `json:"waitMs,omitempty" jsonschema:"long poll: ms to wait for a line (max 30000)"`
	Collapse bool   `json:"collapse,omitempty" jsonschema:"alike runs as one entry"`
	Stacks   bool   `json:"stacks,omitempty" jsonschema:"include stacks (max 2048 bytes each)"`
	tailBudgetArg
	formatArg
}

type tailOut struct {
	Lines    []tailLine `json:"lines,omitzero" jsonschema:"with format json; else the text block holds them"`
	LastID   uint64     `json:"lastId" jsonschema:"pass as sinceId next time"`
	Revision uint64     `json:"revision" jsonschema:"the log's generation; pass it back with sinceId"`
	Dropped  uint64     `json:"dropped" jsonschema:"lines after sinceId removed by retention before they were read"`
	Reset    bool       `json:"reset" jsonschema:"sinceId was past the newest ID or from another generation: lines start over"`
	More     bool       `json:"more" jsonschema:"more lines are ready (past limit or maxBytes): call again at once with sinceId lastId"`
	Skipped  int        `json:"skipped,omitempty" jsonschema:"without sinceId: older lines left out to fit maxBytes (get_logs pages back through them)"`
	Damaged  []string   `json:"damaged,omitempty" jsonschema:"runs of IDs skipped, unreadable: the data file is damaged there (mcplogd salvage)"`

	lean bool // lines in the text block alone (see formatArg)
}

// MarshalJSON leaves the lines out of a lean answer.
func (o tailOut) MarshalJSON() ([]byte, error) {
	type plain tailOut
	if o.lean {
		o.Lines = nil
	}
	return json.Marshal(plain(o))
}

func (o tailOut) text() string {
	var w textLog
	for i := range o.Lines {
		w.keep(o.Lines[i].line)
	}
	return withDamage(w.block(o.header()), o.Damaged)
}

func (o tailOut) header() string {
	n := 0
	for i := range o.Lines {
		n += max(o.Lines[i].Repeat, 1)
	}
	h := fmt.Sprintf("console_tail: %d lines (%d entries), lastId=%d revision=%d", n, len(o.Lines), o.LastID, o.Revision)
	if o.Reset {
		h += " reset=true (lines start over)"
	}
	if o.Dropped > 0 {
		h += fmt.Sprintf(" dropped=%d (removed by retention before you read them)", o.Dropped)
	}
	if o.More {
		h += fmt.Sprintf(" more=true: call again with sinceId=%d", o.LastID)
	}
	if o.Skipped > 0 {
		h += fmt.Sprintf(" skipped=%d older lines (maxBytes)", o.Skipped)
	}
	return h
}

func (t *toolset) consoleTail(ctx context.Context, req *mcp.CallToolRequest, in tailIn) (tailOut, error) {
	r, err := oplog.Resolve(ctx, t.log, oplog.Args{SearchText: oplog.SearchText{FilterText: oplog.FilterText{Level: in.Level, Name: in.Name,
		Source: in.Source, Since: in.Since}}, Run: in.Run, RunsWords: runsWords}, t.opts.Now())
	if err != nil {
		return tailOut{}, err
	}
	f := r.Filter
	f.Kind, f.WithMarkers = oplog.KindLine, true
	q := oplog.TailQuery{Filter: f, Limit: in.Limit, Wait: waitDuration(in.WaitMs)}
	if q.SinceID, q.HasSince, err = parseIDArg("sinceId", in.SinceID, true); err != nil {
		return tailOut{}, err
	}
	if q.Revision, _, err = parseIDArg("revision", in.Revision, true); err != nil {
		return tailOut{}, err
	}
	lean, err := in.lean()
	if err != nil {
		return tailOut{}, err
	}
	wctx, cancel := t.opts.Requests.merge(ctx, req)
	defer cancel()
	tail, err := t.log.Tail(wctx, q)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		// The client went away or the server is stopping: answer with what there is.
		q.Wait = 0
		tail, err = t.log.Tail(ctx, q)
	}
	if err != nil {
		return tailOut{}, err
	}
	return *t.fitTail(&tail, tailOpts{collapse: in.Collapse, stacks: in.Stacks, newest: !q.HasSince, lean: lean}, in.bytes()), nil
}

// fitTail turns a tail into console_tail's answer: repeats collapsed, texts
// cut, and as many entries as the budget holds. Reading on from a sinceId,
// the oldest entries are kept: when fewer fit than the tail has, lastId is
// the last one kept and more is true, so that the next call with
// sinceId=lastId goes on without a gap. For the newest lines (no sinceId)
// the newest entries are kept and skipped counts the older lines left out.
func (t *toolset) fitTail(tail *oplog.Tail, o tailOpts, budget int) *tailOut {
	out := &tailOut{Lines: []tailLine{}, LastID: tail.LastID, Revision: tail.Revision, Dropped: tail.Dropped, Reset: tail.Reset, More: tail.More,
		Damaged: oplog.DamageText(tail.Damaged), lean: o.lean}
	// Entries are built as they are visited: a default tail reads more
	// records than its budget keeps.
	runs := repeats(tail.Lines, o.collapse)
	entries := make([]tailLine, len(runs))
	f := newFitter(budget, &tailOut{Lines: []tailLine{}, LastID: tail.LastID, Revision: tail.Revision, Dropped: tail.Dropped, Reset: tail.Reset,
		More: true, Skipped: len(tail.Lines), lean: o.lean})
	f.lean = o.lean
	// Each entry's line is written once, without its date line; a date
	// line counts where the date changes (walking back from the newest, or
	// on from sinceId) and is added to the kept lines below.
	fit := func(i int, day *string) bool {
		e := &entries[i]
		*e = t.tailEntry(tail.Lines, runs[i], o)
		e.line = entryLine(e.rec, runText(e.Template, e.Text), e.TextChars, e.records(), e.last()) + e.stackLines()
		text := jsonStringLen(e.line) + len(`\n`)
		if d := dayOf(e.rec.Time); d != *day {
			text, *day = text+len("= ")+len(d)+len(`\n`), d
		}
		return f.fitsText(e, text)
	}
	from, to, day := 0, len(entries), ""
	if o.newest {
		for from = len(entries); from > 0 && fit(from-1, &day); from-- {
		}
	} else {
		for to = 0; to < len(entries) && fit(to, &day); to++ {
		}
		if to < len(entries) {
			out.LastID, out.More = entries[to-1].last(), true
		}
	}
	day = ""
	for i := from; i < to; i++ {
		e := &entries[i]
		if d := dayOf(e.rec.Time); d != day {
			e.line, day = "= "+d+"\n"+e.line, d
		}
		out.Skipped += e.records()
	}
	out.Skipped = len(tail.Lines) - out.Skipped
	if !o.newest {
		out.Skipped = 0 // the lines not sent are newer: more and lastId say where to go on
	}
	if to > from {
		out.Lines = entries[from:to]
	}
	return out
}

// tailOpts are how console_tail's arguments shape its entries.
type tailOpts struct {
	collapse bool // runs of identical lines as one entry
	stacks   bool // stacks included
	newest   bool // no sinceId: keep the newest entries
	lean     bool // the entries in the text block alone
}

// tailEntry is console_tail's entry of one run of recs.
func (t *toolset) tailEntry(recs []oplog.Record, run run, o tailOpts) tailLine {
	r, last := &recs[run.start], &recs[run.end-1]
	l := tailLine{ID: r.ID, Time: listTimeOf(r.Time), Level: r.Level.String(), Name: r.Name, Source: r.Source,
		Marker: r.Kind == oplog.KindMarker, HasStack: r.Stack != "", rec: r}
	l.Text, l.Truncated = cut(r.Text, t.opts.MaxTextChars)
	if l.Truncated {
		l.TextChars = utf8.RuneCountInString(r.Text)
	}
	if o.stacks {
		l.stackOut = listStack(r.Stack)
	}
	if n := run.end - run.start; n > 1 {
		l.Repeat, l.LastID, l.Template = n, last.ID, run.template
	}
	return l
}
