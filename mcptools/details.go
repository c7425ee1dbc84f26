package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- get_log_details ----

type logIDIn struct {
	LogID  idArg `json:"log_id,omitempty" jsonschema:"the record's ID (number or digits)"`
	LogID2 idArg `json:"logId,omitempty" jsonschema:"log_id, as Unity spells it"`
}

type detailsIn struct {
	logIDIn
	Around int    `json:"around,omitempty" jsonschema:"also the N records before and after it from its source (max 50)"`
	Field  string `json:"field,omitempty" jsonschema:"read a cut field from offset: text, stack, data, arguments, result, error"`
	Offset int    `json:"offset,omitempty" jsonschema:"with field: byte offset (cut's nextOffset)"`
	// Not budgetArg: its description states the lists' default.
	MaxBytes int `json:"maxBytes,omitempty" jsonschema:"answer size cap in bytes (default 65536)"`
	scopeArgs
}

type detailsOut struct {
	ID         uint64              `json:"id"`
	Kind       string              `json:"kind" jsonschema:"line or op"`
	Time       string              `json:"time" jsonschema:"RFC 3339, UTC"`
	Level      string              `json:"level"`
	Name       string              `json:"name,omitempty"`
	Source     string              `json:"source"`
	Text       string              `json:"text,omitempty" jsonschema:"the message"`
	Stack      string              `json:"stack,omitempty" jsonschema:"the stack trace"`
	Data       json.RawMessage     `json:"data,omitempty" jsonschema:"the record's data (Unity's context)"`
	Tool       string              `json:"tool,omitempty"`
	Arguments  json.RawMessage     `json:"arguments,omitempty"`
	Status     string              `json:"status,omitempty"`
	IsComplete *bool               `json:"isComplete,omitempty"`
	Result     json.RawMessage     `json:"result,omitempty"`
	Error      string              `json:"error,omitempty"`
	StartTime  string              `json:"startTime,omitempty"`
	EndTime    string              `json:"endTime,omitempty"`
	DurationMs *int64              `json:"durationMs,omitempty"`
	ReplayOf   uint64              `json:"replayOf,omitempty"`
	Prev       uint64              `json:"prev" jsonschema:"the ID of the record before; 0: none"`
	Next       uint64              `json:"next" jsonschema:"the ID of the record after; 0: none"`
	Field      string              `json:"field,omitempty" jsonschema:"the field read with field and offset; the other long fields are left out"`
	Cut        map[string]fieldCut `json:"cut,omitempty" jsonschema:"the fields cut to fit maxBytes, by name; a cut data, arguments or result is a string holding that part of its JSON text"`
	Lines      *opLines            `json:"opLines,omitempty" jsonschema:"an operation's: the console lines its source wrote from its start to its end (or now), as records in one line"`
	Before     []crumb             `json:"before,omitempty" jsonschema:"with around: the records before it from its source, oldest first, in one line (id, time, level, name, text cut: textChars)"`
	After      []crumb             `json:"after,omitempty" jsonschema:"with around: the records after it, the same way"`
	LeftOut    int                 `json:"leftOut,omitempty" jsonschema:"records of around left out to fit maxBytes (the farthest)"`

	parts []shown // the long fields as shown, for the text block
	studioOf
}

// detailsQuery is what get_log_details asks beyond the ID.
type detailsQuery struct {
	around int
	field  string // read this field from offset; "": every field from 0
	offset int
	budget int
	size   func(*detailsOut) int // the answer's size as it is sent
}

func (t *toolset) getLogDetails(ctx context.Context, _ *mcp.CallToolRequest, in detailsIn) (detailsOut, error) {
	_, src, err := t.resolve(ctx, in.scopeArgs.args())
	if err != nil {
		return detailsOut{}, err
	}
	st := src.studio()
	if st != nil && in.Machine == "" {
		return detailsOut{}, argError("machine", "missing: studio scope needs the record's machine with log_id")
	}
	id, err := logID(in.LogID, in.LogID2)
	if err != nil {
		return detailsOut{}, err
	}
	if err := checkField(in.Field, in.Offset); err != nil {
		return detailsOut{}, err
	}
	q := detailsQuery{around: in.Around, field: in.Field, offset: in.Offset, budget: budgetArg{MaxBytes: in.MaxBytes}.bytes(DefaultDetailsBudget),
		size: func(d *detailsOut) int { return resultSize(*d) }}
	if st != nil {
		return t.studioDetails(ctx, st, id, in.Machine, q)
	}
	return t.details(ctx, id, q)
}

