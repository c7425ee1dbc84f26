package oplogtest

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Digest counts the rows q keeps across machines as Client does
// (oplog.StudioDigestQuery): levels, names, the total and the templates
// of rows that carry one exactly (an operation once, at its newest
// matching row's level); errors over time in the newest q.Sample rows of
// lines and markers, and the templates of rows without one in the newest
// q.Sample of them, by oplog.DigestOf; the crash groups by FindCrashes.
func (s *Studio) Digest(ctx context.Context, q oplog.StudioDigestQuery) (oplog.Digest, error) {
	sample, err := oplog.CheckLimit("sample", q.Sample, oplog.StudioDigestSample, oplog.MaxDigestRecords)
	if err != nil {
		return oplog.Digest{}, err
	}
	match, _, err := s.compileSearch(oplog.SearchQuery{Filter: q.Filter})
	if err != nil {
		return oplog.Digest{}, err
	}
	if err := ctx.Err(); err != nil {
		return oplog.Digest{}, err
	}
	var lines, ops, untemplated []*studioRow
	for _, r := range s.snapshot() {
		switch {
		case !r.inStream(q.Machine, q.Source) || !match(r):
		case r.kind == "op":
			ops = append(ops, r)
		default:
			lines = append(lines, r)
			if r.template == "" {
				untemplated = append(untemplated, r)
			}
		}
	}
	newest := func(rows []*studioRow) []oplog.Record {
		rows = slices.Clone(rows)
		slices.SortStableFunc(rows, func(a, b *studioRow) int { return b.rec.Time.Compare(a.rec.Time) })
		rows = rows[:min(len(rows), sample)]
		recs := make([]oplog.Record, len(rows))
		for i, r := range rows {
			recs[len(rows)-1-i] = r.rec.Record
		}
		return recs
	}
	d := oplog.DigestOf(newest(lines))
	exactCounts(append(slices.Clip(lines), lastBySeq(ops)...), &d)
	d.Capped = d.Read == sample && d.Records > d.Read // operations are not in the sample
	byID := templateCounts(lines)
	d.Untemplated, d.UntemplatedRead = len(untemplated), 0
	if len(untemplated) > 0 {
		recs := newest(untemplated)
		d.UntemplatedRead = len(recs)
		for _, ut := range oplog.DigestOf(recs).Templates {
			if t := byID[ut.ID]; t != nil {
				t.Count += ut.Count
				t.Level = max(t.Level, ut.Level)
			} else {
				byID[ut.ID] = &ut
			}
		}
	}
	finishTemplates(&d, byID)
	p, err := s.FindCrashes(ctx, oplog.StudioCrashQuery{Since: q.Since, Until: q.Until, Source: q.Source, Machine: q.Machine, Limit: oplog.DigestTop})
	for _, g := range p.Groups {
		d.Crashes = append(d.Crashes, oplog.DigestCrash{Signature: g.Signature, Title: g.Title, Class: g.Class, Count: g.Count, ExampleID: g.ExampleID})
	}
	return d, err
}

// templateCounts counts the rows that carry a template by it, each at its
// highest level (info at least) with its newest row as the example.
func templateCounts(rows []*studioRow) map[string]*oplog.TemplateCount {
	byID := map[string]*oplog.TemplateCount{}
	at := map[string]time.Time{}
	for _, r := range rows {
		if r.template == "" {
			continue
		}
		t := byID[r.template]
		if t == nil {
			t = &oplog.TemplateCount{ID: r.template, Template: r.tmText}
			byID[r.template] = t
		}
		t.Count++
		level, _ := oplog.ParseLevel(r.level)
		t.Level = max(t.Level, level, oplog.LevelInfo)
		if tm := r.rec.Time; at[r.template].IsZero() || tm.After(at[r.template]) {
			at[r.template], t.ExampleID, t.Source = tm, r.Record.ID, r.Record.Source
		}
	}
	return byID
}

