package mcptools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// ---- log_stats and compare_runs ----

// Both answers are one look at a run, so they are small whatever the run
// holds: summaryBytes, the lists cut from their ends to fit, each template
// or title to summaryTextRunes.
const (
	summaryBytes     = 4 << 10
	summaryTextRunes = 100
)

// statsCallShapes is how many call shapes log_stats names.
const statsCallShapes = 5

func (t *toolset) addStatsTools(srv *mcp.Server) {
	addTool(srv, t, toolSpec{name: "log_stats", title: "What happened in a run",
		description: "A run's digest (default: each source's current): levels, names, top and new templates, " +
			"new crash groups, errors over time.",
		annotations: readOnly, example: map[string]any{"since": "-1h"}}, t.logStats)
	addTool(srv, t, toolSpec{name: "compare_runs", title: "Did my fix work?",
		description: "Did my fix work? A run against the one before: new, gone, changed crash groups and warn/error templates, louder ones; " +
			"too soon only while running short of the crash. Studio: since-until (default last hour) vs as long before.",
		annotations: readOnly, example: map[string]any{}}, t.compareRuns)
}

type statsIn struct {
	Since  string `json:"since,omitempty" jsonschema:"RFC 3339, Unix ms, -15m or last_compile"`
	Until  string `json:"until,omitempty" jsonschema:"same forms as since"`
	Source string `json:"source,omitempty" jsonschema:"only this source"`
	Run    string `json:"run,omitempty" jsonschema:"current, previous or a run number"`
	// Scope only, no machine: tools/list's bytes.
	Scope string `json:"scope,omitempty" jsonschema:"local (this machine, the default) or studio (every machine of the project)"`
}

// countOut is a template or a crash group, counted.
type countOut struct {
	Text  string `json:"text" jsonschema:"the message template (values blanked) or the crash group's title"`
	Level string `json:"level" jsonschema:"the highest level; a crash group's class"`
	Count int    `json:"count"`
	ID    uint64 `json:"id" jsonschema:"an example record"`
	// Machine is the example's, in scope studio.
	Machine string `json:"machine,omitempty"`
	New     bool   `json:"new,omitempty" jsonschema:"a crash group not seen before the run"`
	// PerMin says a template is louder than in the run before: its rates.
	PerMin string `json:"perMin,omitempty" jsonschema:"louder than in the run before: per minute there → here"`
}

type statsOut struct {
	Runs    []string       `json:"runs,omitempty" jsonschema:"the runs read: source#run, outcome"`
	From    string         `json:"from,omitempty"`
	Until   string         `json:"until,omitempty"`
	Records int            `json:"records"`
	Capped  bool           `json:"capped,omitempty" jsonschema:"only the newest records were read"`
	Levels  map[string]int `json:"levels"`
	Names   []string       `json:"names,omitempty" jsonschema:"source/name ×count, or source (no name) ×count for lines without a name; the most first"`
	Top     []countOut     `json:"top,omitempty" jsonschema:"the most frequent message templates"`
	New     []countOut     `json:"new,omitempty" jsonschema:"templates not seen before the run, errors first"`
	Louder  []countOut     `json:"louder,omitempty" jsonschema:"templates 3× as frequent per minute as in the run before (or new), not among top: both rates"`
	Crashes []countOut     `json:"crashes,omitempty"`
	Calls   []string       `json:"calls,omitempty" jsonschema:"the most made call shapes: shape ×count (crashed: its run's crash ended it; failed: error or timeout)"`
	Errors  []int          `json:"errors,omitempty" jsonschema:"errors in 12 equal slices of from-until"`
	Note    string         `json:"note,omitempty"`
}

