package studio

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// Digest counts the rows q keeps across machines (oplog.StudioDigestQuery):
// levels, names and the total exactly, in LogsQL stats (an operation once,
// at its newest row's level, as Names counts it); templates and errors
// over time in the newest q.Sample rows of lines and markers, by
// oplog.DigestOf, since the rows carry no template field to count by; the
// crash groups by FindCrashes. Capped says the sample held fewer rows than
// the range.
func (c *Client) Digest(ctx context.Context, q oplog.StudioDigestQuery) (oplog.Digest, error) {
	sample, err := limit("sample", q.Sample, oplog.StudioDigestSample, oplog.MaxDigestRecords)
	if err != nil {
		return oplog.Digest{}, err
	}
	filter, err := filterLogsQL(&q.Filter, "", 0)
	if err != nil {
		return oplog.Digest{}, err
	}
	base := streamFilter(c.opts.Project, q.Machine, q.Source) + " " + filter
	var recs []oplog.Record
	err = c.query(ctx, base+" -kind:=op | sort by (_time desc) | limit "+strconv.Itoa(sample), func(r row) error {
		recs = append(recs, r.record().Record)
		return nil
	})
	if err != nil {
		return oplog.Digest{}, err
	}
	slices.Reverse(recs)
	d := oplog.DigestOf(recs)
	if err := c.exactCounts(ctx, base, &d); err != nil {
		return oplog.Digest{}, err
	}
	d.Capped = d.Records > d.Read
	p, err := c.FindCrashes(ctx, oplog.StudioCrashQuery{Since: q.Since, Until: q.Until, Source: q.Source, Machine: q.Machine, Limit: oplog.DigestTop})
	for _, g := range p.Groups {
		d.Crashes = append(d.Crashes, oplog.DigestCrash{Signature: g.Signature, Title: g.Title, Class: g.Class, Count: g.Count, ExampleID: g.ExampleID})
	}
	return d, err
}

// exactCounts sets d's Records, Levels and Names from LogsQL stats over
// base's rows.
func (c *Client) exactCounts(ctx context.Context, base string, d *oplog.Digest) error {
	stats := " | stats by (source, name, level) count() as n"
	names := map[[2]string]int{}
	d.Records, d.Levels = 0, map[string]int{}
	add := func(r row) error {
		n := int(r.num("n"))
		d.Records += n
		level, _ := oplog.ParseLevel(r["level"])
		if level == 0 {
			level = oplog.LevelInfo
		}
		d.Levels[level.String()] += n
		names[[2]string{r["source"], r["name"]}] += n
		return nil
	}
	if err := c.query(ctx, base+" -kind:=op"+stats, add); err != nil {
		return err
	}
	if err := c.query(ctx, base+" kind:=op | last 1 by (seq) partition by (machine, revision, id)"+stats, add); err != nil {
		return err
	}
	d.Names = d.Names[:0]
	for k, n := range names {
		d.Names = append(d.Names, oplog.NameCount{Source: k[0], Name: k[1], Count: n})
	}
	slices.SortFunc(d.Names, func(a, b oplog.NameCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Source+"\x00"+a.Name, b.Source+"\x00"+b.Name)
	})
	d.Names = d.Names[:min(len(d.Names), oplog.DigestTop)]
	return nil
}
