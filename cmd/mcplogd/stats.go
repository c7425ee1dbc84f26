package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

func (m *Main) stats(ctx context.Context, args []string) error {
	fs := m.flags("stats", "[--run R] [--since T] [--until T] [--source S] [--max-records N] [--json] [--data DIR]",
		"What happened in a run: each source's current run (or --run, or the records of --since/--until) counted by level and by source and name, "+
			"the most frequent message templates (numbers, IDs and paths blanked), the templates and crash groups new in it, and errors over time, "+
			"each with a record ID. Reads the range's records once, the newest --max-records of them.")
	data := m.dataFlag(fs)
	var ft oplog.FilterText
	fs.StringVar(&ft.Since, "since", "", "only records at or after this time: "+timeForms+", or last_compile")
	fs.StringVar(&ft.Until, "until", "", "only records before this time, written like --since")
	fs.StringVar(&ft.Source, "source", "", "only records of this source")
	run := fs.String("run", "", "the run of each source: current (the default without --since or --until), previous, a run number, or an offset as mcplogd runs prints it (0, -1, ...)")
	most := fs.Int("max-records", oplog.DefaultDigestRecords, fmt.Sprintf("most records to read, the newest (max %d)", oplog.MaxDigestRecords))
	out := outputVars(fs, "print the digest as one JSON object (oplog.Digest)")
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	if *most < 1 {
		return fmt.Errorf("--max-records: want at least 1, got %d", *most)
	}
	d, err := readLog(ctx, *data, openOptions{}, func(b backend) (oplog.Digest, error) {
		r, err := resolveFlags(ctx, b, oplog.Args{SearchText: oplog.SearchText{FilterText: ft}, Run: *run})
		if err != nil {
			return oplog.Digest{}, err
		}
		return b.Digest(ctx, oplog.DigestQuery{Filter: r.Filter, MaxRecords: *most})
	})
	if err != nil {
		return err
	}
	return m.paged(out.noPager, func(w io.Writer, p paint) error { return printDigest(w, &d, out.json, p) })
}

// printDigest prints a digest, a few lines per part; asJSON prints it as
// one JSON object instead.
func printDigest(w io.Writer, d *oplog.Digest, asJSON bool, p paint) error {
	if asJSON {
		return printJSONLine(w, d)
	}
	var runs []string
	for _, r := range d.Runs {
		runs = append(runs, fmt.Sprintf("%s run %d (%s)", r.Source, r.Run, r.Outcome))
	}
	if len(runs) == 0 {
		runs = []string{"the records"}
	}
	fmt.Fprintln(w, p.bold(fmt.Sprintf("%s: %d records, %s – %s", strings.Join(runs, ", "), d.Records, shortTime(d.From), shortTime(d.Until))))
	var levels []string
	for _, l := range oplog.Levels {
		if n := d.Levels[l.String()]; n > 0 {
			levels = append(levels, p.level(l, fmt.Sprintf("%s %d", l, n)))
		}
	}
	fmt.Fprintf(w, "levels: %s\n", strings.Join(levels, ", "))
	for _, n := range d.Names {
		fmt.Fprintf(w, "  %6d  %s\n", n.Count, oplog.SourceName(n.Source, n.Name))
	}
	fmt.Fprintf(w, "top templates (%d in all):\n", d.TemplateCount)
	printTemplates(w, d.Templates, p)
	if d.Runs != nil {
		fmt.Fprintf(w, "new in the run (against the %d records before it):\n", d.History)
		printTemplates(w, d.NewTemplates, p)
	}
	if len(d.Louder) > 0 {
		fmt.Fprintln(w, "louder than in the run before (per minute):")
		for _, e := range d.Louder {
			fmt.Fprintf(w, "  %6d  %s %s  #%d  %s\n", e.After, p.level(e.Level, fmt.Sprintf("%-5s", e.Level)), e.Text, e.ExampleID, e.Rates())
		}
	}
	for _, c := range d.Crashes {
		isNew := ""
		if c.New {
			isNew = " NEW"
		}
		fmt.Fprintf(w, "crash group%s: %s ×%d %s  #%d\n", isNew, c.Class, c.Count, c.Title, c.ExampleID)
	}
	if d.Errors != nil {
		fmt.Fprintf(w, "errors over time (%d slices): %v\n", len(d.Errors), d.Errors)
	}
	if d.Capped {
		fmt.Fprintf(w, "(capped: read the newest %d records, from #%d; --max-records reads more)\n", d.Read, d.FirstID)
	}
	return nil
}