// finishTemplates puts the counted templates in d, the most first.
func finishTemplates(d *oplog.Digest, byID map[string]*oplog.TemplateCount) {
	d.Templates, d.TemplateCount = d.Templates[:0], len(byID)
	for _, t := range byID {
		d.Templates = append(d.Templates, *t)
	}
	slices.SortFunc(d.Templates, func(a, b oplog.TemplateCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.ID, b.ID))
	})
	d.Templates = d.Templates[:min(len(d.Templates), oplog.DigestTop)]
}

// exactCounts sets d's Records, Levels and Names from rows.
func exactCounts(rows []*studioRow, d *oplog.Digest) {
	names := map[[2]string]int{}
	d.Records, d.Levels = 0, map[string]int{}
	for _, r := range rows {
		d.Records++
		level, _ := oplog.ParseLevel(r.level)
		if level == 0 {
			level = oplog.LevelInfo
		}
		d.Levels[level.String()]++
		names[[2]string{r.Record.Source, r.Record.Name}]++
	}
	d.Names = d.Names[:0]
	for k, n := range names {
		d.Names = append(d.Names, oplog.NameCount{Source: k[0], Name: k[1], Count: n})
	}
	slices.SortFunc(d.Names, func(a, b oplog.NameCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Source+"\x00"+a.Name, b.Source+"\x00"+b.Name))
	})
	d.Names = d.Names[:min(len(d.Names), oplog.DigestTop)]
}

// Compare compares the rows of [q.Since, q.Until) with those of the window
// as long just before it, as Client does: the templates of rows at level
// warn and above (rows without a template left out), and the crash groups
// of FindCrashes in each window.
func (s *Studio) Compare(ctx context.Context, q oplog.StudioCompareQuery) (oplog.StudioComparison, error) {
	if q.Since.IsZero() || q.Until.IsZero() || !q.Since.Before(q.Until) {
		return oplog.StudioComparison{}, oplog.Errorf(oplog.EINVALID, "since: must be before until")
	}
	out := oplog.StudioComparison{Against: q.Since.Add(-q.Until.Sub(q.Since)), Since: q.Since, Until: q.Until}
	before, err := s.compareWindow(ctx, q, out.Against, q.Since, &out.Before)
	if err != nil {
		return out, err
	}
	after, err := s.compareWindow(ctx, q, q.Since, q.Until, &out.After)
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

// compareWindow counts the rows of [from, to) in *rows (every row, an
// operation's each), and returns the counts of its warn and error
// templates and crash groups, in each Delta's After.
func (s *Studio) compareWindow(ctx context.Context, q oplog.StudioCompareQuery, from, to time.Time, rows *int) (map[string]oplog.Delta, error) {
	counts := map[string]oplog.Delta{}
	at := map[string]time.Time{}
	*rows = 0
	for _, r := range s.snapshot() {
		if !r.inStream(q.Machine, q.Source) || !r.inTime(from, to) {
			continue
		}
		*rows++
		if r.kind == "op" || r.template == "" || !slices.Contains([]string{"warn", "error", "fatal"}, r.level) {
			continue
		}
		k := r.template
		d := counts[k]
		d.Key, d.Text = k, r.tmText
		d.After++
		level, _ := oplog.ParseLevel(r.level)
		d.Level = max(d.Level, level)
		if tm := r.rec.Time; at[k].IsZero() || tm.After(at[k]) {
			at[k], d.ExampleID, d.Machine = tm, r.Record.ID, r.Machine
		}
		counts[k] = d
	}
	p, err := s.FindCrashes(ctx, oplog.StudioCrashQuery{Since: from, Until: to, Source: q.Source, Machine: q.Machine, Limit: oplog.MaxCrashLimit})
	for _, g := range p.Groups {
		counts["crash "+g.Signature] = oplog.Delta{Key: g.Signature, Class: g.Class, Text: g.Title, Level: g.Level, After: g.Count,
			ExampleID: g.ExampleID, Machine: g.FirstMachine}
	}
	return counts, err
}
