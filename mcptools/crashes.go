package mcptools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- find_crashes ----

// crashStackBytes is the most of the newest crash's stack that
// find_crashes {limit: 1} shows: a typical stack whole, its answer within
// 4 KB; get_log_details has the rest.
const crashStackBytes = 4 << 10

func (t *toolset) addCrashTools(srv *mcp.Server) {
	addTool(srv, t, toolSpec{name: "find_crashes", title: "Find crashes",
		description: "Why did the game crash? limit 1: the crash that ended the latest crashed run, its game frame (file:line), " +
			"prior lines, stack, runs since. Crashes first, then errors.",
		annotations: readOnly, defaults: map[string]any{"limit": oplog.DefaultCrashLimit},
		example: map[string]any{"limit": 1, "since": "-1h"}}, t.findCrashes)
}

type crashesIn struct {
	Since  string `json:"since,omitempty" jsonschema:"RFC 3339, Unix ms, -15m or last_compile"`
	Until  string `json:"until,omitempty" jsonschema:"same forms as since"`
	Source string `json:"source,omitempty" jsonschema:"only this source"`
	Run    string `json:"run,omitempty" jsonschema:"current, previous or a run number"`
	Class  string `json:"class,omitempty" jsonschema:"crash,error (default) or compile"`
	Level  string `json:"level,omitempty" jsonschema:"error or fatal"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most groups (max 1000); 1 adds the newest stack"`
	scopeArgs
	budgetArg
}

type crashGroupOut struct {
	Signature  string   `json:"signature" jsonschema:"16 hex digits, the same for every occurrence of this crash"`
	Title      string   `json:"title" jsonschema:"one line: the newest message and the game's own frame"`
	Class      string   `json:"class" jsonschema:"crash (fatal or ended a run), error or compile"`
	Level      string   `json:"level"`
	RunsEnded  int      `json:"runsEnded" jsonschema:"runs this crash ended"`
	Frame      string   `json:"frame,omitempty" jsonschema:"the game's own top frame, file:line kept"`
	Run        string   `json:"run,omitempty" jsonschema:"source#run of the newest occurrence"`
	Frames     []string `json:"frames" jsonschema:"the normalised top frames the signature is made of"`
	Count      int      `json:"count" jsonschema:"occurrences in range"`
	FirstSeen  string   `json:"firstSeen" jsonschema:"RFC 3339, UTC, milliseconds"`
	LastSeen   string   `json:"lastSeen" jsonschema:"RFC 3339, UTC, milliseconds"`
	Sources    []string `json:"sources"`
	ExampleID  uint64   `json:"exampleId" jsonschema:"the oldest occurrence in range"`
	LastID     uint64   `json:"lastId" jsonschema:"the newest occurrence in range: get_log_details shows it whole"`
	LastFrames []string `json:"lastFrames,omitempty" jsonschema:"lastId's top frames, file:line kept"`

	// With limit 1: the newest occurrence's message and stack, what came
	// before it and what happened since.
	Before         []string `json:"before,omitempty" jsonschema:"limit 1: the lines just before lastId in its source"`
	InFlight       []string `json:"inFlight,omitempty" jsonschema:"limit 1: its run's calls not ended when it struck"`
	Calls          []string `json:"calls,omitempty" jsonschema:"limit 1: its run's last calls that ended before it"`
	Recurrence     []string `json:"recurrence,omitempty" jsonschema:"limit 1: call shapes in flight in the runs it ended, against clean runs"`
	Since          string   `json:"since,omitempty" jsonschema:"limit 1: how long ago, and the runs of its source since"`
	Text           string   `json:"text,omitempty" jsonschema:"limit 1: lastId's message"`
	Stack          string   `json:"stack,omitempty" jsonschema:"limit 1: lastId's stack, up to 4 KB"`
	StackBytes     int      `json:"stackBytes,omitempty" jsonschema:"the whole stack's size"`
	StackFrom      int      `json:"stackFrom,omitempty" jsonschema:"where stack starts in the whole: at its frames, past a dump's preamble"`
	StackTruncated bool     `json:"stackTruncated,omitempty" jsonschema:"cut: get_log_details has it all"`

	trail   []string // the text's: Before and Calls in time order, with times relative to it
	causeID uint64   // oplog.CrashGroup's CauseID
	stackID uint64   // the record Stack is of: LastID, or its cause when it has none
}

type crashesOut struct {
	Groups []crashGroupOut `json:"groups"`
	Total  int             `json:"total" jsonschema:"every matching group, whatever limit says"`
	LastID uint64          `json:"lastId" jsonschema:"the newest record ID the answer covers"`
	More   bool            `json:"more" jsonschema:"more groups exist (past limit or maxBytes)"`

	studioOf
}

