package mcptools

import (
	"context"
	"fmt"

	"github.com/mcplogd/mcplogd/oplog"
)

type studioNameOut struct {
	Machine string `json:"machine"`
	nameInfo
}

type studioNamesOut struct {
	Scope      string          `json:"scope"`
	Project    string          `json:"project"`
	Names      []studioNameOut `json:"names" jsonschema:"by source, name and machine"`
	Total      int             `json:"total"`
	Offset     int             `json:"offset"`
	More       bool            `json:"more"`
	NextOffset int             `json:"nextOffset,omitempty"`
}

func (o studioNamesOut) text() string {
	h := fmt.Sprintf("list_log_names (studio %s): %d of %d names, offset=%d", o.Project, len(o.Names), o.Total, o.Offset)
	if o.More {
		h += fmt.Sprintf(" more=true: call again with offset=%d", o.NextOffset)
	}
	l := make([]string, len(o.Names))
	for i := range o.Names {
		l[i] = o.Names[i].Machine + " " + o.Names[i].line()
	}
	return lines(h, l)
}

func (t *toolset) studioNames(ctx context.Context, s oplog.Studio, in namesIn) (namesOut, error) {
	names, err := s.Names(ctx, in.Source, in.Machine)
	if err != nil {
		return namesOut{}, err
	}
	limit := min(in.Limit, oplog.MaxListCount)
	if limit == 0 {
		limit = 200
	}
	from := min(in.Offset, len(names))
	to := min(from+limit, len(names))
	out := studioNamesOut{Scope: "studio", Project: s.Project(), Names: []studioNameOut{}, Total: len(names), Offset: from}
	f := newFitter(in.bytes(DefaultBudget), studioNamesOut{Scope: "studio", Project: s.Project(), Total: len(names), Offset: from, More: true, NextOffset: to})
	for i := from; i < to; i++ {
		n := studioNameOut{Machine: names[i].Machine, nameInfo: newNameInfo(&names[i].NameInfo)}
		if !f.fits(&n, n.Machine+" "+n.line()) {
			to = i
			break
		}
		out.Names = append(out.Names, n)
	}
	if out.More = to < len(names); out.More {
		out.NextOffset = to
	}
	return namesOut{studioOf: studioOf{out}}, nil
}

type studioDetailsOut struct {
	Scope    string `json:"scope"`
	Machine  string `json:"machine"`
	Revision uint64 `json:"revision" jsonschema:"the machine's log revision the ID belongs to"`
	detailsOut
}

func (o studioDetailsOut) text() string {
	return withMachine(o.detailsOut.text(), o.Machine)
}

// studioDetails is one record of one machine in full: what the studio
// holds of it (no neighbours, around or an operation's lines: those are
// the machine's own log).
func (t *toolset) studioDetails(ctx context.Context, s oplog.Studio, in detailsIn) (detailsOut, error) {
	if in.Machine == "" {
		return detailsOut{}, argError("machine", "missing: studio scope needs the record's machine with log_id")
	}
	id, err := logID(in.LogID, in.LogID2)
	if err != nil {
		return detailsOut{}, err
	}
	if err := checkField(in.Field, in.Offset); err != nil {
		return detailsOut{}, err
	}
	if in.Around != 0 {
		return detailsOut{}, argError("around", "the records around one are its machine's log: ask that machine's mcplogd")
	}
	r, err := s.Get(ctx, in.Machine, id)
	if err != nil {
		return detailsOut{}, err
	}
	d := detailsOut{ID: r.ID, Kind: r.Kind.String(), Time: formatTime(r.Time), Level: r.Level.String(), Name: r.Name, Source: r.Source}
	if r.Kind == oplog.KindOp {
		complete := r.IsComplete()
		d.Tool, d.Status, d.IsComplete = r.Tool, r.Status.String(), &complete
	}
	out := studioDetailsOut{Scope: "studio", Machine: r.Machine, Revision: r.Revision}
	budget := budgetArg{MaxBytes: in.MaxBytes}.bytes(DefaultDetailsBudget)
	fields := recordFields(&r.Record, detailFields...)
	if in.Field != "" {
		if fields = recordFields(&r.Record, in.Field); len(fields) == 0 {
			return detailsOut{}, argError("field", "record %d of %s has no %s", id, in.Machine, in.Field)
		}
		if in.Offset >= len(fields[0].whole) {
			return detailsOut{}, argError("offset", "%d is past the end of %s (%d bytes)", in.Offset, in.Field, len(fields[0].whole))
		}
		d.Field = in.Field
	}
	d.setParts(fitFields(fields, in.Offset, budget, func(p []shown) int {
		c := out
		c.detailsOut = d
		c.setParts(p)
		return resultSize(c)
	}))
	out.detailsOut = d
	return detailsOut{studioOf: studioOf{out}}, nil
}