// printTemplates prints a line a template: its count, level, text, newest
// record and ID, as search takes it (template:ID).
func printTemplates(w io.Writer, ts []oplog.TemplateCount, p paint) {
	for _, t := range ts {
		fmt.Fprintf(w, "  %6d  %s %s  #%d  template:%s\n", t.Count, p.level(t.Level, fmt.Sprintf("%-5s", t.Level)), t.Template, t.ExampleID, t.ID)
	}
}

// printJSONLine prints v as one line of JSON.
func printJSONLine(w io.Writer, v any) error {
	line, err := marshalJSON(v, false)
	if err == nil {
		fmt.Fprintf(w, "%s\n", line)
	}
	return err
}

// shortTime is t in local time to the second; "-" when zero.
func shortTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func (m *Main) compare(ctx context.Context, args []string) error {
	fs := m.flags("compare", "[--source S] [--run R] [--against R] [--max-records N] [--json] [--data DIR]",
		"Did my fix work? Compares each source's current run (or --run) with the run before it (or --against): the crash groups and the "+
			"warning and error templates that are new, gone, or seen a different number of times, each with a record ID, under a verdict "+
			"read from how both runs ended: a crash after a clean exit is a regression; too soon to tell only while the current run "+
			"still runs short of the point where the previous one crashed.")
	data := m.dataFlag(fs)
	source := fs.String("source", "", "only this source's runs")
	run := fs.String("run", "", "the run to judge: current (the default), previous, a run number or an offset (0, -1, ...)")
	against := fs.String("against", "", "the run to compare it with, written like --run (default: the run before it)")
	most := fs.Int("max-records", oplog.DefaultDigestRecords, fmt.Sprintf("most records to read of each run, the newest (max %d)", oplog.MaxDigestRecords))
	out := outputVars(fs, "print the comparison as one JSON object (oplog.Comparison)")
	if err := m.parse(fs, args, 0); err != nil {
		return err
	}
	if *most < 1 {
		return fmt.Errorf("--max-records: want at least 1, got %d", *most)
	}
	c, err := readLog(ctx, *data, openOptions{}, func(b backend) (oplog.Comparison, error) {
		r, err := resolveFlags(ctx, b, oplog.Args{SearchText: oplog.SearchText{FilterText: oplog.FilterText{Source: *source}}, Run: *run, Against: *against})
		if err != nil {
			return oplog.Comparison{}, err
		}
		c, err := b.CompareRuns(ctx, oplog.CompareQuery{Source: *source, Current: r.Runs, Previous: r.Previous, MaxRecords: *most})
		return c, asFlagError(err) // the source named has no two runs
	})
	if err != nil {
		return err
	}
	return m.paged(out.noPager, func(w io.Writer, p paint) error { return printComparison(w, &c, out.json, p) })
}

// printComparison prints each source's comparison: the verdict, then what
// is new, gone and changed.
func printComparison(w io.Writer, c *oplog.Comparison, asJSON bool, p paint) error {
	if asJSON {
		return printJSONLine(w, c)
	}
	if len(c.Sources) == 0 {
		fmt.Fprintln(w, "no source has two runs to compare yet")
		return nil
	}
	for _, s := range c.Sources {
		fmt.Fprintln(w, p.bold(fmt.Sprintf("%s: run %d (%s) against run %d (%s)", s.Source, s.Current.Run, s.Current.Outcome, s.Previous.Run, s.Previous.Outcome)))
		fmt.Fprintln(w, s.Verdict)
		for _, part := range []struct {
			what string
			list []oplog.Delta
		}{{"new", s.New}, {"gone", s.Gone}, {"changed", s.Changed}} {
			for _, d := range part.list {
				what := d.Class
				if what == "" {
					what = d.Level.String()
				}
				fmt.Fprintf(w, "  %-7s %-5s %d → %d  %s  #%d\n", part.what, what, d.Before, d.After, d.Text, d.ExampleID)
			}
		}
		for _, e := range s.Louder {
			fmt.Fprintf(w, "  louder  %-5s %s  %s  #%d\n", e.Level, e.Rates(), e.Text, e.ExampleID)
		}
		if s.Calls != nil {
			for _, sh := range s.Calls.OverRepresented(oplog.RecurTop) {
				fmt.Fprintf(w, "  calls   %s\n", s.Calls.Line(&sh))
			}
		}
		if s.Capped {
			fmt.Fprintln(w, "  (capped: only the newest --max-records records of a run were read)")
		}
	}
	return nil
}