// details is one record as get_log_details answers it, within q.budget.
func (t *toolset) details(ctx context.Context, id uint64, q detailsQuery) (detailsOut, error) {
	r, err := t.log.Get(ctx, id)
	if err != nil {
		return detailsOut{}, err
	}
	d := detailsHead(&r)
	if r.Kind == oplog.KindOp {
		d.StartTime, d.EndTime, d.DurationMs, d.ReplayOf = formatTime(r.StartTime), formatTime(r.EndTime), durationMs(&r), r.ReplayOf
	}
	if d.Prev, d.Next, err = t.log.Neighbors(ctx, id); err != nil {
		return detailsOut{}, err
	}
	fields, err := q.fields(&d, &r, fmt.Sprintf("record %d", id))
	if err != nil {
		return detailsOut{}, err
	}
	if q.field == "" {
		if d.Before, d.After, err = t.breadcrumbs(ctx, &r, q.around); err != nil {
			return detailsOut{}, err
		}
		if d.Lines, err = t.opLinesOf(ctx, &r); err != nil {
			return detailsOut{}, err
		}
		d.LeftOut = trimContext(q.size(&d)-q.budget/2, &d.Before, &d.After, d.Lines)
	}
	q.fit(&d, fields)
	return d, nil
}

// detailsHead is the start of r's details: what it is, when and whose;
// an operation's tool and status.
func detailsHead(r *oplog.Record) detailsOut {
	d := detailsOut{ID: r.ID, Kind: r.Kind.String(), Time: formatTime(r.Time), Level: r.Level.String(), Name: r.Name, Source: r.Source}
	if r.Kind == oplog.KindOp {
		complete := r.IsComplete()
		d.Tool, d.Status, d.IsComplete = r.Tool, r.Status.String(), &complete
	}
	return d
}

// fields are the long fields of r that q shows: every one, or q.field
// alone from q.offset, which d.Field then names. An EINVALID error names
// the record as whose says ("record 7").
func (q *detailsQuery) fields(d *detailsOut, r *oplog.Record, whose string) ([]longField, error) {
	if q.field == "" {
		return recordFields(r, detailFields...), nil
	}
	fields := recordFields(r, q.field)
	if len(fields) == 0 {
		return nil, argError("field", "%s has no %s", whose, q.field)
	}
	if q.offset >= len(fields[0].whole) {
		return nil, argError("offset", "%d is past the end of %s (%d bytes)", q.offset, q.field, len(fields[0].whole))
	}
	d.Field = q.field
	return fields, nil
}

// fit puts in d as much of the fields as q.budget holds.
func (q *detailsQuery) fit(d *detailsOut, fields []longField) {
	d.setParts(fitFields(fields, q.offset, q.budget, func(p []shown) int {
		c := *d
		c.setParts(p)
		return q.size(&c)
	}))
}

// setParts puts the long fields' shown parts in d.
func (d *detailsOut) setParts(parts []shown) {
	d.parts, d.Cut = parts, cuts(parts)
	for i := range parts {
		p := &parts[i]
		switch p.field.name {
		case "text":
			d.Text = p.text
		case "stack":
			d.Stack = p.text
		case "error":
			d.Error = p.text
		case "data":
			d.Data = p.value()
		case "arguments":
			d.Arguments = p.value()
		case "result":
			d.Result = p.value()
		}
	}
}

func (d detailsOut) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "get_log_details: #%d %s prev=%d next=%d", d.ID, d.Kind, d.Prev, d.Next)
	if d.LeftOut > 0 {
		fmt.Fprintf(&b, " leftOut=%d (around, maxBytes)", d.LeftOut)
	}
	b.WriteString(cutNote(d.Cut))
	fmt.Fprintf(&b, "\n#%d %s %s %s/", d.ID, d.Time, strings.ToUpper(d.Level), d.Source)
	if d.Kind == "op" {
		fmt.Fprintf(&b, "op %s %s", d.Tool, d.Status)
		if d.DurationMs != nil {
			fmt.Fprintf(&b, " %dms", *d.DurationMs)
		}
		fmt.Fprintf(&b, " start=%s", d.StartTime)
		if d.EndTime != "" {
			fmt.Fprintf(&b, " end=%s", d.EndTime)
		}
		if d.ReplayOf != 0 {
			fmt.Fprintf(&b, " replayOf=#%d", d.ReplayOf)
		}
	} else {
		b.WriteString(d.Name)
	}
	partsText(&b, d.parts, d.Field != "")
	d.Lines.text(&b)
	if len(d.Before)+len(d.After) > 0 {
		fmt.Fprintf(&b, "\nbefore it (%d, source %s):", len(d.Before), d.Source)
		crumbLines(&b, d.Before)
		fmt.Fprintf(&b, "\nafter it (%d):", len(d.After))
		crumbLines(&b, d.After)
	}
	return b.String()
}

