package studio

import (
	"context"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Compare compares the rows of [q.Since, q.Until) with those of the window
// as long just before it (oplog.StudioCompareQuery): the templates of rows
// at level warn and above, counted in LogsQL stats by template (rows
// forwarded without a template are left out), and the crash groups of
// FindCrashes in each window. An example is the newest row of a template,
// the oldest of a crash group, in the window it is counted in.
func (c *Client) Compare(ctx context.Context, q oplog.StudioCompareQuery) (oplog.StudioComparison, error) {
	if q.Since.IsZero() || q.Until.IsZero() || !q.Since.Before(q.Until) {
		return oplog.StudioComparison{}, oplog.Errorf(oplog.EINVALID, "since: must be before until")
	}
	out := oplog.StudioComparison{Against: q.Since.Add(-q.Until.Sub(q.Since)), Since: q.Since, Until: q.Until}
	window := func(from, to time.Time, rows *int) (map[string]oplog.Delta, error) {
		base := streamFilter(c.opts.Project, q.Machine, q.Source) + " " + timeLogsQL(from, to)
		err := c.query(ctx, base+" | stats count() as n", func(r row) error {
			*rows = int(r.num("n"))
			return nil
		})
		if err != nil {
			return nil, err
		}
		counts := map[string]oplog.Delta{}
		query := base + " -kind:=op template:* level:in(warn, error, fatal)" +
			" | stats by (template, template_text, level) count() as n, row_max(_time, id, machine) as newest"
		at := map[string]time.Time{}
		err = c.query(ctx, query, func(r row) error {
			k := r["template"]
			d := counts[k]
			d.Key, d.Text = k, r["template_text"]
			d.After += int(r.num("n"))
			level, _ := oplog.ParseLevel(r["level"])
			d.Level = max(d.Level, level)
			nr := jsonRow(r["newest"])
			if tm := nr.time("_time"); at[k].IsZero() || tm.After(at[k]) {
				at[k], d.ExampleID, d.Machine = tm, nr.num("id"), nr["machine"]
			}
			counts[k] = d
			return nil
		})
		if err != nil {
			return nil, err
		}
		p, err := c.FindCrashes(ctx, oplog.StudioCrashQuery{Since: from, Until: to, Source: q.Source, Machine: q.Machine, Limit: oplog.MaxCrashLimit})
		for _, g := range p.Groups {
			counts["crash "+g.Signature] = oplog.Delta{Key: g.Signature, Class: g.Class, Text: g.Title, Level: g.Level, After: g.Count,
				ExampleID: g.ExampleID, Machine: g.FirstMachine}
		}
		return counts, err
	}
	before, err := window(out.Against, q.Since, &out.Before)
	if err != nil {
		return out, err
	}
	after, err := window(q.Since, q.Until, &out.After)
	if err != nil {
		return out, err
	}
	for k, d := range before {
		d.Before, d.After = d.After, 0
		before[k] = d
	}
	out.CompareCounts(before, after)
	return out, nil
}