func (o statsOut) text() string {
	var levels []string
	for _, l := range oplog.Levels {
		if n := o.Levels[l.String()]; n > 0 {
			levels = append(levels, fmt.Sprintf("%s %d", l, n))
		}
	}
	runs := strings.Join(o.Runs, ", ")
	if runs != "" { // a time range reads no runs
		runs += ", "
	}
	h := fmt.Sprintf("log_stats: %s%d records (%s) %s – %s", runs, o.Records, strings.Join(levels, ", "), o.From, o.Until)
	entries := []string{"names: " + strings.Join(o.Names, ", ")}
	for _, c := range o.Top {
		if c.PerMin != "" {
			entries = append(entries, "top, louder: "+c.line())
		} else {
			entries = append(entries, "top: "+c.line())
		}
	}
	for _, c := range o.New {
		entries = append(entries, "new: "+c.line())
	}
	for _, c := range o.Louder {
		entries = append(entries, "louder: "+c.line())
	}
	for _, c := range o.Crashes {
		entries = append(entries, "crash group: "+c.line())
	}
	if len(o.Calls) > 0 {
		entries = append(entries, "calls: "+strings.Join(o.Calls, ", "))
	}
	if o.Errors != nil {
		entries = append(entries, fmt.Sprint("errors over time: ", o.Errors))
	}
	if o.Note != "" {
		entries = append(entries, o.Note)
	}
	return lines(h, entries)
}

func (c *countOut) line() string {
	s := fmt.Sprintf("%s ×%d %s #%d", c.Level, c.Count, c.Text, c.ID)
	if c.Machine != "" {
		s += " on " + c.Machine
	}
	if c.New {
		s += " (new)"
	}
	if c.PerMin != "" {
		s += " (" + c.PerMin + ")"
	}
	return s
}

// louderOut shapes louder templates for an answer: their rates in PerMin.
func louderOut(es []oplog.Elevation) []countOut {
	out := []countOut{}
	for i := range es {
		out = append(out, countOut{Text: clipSummary(es[i].Text), Level: es[i].Level.String(), Count: es[i].After, ID: es[i].ExampleID, PerMin: es[i].Rates()})
	}
	return out
}

func (t *toolset) logStats(ctx context.Context, _ *mcp.CallToolRequest, in statsIn) (statsOut, error) {
	a := oplog.Args{SearchText: oplog.SearchText{FilterText: oplog.FilterText{Since: in.Since, Until: in.Until, Source: in.Source}},
		Run: in.Run, Scope: in.Scope}
	r, src, err := t.resolve(ctx, a)
	if err != nil {
		return statsOut{}, err
	}
	var d oplog.Digest
	if st := src.studio(); st != nil {
		d, err = st.Digest(ctx, oplog.StudioDigestQuery{Filter: r.Filter, Machine: r.Machine})
	} else {
		d, err = t.log.Digest(ctx, oplog.DigestQuery{Filter: r.Filter})
	}
	if err != nil {
		return statsOut{}, err
	}
	out := digestOut(&d)
	switch {
	case src.studio() != nil:
		out.Runs = []string{"studio: every machine"}
		if d.Capped {
			out.Note = fmt.Sprintf("errors over time: in the newest %d rows; ", d.Read)
		}
		if d.Untemplated > 0 {
			out.Note += fmt.Sprintf("templates of the %d rows forwarded without one: in the newest %d of them", d.Untemplated, d.UntemplatedRead)
		}
	case d.Capped:
		out.Note = fmt.Sprintf("capped: read the newest %d records of the range, from #%d; ", d.Read, d.FirstID)
	}
	switch {
	case d.Runs != nil && d.History == 0:
		out.New = nil // every template of a first run is new: nothing to say
		out.Note += "new: nothing before the run to compare with"
	case d.Runs != nil:
		out.Note += fmt.Sprintf("new: against the %d records before the run", d.History)
	}
	out.Note = strings.TrimSuffix(out.Note, "; ")
	if src.studio() == nil && d.Records > 0 {
		if err := t.addStatsCalls(ctx, &out, r.Filter, &d); err != nil {
			return statsOut{}, err
		}
	}
	fitSummary(&out, &out.Names, &out.Top, &out.New, &out.Louder, &out.Crashes)
	for resultSize(&out) > summaryBytes && len(out.Calls) > 0 {
		out.Calls = out.Calls[:len(out.Calls)-1]
	}
	return out, nil
}

