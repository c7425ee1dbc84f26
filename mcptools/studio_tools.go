package mcptools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// The tools' studio scope: each answer names the project, and each
// record its machine. Budgets are the local answers'.

// studioLocalArgs refuses the arguments that are one machine's: runs and
// last_compile.
func studioLocalArgs(run, since string) error {
	if strings.TrimSpace(run) != "" {
		return argError("run", "runs are one machine's; studio scope takes since and until")
	}
	if IsLastCompile(since) {
		return argError("since", "last_compile is one machine's; studio scope takes a time")
	}
	return nil
}

type studioHitOut struct {
	Machine string `json:"machine"`
	recordSummary
	Fragment string `json:"fragment,omitempty"`

	line string
}

type studioSearchOut struct {
	Scope      string         `json:"scope"`
	Project    string         `json:"project"`
	Hits       []studioHitOut `json:"hits" jsonschema:"newest first, over every machine"`
	More       bool           `json:"more"`
	NextCursor string         `json:"nextCursor,omitempty"`
}

func (o studioSearchOut) text() string {
	h := fmt.Sprintf("search_logs (studio %s): %d hits, newest first", o.Project, len(o.Hits))
	if o.More {
		h += " more=true: call again with cursor=" + o.NextCursor
	}
	var w textLog
	for i := range o.Hits {
		w.keep(o.Hits[i].line)
	}
	return w.block(h)
}

func (t *toolset) studioSearch(ctx context.Context, s oplog.Studio, in searchIn) (searchOut, error) {
	if err := studioLocalArgs(in.Run, in.Since); err != nil {
		return searchOut{}, err
	}
	q, err := in.text().Parse(time.Now())
	if err != nil {
		return searchOut{}, err
	}
	p, err := s.Search(ctx, oplog.StudioSearchQuery{SearchQuery: q, Machine: in.Machine})
	if err != nil {
		return searchOut{}, err
	}
	out := studioSearchOut{Scope: "studio", Project: s.Project(), Hits: []studioHitOut{}, More: p.NextCursor != "", NextCursor: p.NextCursor}
	empty := out
	empty.More, empty.NextCursor = true, "v18446744073709551615"
	f := newFitter(in.bytes(DefaultBudget), empty)
	var w textLog
	for i := range p.Hits {
		r := &p.Hits[i].Record
		h := studioHitOut{Machine: p.Hits[i].Machine, recordSummary: t.summary(r, in.Stacks), Fragment: p.Hits[i].Fragment}
		if h.Fragment != "" {
			h.line = w.line(r, h.Fragment, 0, 1, 0)
		} else {
			h.line = w.line(r, h.Text, h.TextChars, 1, 0)
		}
		h.line = withMachine(h.line, h.Machine) + h.stackLines()
		if !f.fits(&h, h.line) {
			out.More, out.NextCursor = true, p.Cursors[i]
			break
		}
		w.keep(h.line)
		out.Hits = append(out.Hits, h)
	}
	return searchOut{studioOf: studioOf{out}}, nil
}

type studioEntry struct {
	Machine string `json:"machine"`
	logEntry
}

type studioLogsOut struct {
	Scope      string        `json:"scope"`
	Project    string        `json:"project"`
	Logs       []studioEntry `json:"logs" jsonschema:"newest first, over every machine"`
	Count      int           `json:"count"`
	More       bool          `json:"more"`
	NextCursor string        `json:"nextCursor,omitempty" jsonschema:"pass as cursor for the next (older) page"`
}

func (o studioLogsOut) text() string {
	h := fmt.Sprintf("get_logs (studio %s): %d records, newest first", o.Project, o.Count)
	if o.More {
		h += " more=true: call again with cursor=" + o.NextCursor
	}
	var w textLog
	for i := range o.Logs {
		w.keep(o.Logs[i].line)
	}
	return w.block(h)
}

func (t *toolset) studioLogs(ctx context.Context, s oplog.Studio, in getLogsIn) (logsOut, error) {
	if err := studioLocalArgs(in.Run, in.Since); err != nil {
		return logsOut{}, err
	}
	if in.Offset != 0 {
		return logsOut{}, argError("offset", "studio scope pages with cursor (the previous nextCursor)")
	}
	f, err := oplog.FilterText{Level: in.Level, Name: in.Name, Kind: in.Kind, Source: in.Source, Since: in.Since, Until: in.Until}.Parse(time.Now())
	if err != nil {
		return logsOut{}, err
	}
	p, err := s.List(ctx, oplog.StudioListQuery{Filter: f, Machine: in.Machine, Count: in.Count, Cursor: in.Cursor})
	if err != nil {
		return logsOut{}, err
	}
	out := studioLogsOut{Scope: "studio", Project: s.Project(), Logs: []studioEntry{}, More: p.NextCursor != "", NextCursor: p.NextCursor}
	empty := out
	empty.More, empty.NextCursor = true, "v18446744073709551615"
	fit := newFitter(in.bytes(DefaultBudget), empty)
	var w textLog
	for i := range p.Records {
		r := &p.Records[i].Record
		e := studioEntry{Machine: p.Records[i].Machine, logEntry: logEntry{recordSummary: t.summary(r, in.Stacks)}}
		e.line = withMachine(w.line(r, e.Text, e.TextChars, 1, 0), e.Machine) + e.stackLines()
		if !fit.fits(&e, e.line) {
			out.More, out.NextCursor = true, p.Cursors[i]
			break
		}
		w.keep(e.line)
		out.Logs = append(out.Logs, e)
	}
	out.Count = len(out.Logs)
	return logsOut{studioOf: studioOf{out}}, nil
}