// partsText writes the long fields: the text as it is, the others under
// their name; alone, a field read with field and offset is written bare.
func partsText(b *strings.Builder, parts []shown, bare bool) {
	for i := range parts {
		p := &parts[i]
		switch {
		case bare:
			b.WriteByte('\n')
		case p.field.name == "text":
			b.WriteByte('\n')
		case strings.Contains(p.text, "\n"):
			b.WriteString("\n" + p.field.name + ":\n")
		default:
			b.WriteString("\n" + p.field.name + ": ")
		}
		b.WriteString(p.text)
		if p.cut != nil && p.cut.NextOffset > 0 {
			fmt.Fprintf(b, "… [%s: %d of %d bytes; field=%s offset=%d reads on]", p.field.name, p.cut.Offset+p.cut.Shown, p.cut.Bytes, p.field.name, p.cut.NextOffset)
		}
	}
}

// trimContext drops context entries until excess bytes are gone: the last
// of an operation's lines first, then the farthest breadcrumbs. It returns
// how many breadcrumbs it dropped.
func trimContext(excess int, before, after *[]crumb, lines *opLines) int {
	dropped := 0
	for excess > 0 {
		var c crumb
		switch {
		case lines != nil && len(lines.First) > 1:
			c, lines.First = lines.First[len(lines.First)-1], lines.First[:len(lines.First)-1]
			lines.More = true
		case len(*before) == 0 && len(*after) == 0:
			return dropped
		case len(*before) >= len(*after):
			c, *before = (*before)[0], (*before)[1:]
			dropped++
		default:
			c, *after = (*after)[len(*after)-1], (*after)[:len(*after)-1]
			dropped++
		}
		excess -= len(mustJSON(c)) + len(mustJSON(c.line))
	}
	return dropped
}

// ---- get_result ----

type resultIn struct {
	logIDIn
	WaitMs int `json:"waitMs,omitempty" jsonschema:"while pending, wait up to this many ms (max 30000)"`
	budgetArg
}

type resultOut struct {
	ID         uint64          `json:"id"`
	Tool       string          `json:"tool"`
	Status     string          `json:"status" jsonschema:"pending, success, error, timeout, cancelled or crashed"`
	IsComplete bool            `json:"isComplete"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
	StartTime  string          `json:"startTime"`
	EndTime    string          `json:"endTime,omitempty"`
	DurationMs *int64          `json:"durationMs,omitempty"`
}

// getResultOut is get_result's answer: resultOut within the budget, with
// the lines the operation's source wrote while it ran.
type getResultOut struct {
	resultOut
	Source string              `json:"source"`
	Cut    map[string]fieldCut `json:"cut,omitempty" jsonschema:"result or error cut to fit maxBytes, with its size; a cut result is a string holding that part of its JSON text; get_log_details with field and offset reads on"`
	Lines  *opLines            `json:"opLines" jsonschema:"the console lines its source wrote from its start to its end (or now), as records in one line"`

	parts []shown
}

func (t *toolset) getResult(ctx context.Context, req *mcp.CallToolRequest, in resultIn) (getResultOut, error) {
	id, err := logID(in.LogID, in.LogID2)
	if err != nil {
		return getResultOut{}, err
	}
	wctx, cancel := t.opts.Requests.merge(ctx, req)
	defer cancel()
	wctx, cancelWait := context.WithTimeout(wctx, waitDuration(in.WaitMs))
	defer cancelWait()
	r, err := t.log.AwaitComplete(wctx, id)
	if err != nil && (r.ID == 0 || wctx.Err() == nil) {
		return getResultOut{}, err
	}
	if r.Kind != oplog.KindOp {
		return getResultOut{}, argError("log_id", "record %d is a console line, not an operation; get_log_details shows it", id)
	}
	oplog.AddComeback(ctx, t.log, &r)
	o := getResultOut{resultOut: resultOf(&r), Source: r.Source}
	o.Result, o.Error = nil, "" // setParts puts them back, within the budget
	if o.Lines, err = t.opLinesOf(ctx, &r); err != nil {
		return getResultOut{}, err
	}
	budget := in.bytes(DefaultBudget)
	trimContext(resultSize(o)-budget/2, new([]crumb), new([]crumb), o.Lines)
	o.setParts(fitFields(recordFields(&r, "result", "error"), 0, budget, func(p []shown) int {
		c := o
		c.setParts(p)
		return resultSize(c)
	}))
	return o, nil
}

func (o *getResultOut) setParts(parts []shown) {
	o.parts, o.Cut, o.Result, o.Error = parts, cuts(parts), nil, ""
	for i := range parts {
		if parts[i].field.name == "result" {
			o.Result = parts[i].value()
		} else {
			o.Error = parts[i].text
		}
	}
}

func (o getResultOut) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "get_result: #%d %s/op %s %s", o.ID, o.Source, o.Tool, o.Status)
	if o.DurationMs != nil {
		fmt.Fprintf(&b, " %dms", *o.DurationMs)
	}
	fmt.Fprintf(&b, " start=%s", o.StartTime)
	if o.EndTime != "" {
		fmt.Fprintf(&b, " end=%s", o.EndTime)
	}
	b.WriteString(cutNote(o.Cut))
	partsText(&b, o.parts, false)
	o.Lines.text(&b)
	return b.String()
}