// addStatsCalls gives out log_stats' call shapes: the statsCallShapes
// most made among the records d counted (those f keeps, in d's runs), each
// with how many of its calls crashed or failed.
func (t *toolset) addStatsCalls(ctx context.Context, out *statsOut, f oplog.Filter, d *oplog.Digest) error {
	if d.Runs != nil {
		f.Runs = map[string]uint64{}
		for _, r := range d.Runs {
			f.Runs[r.Source] = r.Run
		}
	}
	c, err := oplog.CountCalls(ctx, t.log, oplog.CallCountQuery{Filter: f, FirstID: d.FirstID, LastID: d.LastID, Top: statsCallShapes})
	if err != nil {
		return err
	}
	for _, s := range c.Shapes {
		line := fmt.Sprintf("%s ×%d", clipSummary(s.Shape), s.Count)
		switch {
		case s.Crashed > 0 && s.Failed > 0:
			line += fmt.Sprintf(" (%d crashed, %d failed)", s.Crashed, s.Failed)
		case s.Crashed > 0:
			line += fmt.Sprintf(" (%d crashed)", s.Crashed)
		case s.Failed > 0:
			line += fmt.Sprintf(" (%d failed)", s.Failed)
		}
		out.Calls = append(out.Calls, line)
	}
	if c.Capped {
		out.Note = strings.TrimPrefix(out.Note+fmt.Sprintf("; calls: of the newest %d", c.Calls), "; ")
	}
	return nil
}

// digestOut shapes a digest for log_stats.
func digestOut(d *oplog.Digest) statsOut {
	out := statsOut{Runs: []string{}, Records: d.Records, Capped: d.Capped, Levels: d.Levels, Names: []string{}, Top: templatesOut(d.Templates),
		New: templatesOut(d.NewTemplates), Errors: d.Errors}
	if d.Records > 0 {
		out.From, out.Until = listTimeOf(d.From), listTimeOf(d.Until)
	}
	for _, run := range d.Runs {
		out.Runs = append(out.Runs, fmt.Sprintf("%s#%d %s", run.Source, run.Run, run.Outcome))
	}
	for _, n := range d.Names {
		out.Names = append(out.Names, fmt.Sprintf("%s ×%d", oplog.SourceName(n.Source, n.Name), n.Count))
	}
	for _, c := range d.Crashes {
		out.Crashes = append(out.Crashes, countOut{Text: clipSummary(c.Title), Level: c.Class, Count: c.Count, ID: c.ExampleID, New: c.New})
	}
	markLouder(&out, d)
	return out
}

// markLouder gives the top templates that are louder than in the run
// before their rates, and lists the other louder ones.
func markLouder(out *statsOut, d *oplog.Digest) {
	var rest []oplog.Elevation
	for i := range d.Louder {
		e := &d.Louder[i]
		same := func(t oplog.TemplateCount) bool { return t.ID == e.Key && t.Source == e.Source }
		if j := slices.IndexFunc(d.Templates, same); j >= 0 {
			out.Top[j].PerMin = e.Rates()
		} else if !slices.ContainsFunc(d.NewTemplates, same) || !e.New() {
			rest = append(rest, *e)
		}
	}
	if len(rest) > 0 {
		out.Louder = louderOut(rest)
	}
}

// templatesOut shapes templates for an answer, clipped.
func templatesOut(ts []oplog.TemplateCount) []countOut {
	out := []countOut{}
	for _, c := range ts {
		out = append(out, countOut{Text: clipSummary(c.Template), Level: c.Level.String(), Count: c.Count, ID: c.ExampleID})
	}
	return out
}

// clipSummary clips a template or title to summaryTextRunes, from its
// middle: a crash's title ends with its frame's file and line, what a
// reader opens.
func clipSummary(s string) string {
	if _, cut := oplog.ClipRunes(s, summaryTextRunes); !cut {
		return s
	}
	head, _ := oplog.ClipRunes(s, summaryTextRunes*3/5)
	r := []rune(s)
	return head + "…" + string(r[len(r)-(summaryTextRunes-summaryTextRunes*3/5-1):])
}