type studioGroupOut struct {
	crashGroupOut
	LastMachine  string               `json:"lastMachine" jsonschema:"the machine of lastId"`
	FirstMachine string               `json:"firstMachine" jsonschema:"the machine of exampleId"`
	Machines     []oplog.MachineCount `json:"machines" jsonschema:"the machines it was seen on, with counts, most first"`
}

type studioCrashesOut struct {
	Scope   string           `json:"scope"`
	Project string           `json:"project"`
	Groups  []studioGroupOut `json:"groups"`
	Total   int              `json:"total" jsonschema:"every matching group, whatever limit says"`
	More    bool             `json:"more"`
}

func (o studioCrashesOut) text() string {
	h := fmt.Sprintf("find_crashes (studio %s): %d of %d groups, newest first", o.Project, len(o.Groups), o.Total)
	if o.More {
		h += " more=true (raise limit or maxBytes, or narrow since/source/machine)"
	}
	entries := make([]string, len(o.Groups))
	for i := range o.Groups {
		entries[i] = o.Groups[i].lines()
	}
	return lines(h, entries)
}

// lines is the group's text: the local group's, its IDs naming their
// machines, and the machines it was seen on.
func (g *studioGroupOut) lines() string {
	l := g.crashGroupOut.lines()
	l = strings.Replace(l, fmt.Sprintf("newest #%d", g.LastID), fmt.Sprintf("newest %s #%d", g.LastMachine, g.LastID), 1)
	l = strings.Replace(l, fmt.Sprintf("(first #%d)", g.ExampleID), fmt.Sprintf("(first %s #%d)", g.FirstMachine, g.ExampleID), 1)
	ms := make([]string, len(g.Machines))
	for i, m := range g.Machines {
		ms[i] = fmt.Sprintf("%s ×%d", m.Machine, m.Count)
	}
	head, rest, _ := strings.Cut(l, "\n")
	head += "; on " + strings.Join(ms, ", ")
	if rest != "" {
		return head + "\n" + rest
	}
	return head
}

func (t *toolset) studioCrashes(ctx context.Context, s oplog.Studio, in crashesIn) (crashesOut, error) {
	if err := studioLocalArgs(in.Run, in.Since); err != nil {
		return crashesOut{}, err
	}
	f, err := oplog.FilterText{Since: in.Since, Until: in.Until, Source: in.Source}.Parse(time.Now())
	if err != nil {
		return crashesOut{}, err
	}
	q, err := crashQuery(in)
	if err != nil {
		return crashesOut{}, err
	}
	p, err := s.FindCrashes(ctx, oplog.StudioCrashQuery{Since: f.Since, Until: f.Until, Source: in.Source, Machine: in.Machine, Limit: in.Limit,
		Classes: q.Classes, MinLevel: q.MinLevel})
	if err != nil {
		return crashesOut{}, err
	}
	budget := in.bytes(DefaultBudget)
	out := studioCrashesOut{Scope: "studio", Project: s.Project(), Groups: []studioGroupOut{}, Total: p.Total}
	fit := newFitter(budget, &studioCrashesOut{Scope: "studio", Project: s.Project(), Total: p.Total, More: true})
	for i := range p.Groups {
		g := &p.Groups[i]
		o := studioGroupOut{crashGroupOut: crashGroup(&g.CrashGroup), LastMachine: g.LastMachine, FirstMachine: g.FirstMachine, Machines: g.Machines}
		if !fit.fits(&o, o.lines()) {
			break
		}
		out.Groups = append(out.Groups, o)
	}
	out.More = len(out.Groups) < p.Total
	if in.Limit == 1 && len(out.Groups) == 1 {
		g := &out.Groups[0]
		r, err := s.Get(ctx, g.LastMachine, g.LastID)
		if err == nil {
			stack := r.Stack
			text, _ := cut(r.Text, t.opts.MaxTextChars)
			g.Text = text
			room := min(crashStackBytes, (budget-fit.used)/2) - 2*len(text)
			g.Stack, g.StackBytes = oplog.ClipBytes(stack, max(room, crashStackBytes/8)), len(stack)
			g.StackTruncated = len(g.Stack) < len(stack)
		}
		for over := resultSize(out) - budget; over > 0 && len(g.Stack) > 0; over = resultSize(out) - budget {
			g.Stack, g.StackTruncated = oplog.ClipBytes(g.Stack, max(len(g.Stack)-over/2-16, 0)), true
		}
	}
	return crashesOut{studioOf: studioOf{out}}, nil
}