func (o crashesOut) text() string {
	entries := make([]string, len(o.Groups))
	for i := range o.Groups {
		entries[i] = o.Groups[i].lines()
	}
	return lines(o.header(), entries)
}

func (o crashesOut) header() string {
	h := fmt.Sprintf("find_crashes: %d of %d groups, newest first, lastId=%d", len(o.Groups), o.Total, o.LastID)
	if o.More {
		h += " more=true (raise limit or maxBytes, or narrow since/source)"
	}
	return h
}

// lines is a group's text: count, title, last seen, sources and IDs, then
// its newest occurrence's top frames (or, with limit 1, its message and
// stack), indented.
func (g *crashGroupOut) lines() string {
	var b strings.Builder
	last := strings.Replace(strings.TrimSuffix(g.LastSeen, "Z"), "T", " ", 1)
	fmt.Fprintf(&b, "%s ×%d %s, last %s in %s, newest #%d", g.Class, g.Count, g.Title, last, strings.Join(g.Sources, ", "), g.LastID)
	if g.ExampleID != g.LastID {
		fmt.Fprintf(&b, " (first #%d)", g.ExampleID)
	}
	if g.RunsEnded > 0 {
		fmt.Fprintf(&b, "; ended %s, the last %s", Plural(g.RunsEnded, "run"), g.Run)
	}
	if g.Since != "" {
		b.WriteString("\n  " + g.Since)
	}
	for _, c := range g.InFlight {
		b.WriteString("\n  in flight: " + c)
	}
	for _, c := range g.Recurrence {
		b.WriteString("\n  across runs: " + c)
	}
	if g.trail != nil {
		for _, l := range g.trail {
			b.WriteString("\n  before: " + l)
		}
	} else {
		for _, l := range g.Before {
			b.WriteString("\n  before: " + l)
		}
	}
	if g.Stack == "" {
		for _, f := range g.LastFrames {
			b.WriteString("\n  ")
			b.WriteString(f)
		}
		return b.String()
	}
	if first, _, _ := strings.Cut(g.Text, "\n"); g.Text != "" && !strings.HasPrefix(g.Stack, first) {
		b.WriteString("\n  ")
		b.WriteString(oplog.OneLine(g.Text, false))
	}
	id := g.LastID
	if g.stackID != 0 {
		id = g.stackID
	}
	if g.StackFrom > 0 {
		fmt.Fprintf(&b, "\n  stack of #%d, %d of %d bytes from its frames at byte %d (get_log_details {log_id: %d} has it whole):",
			id, len(g.Stack), g.StackBytes, g.StackFrom, id)
	} else if g.StackTruncated {
		fmt.Fprintf(&b, "\n  stack of #%d, first %d of %d bytes (get_log_details {log_id: %d} has it whole):", id, len(g.Stack), g.StackBytes, id)
	} else {
		fmt.Fprintf(&b, "\n  stack of #%d (%d bytes):", id, g.StackBytes)
	}
	for l := range strings.Lines(strings.TrimRight(g.Stack, "\n")) {
		b.WriteString("\n  ")
		b.WriteString(strings.TrimRight(l, "\r\n"))
	}
	return b.String()
}

func (t *toolset) findCrashes(ctx context.Context, _ *mcp.CallToolRequest, in crashesIn) (crashesOut, error) {
	a := in.scopeArgs.args()
	a.FilterText = oplog.FilterText{Since: in.Since, Until: in.Until, Source: in.Source}
	a.Run = in.Run
	r, src, err := t.resolve(ctx, a)
	if err != nil {
		return crashesOut{}, err
	}
	q, err := crashQuery(in)
	if err != nil {
		return crashesOut{}, err
	}
	q.Since, q.Until, q.Source, q.Runs = r.Since, r.Until, in.Source, r.Runs
	p, err := src.crashes(ctx, q, r.Machine)
	if err != nil {
		return crashesOut{}, err
	}
	if st := src.studio(); st != nil {
		return t.studioCrashes(ctx, st, &p, in)
	}
	budget := in.bytes(DefaultBudget)
	if in.Limit == 1 && in.MaxBytes == 0 {
		budget = crashAnswerBytes // one crash, answered whole within a small answer
	}
	out := crashesOut{Total: p.Total, LastID: p.LastID}
	out.Groups = fitGroups(newFitter(budget, &crashesOut{Total: p.Total, LastID: p.LastID, More: true}), len(p.Groups),
		func(i int) crashGroupOut { return crashGroup(&p.Groups[i]) })
	out.More = len(out.Groups) < p.Total
	if in.Limit == 1 && len(out.Groups) == 1 {
		g := &out.Groups[0]
		g.LastFrames, g.Frames = nil, []string{} // the stack has them
		if err := t.addStory(ctx, g, &p.Groups[0]); err != nil {
			return crashesOut{}, err
		}
		if err := t.addStack(ctx, g, min(crashStackBytes, (budget-resultSize(out))/2), p.Groups[0].FramesAt); err != nil {
			return crashesOut{}, err
		}
		trimStack(out, g, budget)
	}
	return out, nil
}