// fitSummary cuts the last entry of the longest of lists until out fits
// summaryBytes.
func fitSummary[N any, C any](out any, names *[]N, lists ...*[]C) {
	for resultSize(out) > summaryBytes {
		longest := lists[0]
		for _, l := range lists[1:] {
			if len(*l) > len(*longest) {
				longest = l
			}
		}
		switch {
		case len(*names) > len(*longest):
			*names = (*names)[:len(*names)-1]
		case len(*longest) > 0:
			*longest = (*longest)[:len(*longest)-1]
		default:
			return
		}
	}
}

type compareIn struct {
	Source  string `json:"source,omitempty" jsonschema:"only this source"`
	Run     string `json:"run,omitempty" jsonschema:"current (default), previous or a run number"`
	Against string `json:"against,omitempty" jsonschema:"a run; default the one before run"`
	Scope   string `json:"scope,omitempty" jsonschema:"local (this machine, the default) or studio (every machine of the project)"`
	Since   string `json:"since,omitempty" jsonschema:"RFC 3339, Unix ms, -15m or last_compile"`
	Until   string `json:"until,omitempty" jsonschema:"same forms as since"`
}

type compareOut struct {
	Sources []compareSourceOut `json:"sources"`
}

type compareSourceOut struct {
	Source   string     `json:"source"`
	Previous string     `json:"previous" jsonschema:"#run outcome, length, records"`
	Current  string     `json:"current"`
	Verdict  string     `json:"verdict"`
	NotYet   bool       `json:"notYet,omitempty" jsonschema:"still running and shorter than the previous run when it crashed: too soon to tell"`
	New      []countOut `json:"new,omitempty" jsonschema:"crash groups and warn/error templates only in current"`
	Gone     []countOut `json:"gone,omitempty" jsonschema:"only in previous (id is there)"`
	Changed  []countOut `json:"changed,omitempty" jsonschema:"count is current's, text ends with the previous count"`
	Louder   []countOut `json:"louder,omitempty" jsonschema:"templates of any level new or 3× as frequent per minute as in previous: both rates"`
	Calls    []string   `json:"calls,omitempty" jsonschema:"call shapes over-represented in the source's crashed runs (its newest 20 ended) against its clean ones"`
}

func (o compareOut) text() string {
	var entries []string
	for _, s := range o.Sources {
		entries = append(entries, fmt.Sprintf("%s: %s against %s: %s", s.Source, s.Current, s.Previous, s.Verdict))
		for _, l := range []struct {
			what string
			list []countOut
		}{{"new", s.New}, {"gone", s.Gone}, {"changed", s.Changed}, {"louder", s.Louder}} {
			for _, c := range l.list {
				entries = append(entries, "  "+l.what+": "+c.line())
			}
		}
		for _, c := range s.Calls {
			entries = append(entries, "  calls in crashed runs: "+c)
		}
	}
	if len(o.Sources) == 0 {
		return "compare_runs: no source has two runs to compare yet"
	}
	return lines(fmt.Sprintf("compare_runs: %d source(s)", len(o.Sources)), entries)
}

func (t *toolset) compareRuns(ctx context.Context, _ *mcp.CallToolRequest, in compareIn) (compareOut, error) {
	if in.Scope == "studio" || in.Since != "" || in.Until != "" {
		return t.compareStudio(ctx, in)
	}
	a := oplog.Args{SearchText: oplog.SearchText{FilterText: oplog.FilterText{Source: in.Source}}, Run: in.Run, Against: in.Against,
		Scope: in.Scope, RunsWords: runsWords}
	r, err := oplog.Resolve(ctx, t.log, a, t.opts.Now())
	if err != nil {
		return compareOut{}, err
	}
	c, err := t.log.CompareRuns(ctx, oplog.CompareQuery{Source: in.Source, Current: r.Runs, Previous: r.Previous})
	if err != nil {
		return compareOut{}, err
	}
	out := compareOut{Sources: []compareSourceOut{}}
	for _, s := range c.Sources {
		o := compareSourceOut{Source: s.Source, Previous: runSummary(s.Previous), Current: runSummary(s.Current),
			Verdict: s.Verdict, NotYet: s.NotYet, New: deltasOut(s.New, false), Gone: deltasOut(s.Gone, true), Changed: deltasOut(s.Changed, false)}
		if len(s.Louder) > 0 {
			o.Louder = louderOut(s.Louder)
		}
		if s.Calls != nil {
			o.Calls = recurrenceLines(s.Calls, s.Calls.Shapes)
		}
		out.Sources = append(out.Sources, o)
	}
	for i := len(out.Sources) - 1; i >= 0 && resultSize(&out) > summaryBytes; i-- {
		s := &out.Sources[i]
		var none []string
		fitSummary(&out, &none, &s.New, &s.Gone, &s.Changed, &s.Louder)
	}
	// The calls, at most oplog.RecurTop lines a source, are cut only
	// when the lists are.
	for i := len(out.Sources) - 1; i >= 0 && resultSize(&out) > summaryBytes; i-- {
		for s := &out.Sources[i]; len(s.Calls) > 0 && resultSize(&out) > summaryBytes; {
			s.Calls = s.Calls[:len(s.Calls)-1]
		}
	}
	return out, nil
}

