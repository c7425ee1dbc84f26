package studio

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Digest counts the rows q keeps across machines (oplog.StudioDigestQuery):
// levels, names, the total and the templates exactly, in LogsQL stats (an
// operation once, at its newest row's level, as Names counts it); errors
// over time in the newest q.Sample rows of lines and markers, and the
// templates of rows forwarded without one in the newest q.Sample of them,
// by oplog.DigestOf; the crash groups by FindCrashes. Capped says the
// sample held fewer rows than the range.
func (c *Client) Digest(ctx context.Context, q oplog.StudioDigestQuery) (oplog.Digest, error) {
	sample, err := oplog.CheckLimit("sample", q.Sample, oplog.StudioDigestSample, oplog.MaxDigestRecords)
	if err != nil {
		return oplog.Digest{}, err
	}
	filter, _, err := searchLogsQL(oplog.SearchQuery{Filter: q.Filter})
	if err != nil {
		return oplog.Digest{}, err
	}
	base := streamFilter(c.opts.Project, q.Machine, q.Source) + " " + filter
	newest := func(query string) ([]oplog.Record, error) {
		var recs []oplog.Record
		err := c.query(ctx, query+" | sort by (_time desc) | limit "+strconv.Itoa(sample), func(r row) error {
			recs = append(recs, r.record().Record)
			return nil
		})
		slices.Reverse(recs)
		return recs, err
	}
	recs, err := newest(base + " -kind:=op")
	if err != nil {
		return oplog.Digest{}, err
	}
	d := oplog.DigestOf(recs)
	if err := c.exactCounts(ctx, base, &d); err != nil {
		return oplog.Digest{}, err
	}
	d.Capped = d.Read == sample && d.Records > d.Read // operations are not in the sample
	if err := c.templates(ctx, base, &d, newest); err != nil {
		return oplog.Digest{}, err
	}
	p, err := c.FindCrashes(ctx, oplog.StudioCrashQuery{Since: q.Since, Until: q.Until, Source: q.Source, Machine: q.Machine, Limit: oplog.DigestTop})
	for _, g := range p.Groups {
		d.Crashes = append(d.Crashes, oplog.DigestCrash{Signature: g.Signature, Title: g.Title, Class: g.Class, Count: g.Count, ExampleID: g.ExampleID})
	}
	return d, err
}

// templates sets d's Templates and TemplateCount: the rows of base that
// carry a template counted by it in LogsQL stats, each at its highest
// level with its newest row as the example; the rows forwarded without one
// (d.Untemplated) counted by oplog.DigestOf in the newest of them.
func (c *Client) templates(ctx context.Context, base string, d *oplog.Digest, newest func(string) ([]oplog.Record, error)) error {
	byID := map[string]*oplog.TemplateCount{}
	at := map[string]time.Time{}
	query := base + " -kind:=op template:* | stats by (template, template_text, level) count() as n, row_max(_time, id, source) as newest"
	err := c.query(ctx, query, func(r row) error {
		id := r["template"]
		t := byID[id]
		if t == nil {
			t = &oplog.TemplateCount{ID: id, Template: r["template_text"]}
			byID[id] = t
		}
		t.Count += int(r.num("n"))
		level, _ := oplog.ParseLevel(r["level"])
		t.Level = max(t.Level, level, oplog.LevelInfo)
		nr := jsonRow(r["newest"])
		if tm := nr.time("_time"); at[id].IsZero() || tm.After(at[id]) {
			at[id], t.ExampleID, t.Source = tm, nr.num("id"), nr["source"]
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = c.query(ctx, base+" -kind:=op -template:* | stats count() as n", func(r row) error {
		d.Untemplated = int(r.num("n"))
		return nil
	})
	if err != nil || d.Untemplated == 0 {
		d.UntemplatedRead = 0
		return finishTemplates(d, byID, err)
	}
	recs, err := newest(base + " -kind:=op -template:*")
	if err != nil {
		return err
	}
	d.UntemplatedRead = len(recs)
	u := oplog.DigestOf(recs)
	for _, ut := range u.Templates {
		t := byID[ut.ID]
		if t == nil {
			byID[ut.ID] = &ut
			continue
		}
		t.Count += ut.Count
		t.Level = max(t.Level, ut.Level)
	}
	return finishTemplates(d, byID, nil)
}

// finishTemplates puts the counted templates in d, the most first.
func finishTemplates(d *oplog.Digest, byID map[string]*oplog.TemplateCount, err error) error {
	d.Templates, d.TemplateCount = d.Templates[:0], len(byID)
	for _, t := range byID {
		d.Templates = append(d.Templates, *t)
	}
	slices.SortFunc(d.Templates, func(a, b oplog.TemplateCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.ID, b.ID)
	})
	d.Templates = d.Templates[:min(len(d.Templates), oplog.DigestTop)]
	return err
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
