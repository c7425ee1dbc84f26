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

type studioDetailsOut struct {
	Scope    string `json:"scope"`
	Machine  string `json:"machine"`
	Revision uint64 `json:"revision" jsonschema:"the machine's log revision the ID belongs to"`
	detailsOut
}

func (o studioDetailsOut) text() string {
	return withMachine(o.detailsOut.text(), o.Machine)
}

// studioDetails is record id of machine in full: what the studio holds
// of it (no neighbours, around or an operation's lines: those are the
// machine's own log).
func (t *toolset) studioDetails(ctx context.Context, s oplog.Studio, id uint64, machine string, q detailsQuery) (detailsOut, error) {
	if q.around != 0 {
		return detailsOut{}, argError("around", "the records around one are its machine's log: ask that machine's mcplogd")
	}
	r, err := s.Get(ctx, machine, id)
	if err != nil {
		return detailsOut{}, err
	}
	out := studioDetailsOut{Scope: "studio", Machine: r.Machine, Revision: r.Revision}
	d := detailsHead(&r.Record)
	fields, err := q.fields(&d, &r.Record, fmt.Sprintf("record %d of %s", id, machine))
	if err != nil {
		return detailsOut{}, err
	}
	q.size = func(d *detailsOut) int {
		c := out
		c.detailsOut = *d
		return resultSize(c)
	}
	q.fit(&d, fields)
	out.detailsOut = d
	return detailsOut{studioOf: studioOf{out}}, nil
}
