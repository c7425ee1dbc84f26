package mcptools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcplogd/mcplogd/oplog"
)

// The context get_log_details and get_result add to a record: the records
// around it from the same source (breadcrumbs: what led to a crash), and
// for an operation the console lines its source wrote while it ran.

const (
	maxAround      = 50  // the most breadcrumbs asked for on each side
	opLinesShown   = 20  // an operation's lines shown in its answer
	crumbTextChars = 200 // a breadcrumb's or op line's text is cut to this many characters
)

// crumb is a record in one line: a breadcrumb or an operation's line. Its
// output schema is crumbSchema.
type crumb struct {
	ID        uint64 `json:"id"`
	Time      string `json:"time"`
	Level     string `json:"level"`
	Name      string `json:"name,omitempty"`
	Text      string `json:"text"`
	TextChars int    `json:"textChars,omitempty"`
	HasStack  bool   `json:"hasStack,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Status    string `json:"status,omitempty"`

	line string // its line in the text block
}

// crumbSchema is the output schema of a crumb: an object, its properties
// left out of tools/list (the fields that hold crumbs describe them).
var crumbSchema = &jsonschema.Schema{Type: "object"}

func newCrumb(r *oplog.Record) crumb {
	c := crumb{ID: r.ID, Time: listTimeOf(r.Time), Level: r.Level.String(), Name: r.Name, HasStack: r.Stack != ""}
	text, cut := oplog.ClipRunes(r.Text, crumbTextChars)
	c.Text = text
	if cut {
		c.TextChars = utf8.RuneCountInString(r.Text)
	}
	if r.Kind == oplog.KindOp {
		c.Tool, c.Status = r.Tool, r.Status.String()
	}
	var w textLog
	w.day = r.Time.UTC().Format(time.DateOnly) // crumbs carry the time of day only
	c.line = w.line(r, c.Text, c.TextChars, 1, 0)
	return c
}

func crumbs(recs []oplog.Record) []crumb {
	out := make([]crumb, len(recs))
	for i := range recs {
		out[i] = newCrumb(&recs[i])
	}
	return out
}

// breadcrumbs are the n records before r and the n after it (in ID
// order) from r's source, oldest first.
func (t *toolset) breadcrumbs(ctx context.Context, r *oplog.Record, n int) (before, after []crumb, err error) {
	n = min(n, maxAround)
	if n <= 0 {
		return nil, nil, nil
	}
	f := oplog.Filter{Source: r.Source}
	page, err := t.log.List(ctx, oplog.Query{Filter: f, Before: r.ID, Count: n})
	if err != nil {
		return nil, nil, err
	}
	slices.Reverse(page.Records)
	tail, err := t.log.Tail(ctx, oplog.TailQuery{Filter: f, SinceID: r.ID, HasSince: true, Limit: n})
	if err != nil {
		return nil, nil, err
	}
	if tail.Reset {
		tail.Lines = nil
	}
	return crumbs(page.Records), crumbs(tail.Lines), nil
}

// opLines is what an operation's answer says of the console lines its
// source wrote between its start and its end.
type opLines struct {
	Count   int64     `json:"count"`
	First   []crumb   `json:"first" jsonschema:"the first, oldest first"`
	More    bool      `json:"more"`
	GetLogs linesArgs `json:"getLogs" jsonschema:"get_logs arguments that list them all"`
}

// linesArgs are get_logs arguments.
type linesArgs struct {
	Source string `json:"source"`
	Kind   string `json:"kind"`
	Since  string `json:"since"`
	Until  string `json:"until,omitempty"`
}

// opLinesOf finds the console lines of r's source from r's start to its
// end, both included (to now while it is pending).
func (t *toolset) opLinesOf(ctx context.Context, r *oplog.Record) (*opLines, error) {
	if r.Kind != oplog.KindOp {
		return nil, nil
	}
	start := r.StartTime
	if start.IsZero() {
		start = r.Time
	}
	f := oplog.Filter{Kind: oplog.KindLine, Source: r.Source, Since: start}
	o := &opLines{First: []crumb{}, GetLogs: linesArgs{Source: r.Source, Kind: "line", Since: formatTime(start)}}
	if r.IsComplete() && !r.EndTime.IsZero() {
		f.Until = r.EndTime.Add(time.Nanosecond)
		o.GetLogs.Until = formatTime(f.Until)
	}
	page, err := t.log.List(ctx, oplog.Query{Filter: f, Count: opLinesShown})
	if err != nil {
		return nil, err
	}
	o.Count = page.Total
	if page.Total > opLinesShown {
		if page, err = t.log.List(ctx, oplog.Query{Filter: f, Count: opLinesShown, Offset: int(page.Total - opLinesShown)}); err != nil {
			return nil, err
		}
		o.More = true
	}
	slices.Reverse(page.Records)
	o.First = crumbs(page.Records)
	return o, nil
}

// text writes the lines' part of a text block.
func (o *opLines) text(b *strings.Builder) {
	if o == nil {
		return
	}
	fmt.Fprintf(b, "\nlines its source wrote while it ran: %d", o.Count)
	if o.More || len(o.First) < int(o.Count) {
		fmt.Fprintf(b, ", first %d; get_logs source=%s kind=line since=%s", len(o.First), o.GetLogs.Source, o.GetLogs.Since)
		if o.GetLogs.Until != "" {
			b.WriteString(" until=" + o.GetLogs.Until)
		}
		b.WriteString(" lists them all")
	}
	crumbLines(b, o.First)
}

func crumbLines(b *strings.Builder, cs []crumb) {
	for i := range cs {
		b.WriteByte('\n')
		b.WriteString(cs[i].line)
	}
}