// runSummary is a run in one phrase: "#2 running 20s, 26 records".
func runSummary(r oplog.RunInfo) string {
	return fmt.Sprintf("#%d %s %s, %d records", r.Run, r.Outcome, r.Last.Sub(r.Start).Round(time.Millisecond), r.Records)
}

// deltasOut shapes compared templates and groups; a gone one counts its
// previous occurrences, a changed one says them after its text.
func deltasOut(ds []oplog.Delta, gone bool) []countOut {
	var out []countOut
	for _, d := range ds {
		c := countOut{Text: clipSummary(d.Text), Level: d.Level.String(), Count: d.After, ID: d.ExampleID, Machine: d.Machine}
		if d.Class != "" {
			c.Level = d.Class
		}
		switch {
		case gone:
			c.Count = d.Before
		case d.Before > 0:
			c.Text += fmt.Sprintf(" (was ×%d)", d.Before)
		}
		out = append(out, c)
	}
	return out
}

// compareStudio is compare_runs {scope: studio}: runs are each machine's,
// so it compares [since, until) of every machine (default: the last hour)
// with the window as long just before it.
func (t *toolset) compareStudio(ctx context.Context, in compareIn) (compareOut, error) {
	switch {
	case in.Run != "":
		return compareOut{}, oplog.Errorf(oplog.EINVALID, "run: runs are one machine's; scope studio compares since-until with the window as long before it")
	case in.Against != "":
		return compareOut{}, oplog.Errorf(oplog.EINVALID, "against: scope studio compares since-until with the window as long before it")
	}
	scope := in.Scope
	if scope == "" {
		scope = "local"
	}
	a := oplog.Args{SearchText: oplog.SearchText{FilterText: oplog.FilterText{Since: in.Since, Until: in.Until, Source: in.Source}}, Scope: scope}
	r, src, err := t.resolve(ctx, a)
	if err != nil {
		return compareOut{}, err
	}
	st := src.studio()
	if st == nil {
		return compareOut{}, oplog.Errorf(oplog.EINVALID, "since: compare_runs compares runs on this machine; since and until are for scope studio")
	}
	until := r.Filter.Until
	if until.IsZero() {
		until = t.opts.Now()
	}
	since := r.Filter.Since
	if since.IsZero() {
		since = until.Add(-time.Hour)
	}
	c, err := st.Compare(ctx, oplog.StudioCompareQuery{Since: since, Until: until, Source: in.Source, Machine: r.Machine})
	if err != nil {
		return compareOut{}, err
	}
	s := compareSourceOut{Source: "studio: every machine", Previous: fmt.Sprintf("%s – %s, %d records", listTimeOf(c.Against), listTimeOf(c.Since), c.Before),
		Current: fmt.Sprintf("%s – %s, %d records", listTimeOf(c.Since), listTimeOf(c.Until), c.After), Verdict: c.Verdict,
		New: deltasOut(c.New, false), Gone: deltasOut(c.Gone, true), Changed: deltasOut(c.Changed, false)}
	out := compareOut{Sources: []compareSourceOut{s}}
	var none []string
	fitSummary(&out, &none, &out.Sources[0].New, &out.Sources[0].Gone, &out.Sources[0].Changed)
	return out, nil
}
