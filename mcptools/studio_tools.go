package mcptools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

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
	Hint       *hintOut       `json:"hint,omitempty" jsonschema:"an empty first page: a request that finds records (the text block's last line); call again with args"`
}

func (o studioSearchOut) text() string {
	h := fmt.Sprintf("search_logs (studio %s): %d hits, newest first", o.Project, len(o.Hits))
	return withHint(cursorBlock(h, o.More, o.NextCursor, len(o.Hits), func(i int) string { return o.Hits[i].line }), o.Hint)
}

// withHint is text with the hint's line after it, if any.
func withHint(text string, h *hintOut) string {
	if h == nil {
		return text
	}
	return text + "\n" + h.Text
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
	Hint       *hintOut      `json:"hint,omitempty" jsonschema:"an empty first page with filters: a request that finds records (the text block's last line); call again with args"`
}

func (o studioLogsOut) text() string {
	h := fmt.Sprintf("get_logs (studio %s): %d records, newest first", o.Project, o.Count)
	return withHint(cursorBlock(h, o.More, o.NextCursor, len(o.Logs), func(i int) string { return o.Logs[i].line }), o.Hint)
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
// newest occurrence's message and stack come from its machine's rows, and
// its story (studioStory) within the local answer's 4 KB.
func (t *toolset) studioCrashes(ctx context.Context, s oplog.Studio, p *crashPage, in crashesIn) (crashesOut, error) {
	budget := in.bytes(DefaultBudget)
	if in.Limit == 1 && in.MaxBytes == 0 {
		budget = crashAnswerBytes // one crash, answered whole within a small answer
	}
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
			g.LastFrames, g.Frames = nil, []string{} // the stack has them
			if err := t.studioStory(ctx, s, &g.crashGroupOut, &r); err != nil {
				return crashesOut{}, err
			}
			stack := r.Stack
			text, _ := cut(r.Text, t.opts.MaxTextChars)
			if strings.HasPrefix(g.Title, text) {
				text = "" // the title says it
			}
			g.Text = text
			room := min(crashStackBytes, (budget-resultSize(out))/2) - 2*len(text)
			g.Stack, g.StackBytes = oplog.ClipBytes(stack, max(room, crashStackBytes/8)), len(stack)
			g.StackTruncated = len(g.Stack) < len(stack)
		}
		trimStack(out, &g.crashGroupOut, budget)
	}
	return crashesOut{studioOf: studioOf{out}}, nil
}

// studioStory gives g the story of crash, its newest occurrence, as
// addStory tells a local one, from crash's machine's rows of its source
// and run: the lines before it, the calls in flight when it struck, the
// trail and how long ago it was. Which runs followed and how call shapes
// recur across runs are the machine's own log's (its runs' outcomes are
// not in the studio).
func (t *toolset) studioStory(ctx context.Context, s oplog.Studio, g *crashGroupOut, crash *oplog.StudioRecord) error {
	if crash.Run > 0 {
		g.Run = fmt.Sprintf("%s#%d", crash.Source, crash.Run)
	}
	lines, err := studioBefore(ctx, s, crash, oplog.KindLine, crashBefore)
	if err != nil {
		return err
	}
	slices.Reverse(lines) // oldest first, as g.Before
	for i := range lines {
		g.Before = append(g.Before, beforeLine(&lines[i]))
	}
	calls, err := studioBefore(ctx, s, crash, oplog.KindOp, crashCallsRead)
	if err != nil {
		return err
	}
	for i := range calls {
		if c := &calls[i]; c.IsComplete() && c.EndTime.IsZero() {
			c.EndTime = c.StartTime // forwarded before rows carried their end: ended, when unknown
		}
	}
	tellCalls(g, &crash.Record, lines, calls)
	g.Since = agoText(t.opts.Now().Sub(crash.Time))
	return nil
}

// studioBeforePages is how many pages studioBefore reads at most: the
// rows at the crash's time that came after it (the rest of a dump) are
// read and left out.
const studioBeforePages = 4

// studioBefore returns up to n records of kind of crash's machine, source
// and run (when it has one) recorded before it, newest first.
func studioBefore(ctx context.Context, s oplog.Studio, crash *oplog.StudioRecord, kind oplog.Kind, n int) ([]oplog.Record, error) {
	q := oplog.StudioListQuery{Filter: oplog.Filter{Kind: kind, Source: crash.Source, Until: crash.Time.Add(time.Nanosecond)},
		Machine: crash.Machine, Run: crash.Run, Count: n + crashCallsRead}
	var out []oplog.Record
	for range studioBeforePages {
		p, err := s.List(ctx, q)
		if err != nil {
			return nil, err
		}
		for i := range p.Records {
			if r := &p.Records[i]; r.Revision == crash.Revision && r.ID < crash.ID && len(out) < n {
				out = append(out, r.Record)
			}
		}
		if len(out) == n || p.NextCursor == "" {
			break
		}
		q.Cursor = p.NextCursor
	}
	return out, nil
}
