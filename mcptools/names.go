package mcptools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- list_log_names ----

type namesIn struct {
	Source string `json:"source,omitempty" jsonschema:"only names of this source"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most names (max 1000)"`
	Offset int    `json:"offset,omitempty" jsonschema:"names to skip: the previous nextOffset"`
	scopeArgs
	budgetArg
}

type nameInfo struct {
	Name      string            `json:"name"`
	Source    string            `json:"source"`
	Total     uint64            `json:"total"`
	Counts    map[string]uint64 `json:"counts" jsonschema:"records per level (only levels that occur)"`
	FirstSeen string            `json:"firstSeen"`
	LastSeen  string            `json:"lastSeen"`
}

func newNameInfo(n *oplog.NameInfo) nameInfo {
	ni := nameInfo{Name: n.Name, Source: n.Source, Total: n.Total, Counts: map[string]uint64{},
		FirstSeen: listTimeOf(n.FirstSeen), LastSeen: listTimeOf(n.LastSeen)}
	for _, l := range oplog.Levels {
		if c := n.Count(0, l) - n.Count(0, l+1); c > 0 {
			ni.Counts[l.String()] = c
		}
	}
	return ni
}

type namesOut struct {
	Names      []nameInfo `json:"names"`
	Total      int        `json:"total" jsonschema:"every (source, name) pair that matched"`
	Offset     int        `json:"offset"`
	More       bool       `json:"more" jsonschema:"more past this page: call again with offset nextOffset"`
	NextOffset int        `json:"nextOffset,omitempty"`

	studioOf
}

func (o namesOut) text() string {
	h := fmt.Sprintf("list_log_names: %d of %d names, offset=%d", len(o.Names), o.Total, o.Offset)
	if o.More {
		h += fmt.Sprintf(" more=true: call again with offset=%d", o.NextOffset)
	}
	l := make([]string, len(o.Names))
	for i := range o.Names {
		l[i] = o.Names[i].line()
	}
	return lines(h, l)
}

// line is n in list_log_names' text: source/name, total, the counts per
// level (most severe first) and when it was last seen.
func (n *nameInfo) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d", oplog.SourceName(n.Source, n.Name), n.Total)
	sep := " ("
	for i := len(oplog.Levels) - 1; i >= 0; i-- {
		if c := n.Counts[oplog.Levels[i].String()]; c > 0 {
			fmt.Fprintf(&b, "%s%s %d", sep, oplog.Levels[i], c)
			sep = ", "
		}
	}
	if sep == ", " {
		b.WriteByte(')')
	}
	b.WriteString(" last ")
	b.WriteString(n.LastSeen)
	return b.String()
}

func (t *toolset) listLogNames(ctx context.Context, _ *mcp.CallToolRequest, in namesIn) (namesOut, error) {
	_, src, err := t.resolve(ctx, in.scopeArgs.args())
	if err != nil {
		return namesOut{}, err
	}
	names, machines, err := src.names(ctx, in.Source, in.Machine)
	if err != nil {
		return namesOut{}, err
	}
	limit := min(in.Limit, oplog.MaxListCount)
	if limit == 0 {
		limit = 200
	}
	from := min(in.Offset, len(names))
	to := min(from+limit, len(names))
	out := namesOut{Names: []nameInfo{}, Total: len(names), Offset: from}
	studio := studioNamesOut{Scope: "studio", Names: []studioNameOut{}, Total: len(names), Offset: from}
	var empty any = namesOut{Total: len(names), Offset: from, More: true, NextOffset: to}
	if st := src.studio(); st != nil {
		studio.Project = st.Project()
		empty = studioNamesOut{Scope: "studio", Project: studio.Project, Total: len(names), Offset: from, More: true, NextOffset: to}
	}
	f := newFitter(in.bytes(DefaultBudget), empty)
	for i := from; i < to; i++ {
		n := studioNameOut{nameInfo: newNameInfo(&names[i])}
		var entry any = &n.nameInfo // as the answer carries it
		line := n.line()
		if machines != nil {
			n.Machine = machines[i]
			entry, line = &n, n.Machine+" "+line
		}
		if !f.fits(entry, line) {
			to = i
			break
		}
		out.Names = append(out.Names, n.nameInfo)
		studio.Names = append(studio.Names, n)
	}
	if out.More = to < len(names); out.More {
		out.NextOffset = to
	}
	if machines != nil {
		studio.More, studio.NextOffset = out.More, out.NextOffset
		return namesOut{studioOf: studioOf{studio}}, nil
	}
	return out, nil
}
