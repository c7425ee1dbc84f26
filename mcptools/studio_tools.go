package mcptools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// The tools' studio scope: each answer names the project, and each
// record its machine. Budgets are the local answers'.

// studioHitOut is a hit of studio scope: the local hit, after its machine.
type studioHitOut struct {
	Machine string `json:"machine"`
	searchHitOut
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
	return cursorBlock(h, o.More, o.NextCursor, len(o.Hits), func(i int) string { return o.Hits[i].line })
}

// studioEntry is a record of studio scope in a list: the local entry,
// after its machine.
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
	return cursorBlock(h, o.More, o.NextCursor, len(o.Logs), func(i int) string { return o.Logs[i].line })
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

// studioCrashes is find_crashes' answer in studio scope; with limit 1 the
// newest occurrence's message and stack come from its machine's rows.
func (t *toolset) studioCrashes(ctx context.Context, s oplog.Studio, p *crashPage, in crashesIn) (crashesOut, error) {
	budget := in.bytes(DefaultBudget)
	out := studioCrashesOut{Scope: "studio", Project: s.Project(), Total: p.Total}
	fit := newFitter(budget, &studioCrashesOut{Scope: "studio", Project: s.Project(), Total: p.Total, More: true})
	out.Groups = fitGroups(fit, len(p.studio), func(i int) studioGroupOut {
		g := &p.studio[i]
		return studioGroupOut{crashGroupOut: crashGroup(&g.CrashGroup), LastMachine: g.LastMachine, FirstMachine: g.FirstMachine, Machines: g.Machines}
	})
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
		trimStack(out, &g.crashGroupOut, budget)
	}
	return crashesOut{studioOf: studioOf{out}}, nil
}