// fitGroups keeps the first of n crash groups, each as group makes it, that
// f's budget holds.
func fitGroups[G any, P interface {
	*G
	lines() string
}](f *fitter, n int, group func(i int) G) []G {
	out := []G{}
	for i := range n {
		g := group(i)
		if !f.fits(&g, P(&g).lines()) {
			break
		}
		out = append(out, g)
	}
	return out
}

// trimStack cuts what still overflows the budget off g's stack, g being
// out's one group: escapes (newlines, tabs, quotes) count too.
func trimStack(out any, g *crashGroupOut, budget int) {
	for over := resultSize(out) - budget; over > 0 && len(g.Stack) > 0; over = resultSize(out) - budget {
		g.Stack, g.StackTruncated = oplog.ClipBytes(g.Stack, max(len(g.Stack)-over/2-16, 0)), true
	}
}

func crashGroup(g *oplog.CrashGroup) crashGroupOut {
	o := crashGroupOut{Signature: g.Signature, Title: g.Title, Frames: g.Frames, Count: g.Count,
		FirstSeen: listTimeOf(g.FirstSeen), LastSeen: listTimeOf(g.LastSeen), Sources: g.Sources,
		ExampleID: g.ExampleID, LastID: g.LastID, LastFrames: g.LastFrames,
		Class: g.Class, Level: g.Level.String(), RunsEnded: g.RunsEnded, Frame: g.Frame, causeID: g.CauseID}
	if g.LastRun > 0 && len(g.Sources) > 0 {
		o.Run = fmt.Sprintf("%s#%d", g.Sources[0], g.LastRun)
	}
	if o.Frames == nil {
		o.Frames = []string{}
	}
	if o.Sources == nil {
		o.Sources = []string{}
	}
	return o
}

// addStack gives g its newest occurrence's message and stack, the stack cut
// to room bytes (the message and the stack each go in the text block and
// in structuredContent). A record removed since leaves g as it is.
func (t *toolset) addStack(ctx context.Context, g *crashGroupOut, room, framesAt int) error {
	r, err := t.log.Get(ctx, g.LastID)
	switch {
	case oplog.ErrorCode(err) == oplog.ENOTFOUND:
		return nil
	case err != nil:
		return err
	}
	stack, text := r.Stack, r.Text
	if stack == "" && g.causeID != 0 {
		// A game's line giving up on an exception: the exception's stack.
		if c, err := t.log.Get(ctx, g.causeID); err == nil && c.Stack != "" {
			stack, g.stackID = c.Stack, c.ID
		}
	}
	if r.Kind == oplog.KindOp {
		text = ""
		if stack == "" {
			stack = r.Error
		}
	}
	text, _ = cut(text, t.opts.MaxTextChars)
	if strings.HasPrefix(g.Title, text) {
		text = "" // the title says it
	}
	g.Text = text
	room -= 2 * len(text)
	room = max(room, crashStackBytes/8)
	g.StackBytes = len(stack)
	if len(stack) > room && framesAt > room/4 && framesAt < len(stack) {
		// Too long whole, and frames come late (a native dump's symbol
		// path and modules first): the excerpt starts at the frames.
		g.StackFrom, stack = framesAt, stack[framesAt:]
	}
	g.Stack = oplog.ClipBytes(foldRepeats(stack), room)
	g.StackTruncated = len(g.Stack) < g.StackBytes
	return nil
}

// foldRepeats writes a line a stack repeats three times or more in a row
// (a recursion's frame) once, and how many more times it came: "\t… the
// line above 44 more times".
func foldRepeats(stack string) string {
	if !strings.Contains(stack, "\n") {
		return stack
	}
	lines := strings.Split(stack, "\n")
	out := lines[:0:0]
	for i := 0; i < len(lines); {
		j := i
		for j+1 < len(lines) && lines[j+1] == lines[i] {
			j++
		}
		if n := j - i; n >= 2 {
			out = append(out, lines[i], fmt.Sprintf("\t… the line above %d more times", n))
		} else {
			out = append(out, lines[i:j+1]...)
		}
		i = j + 1
	}
	return strings.Join(out, "\n")
}
