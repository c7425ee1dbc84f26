package oplog

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// CompareQuery asks how one run of a source differs from an earlier one:
// "did my fix work?".
type CompareQuery struct {
	// Source compares that source's runs only; "" every source that has
	// two runs to compare.
	Source string
	// Current and Previous are the runs to compare (source → run, as
	// Resolve gives them from Args.Run and Args.Against); nil Current:
	// each source's current run, nil Previous: the run that started
	// before Current's.
	Current, Previous map[string]uint64
	// MaxRecords caps the records read of each run (the newest kept);
	// DefaultDigestRecords when zero, at most MaxDigestRecords.
	MaxRecords int
}

// Comparison is CompareRuns' answer: one RunComparison per source.
type Comparison struct {
	Sources []RunComparison `json:"sources"`
}

// RunComparison compares two runs of a source: the message templates at
// level warn and above and the crash groups that are new in Current, gone
// from it, or seen a different number of times, each list the largest
// change first and at most DigestTop long.
type RunComparison struct {
	Source   string  `json:"source"`
	Previous RunInfo `json:"previous"`
	Current  RunInfo `json:"current"`
	// Capped says a run held more than MaxRecords records: only its
	// newest were counted.
	Capped bool `json:"capped,omitempty"`

	New     []Delta `json:"new,omitempty"`
	Gone    []Delta `json:"gone,omitempty"`
	Changed []Delta `json:"changed,omitempty"`

	// FailedAfter and FailedRecords say how far the previous run got
	// before it crashed (its time from start, its records up to the
	// crash); zero when it did not crash.
	FailedAfter   time.Duration `json:"failedAfter,omitempty"`
	FailedRecords uint64        `json:"failedRecords,omitempty"`
	// NotYet says the current run is still running, without a crash, and
	// shorter, in time or in records, than the previous run when it
	// crashed: too soon to say the crash is fixed. Never for a run that
	// exited or ended: it is over.
	NotYet bool `json:"notYet,omitempty"`
	// Verdict says it in one sentence, from both runs' outcomes: a crash
	// again, a regression (a crash after a run that exited or ended
	// without one), a crash gone (past the point of the previous one, or
	// over before it), too soon to tell, or neither run crashed.
	Verdict string `json:"verdict"`
	// Louder are the message templates of any level new in Current or
	// heard ElevationFactor times as often per minute as in Previous, with
	// both rates, the most elevated first, at most ElevatedTop (see
	// Elevation); but the new ones at level warn and above, in New.
	Louder []Elevation `json:"louder,omitempty"`
	// Calls names the call shapes over-represented in the source's
	// crashed runs against its clean ones (its newest RecurRuns ended
	// runs, whichever two are compared; see CallRecurrence): at most
	// RecurTop, most tied first; nil when none is.
	Calls *Recurrence `json:"calls,omitempty"`
}

// Delta is a message template or a crash group in both runs compared.
type Delta struct {
	// Key is the TemplateID or the crash signature.
	Key string `json:"key"`
	// Class is the crash group's class (ClassCrash, ClassError); "" for
	// a template.
	Class string `json:"class,omitempty"`
	Text  string `json:"text"`  // the template, or the crash group's title
	Level Level  `json:"level"` // the highest level seen
	// Before and After count it in the previous and the current run.
	Before int `json:"before"`
	After  int `json:"after"`
	// ExampleID is a record of it: in the current run, or for one gone,
	// in the previous; Machine, in the studio, the machine that wrote it.
	ExampleID uint64 `json:"exampleId"`
	Machine   string `json:"machine,omitempty"`
}

// StudioCompareQuery asks the studio how its rows of [Since, Until) differ
// from those of the window as long just before it, across every machine
// (or Machine), of Source (empty: any).
type StudioCompareQuery struct {
	Since, Until    time.Time
	Source, Machine string
}

// StudioComparison is Studio.Compare's answer: the warn/error templates
// and crash groups new in [Since, Until), gone from it or seen a different
// number of times than in [Against, Since), as RunComparison lists them.
type StudioComparison struct {
	Against time.Time `json:"against"`
	Since   time.Time `json:"since"`
	Until   time.Time `json:"until"`
	// Before and After count the rows of the earlier and the later window.
	Before int `json:"before"`
	After  int `json:"after"`

	New     []Delta `json:"new,omitempty"`
	Gone    []Delta `json:"gone,omitempty"`
	Changed []Delta `json:"changed,omitempty"`
	Verdict string  `json:"verdict"`
}

// CompareCounts files the templates or crash groups counted in two windows
// (by key; each Delta's Before counts it in before, After in after) into
// c's New, Gone and Changed, and words the verdict; call it once with every
// count.
func (c *StudioComparison) CompareCounts(before, after map[string]Delta) {
	var rc RunComparison
	for k, d := range before {
		if a, ok := after[k]; ok {
			d.After, d.Level, d.ExampleID, d.Machine = a.After, max(d.Level, a.Level), a.ExampleID, a.Machine
		}
		rc.add(d)
	}
	for k, a := range after {
		if _, ok := before[k]; !ok {
			rc.add(a)
		}
	}
	counts := [3]int{len(rc.New), len(rc.Gone), len(rc.Changed)}
	sortDeltas(&rc)
	c.New, c.Gone, c.Changed = rc.New, rc.Gone, rc.Changed
	c.Verdict = fmt.Sprintf("%d new, %d gone, %d changed (errors, warnings and crash groups), %d rows against %d", counts[0], counts[1], counts[2], c.After, c.Before)
}

// sortDeltas orders c's lists, crash groups and the highest level first,
// then the largest change, each at most DigestTop long.
func sortDeltas(c *RunComparison) {
	for _, list := range []*[]Delta{&c.New, &c.Gone, &c.Changed} {
		slices.SortFunc(*list, func(a, b Delta) int {
			return cmp.Or(cmp.Compare(len(b.Class), len(a.Class)), cmp.Compare(b.Level, a.Level),
				cmp.Compare(abs(b.After-b.Before), abs(a.After-a.Before)), cmp.Compare(a.Key, b.Key))
		})
		*list = (*list)[:min(len(*list), DigestTop)]
	}
}

// CompareRuns compares runs of each source (see CompareQuery). It reads
// each run's records once (at most MaxRecords, the newest) and asks the
// crash index for each run's groups. Without a Source, the sources that
// have no two runs are left out (none: no Sources); ENOTFOUND when Source
// has no two runs to compare; EINVALID for a bad MaxRecords.
func (l *Log) CompareRuns(ctx context.Context, q CompareQuery) (Comparison, error) {
	maxRecords, err := CheckLimit("maxRecords", q.MaxRecords, DefaultDigestRecords, MaxDigestRecords)
	if err != nil {
		return Comparison{}, err
	}
	q.Source = l.Game(q.Source)
	pairs, err := l.runPairs(ctx, &q)
	if err != nil {
		return Comparison{}, err
	}
	var out Comparison
	for _, p := range pairs {
		c, err := l.compare(ctx, p[0], p[1], maxRecords)
		if err != nil {
			return Comparison{}, err
		}
		out.Sources = append(out.Sources, c)
	}
	return out, nil
}

// runPairs picks the runs to compare: previous and current, by source.
func (l *Log) runPairs(ctx context.Context, q *CompareQuery) ([][2]RunInfo, error) {
	runs, err := l.Runs(ctx, q.Source)
	if err != nil {
		return nil, err
	}
	latest := Latest(runs)
	var pairs [][2]RunInfo
	for _, src := range sortedKeys(latest) {
		cur, ok := pickRun(runs, src, q.Current, runs[latest[src][0]])
		if !ok {
			continue
		}
		prev, ok := earlierRun(runs, cur)
		if q.Previous != nil {
			prev, ok = pickRun(runs, src, q.Previous, RunInfo{})
		}
		if ok && prev.Run != cur.Run {
			pairs = append(pairs, [2]RunInfo{prev, cur})
		}
	}
	if len(pairs) == 0 && q.Source != "" {
		return nil, Errorf(ENOTFOUND, "run: source %q has no two runs to compare", q.Source)
	}
	return pairs, nil
}

// pickRun returns the run of src that sel names, def when sel is nil; not
// ok when sel names none of src.
func pickRun(runs []RunInfo, src string, sel map[string]uint64, def RunInfo) (RunInfo, bool) {
	if sel == nil {
		return def, true
	}
	n, ok := sel[src]
	for _, r := range runs {
		if ok && r.Source == src && r.Run == n {
			return r, true
		}
	}
	return RunInfo{}, false
}

// earlierRun returns the run of cur's source that started last before it.
func earlierRun(runs []RunInfo, cur RunInfo) (RunInfo, bool) {
	var best RunInfo
	found := false
	for i := range runs {
		r := &runs[i]
		if r.Source == cur.Source && r.Run != cur.Run && later(&cur, r) && (!found || later(r, &best)) {
			best, found = *r, true
		}
	}
	return best, found
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// compare counts both runs and words the difference.
func (l *Log) compare(ctx context.Context, prev, cur RunInfo, maxRecords int) (RunComparison, error) {
	c := RunComparison{Source: prev.Source, Previous: prev, Current: cur}
	before, allBefore, afterCrash, capped, err := l.countRun(ctx, prev, maxRecords)
	if err != nil {
		return c, err
	}
	after, allAfter, _, capped2, err := l.countRun(ctx, cur, maxRecords)
	if err != nil {
		return c, err
	}
	c.Capped = capped || capped2
	c.Louder = elevated(allBefore, allAfter)
	for k, t := range before {
		d := Delta{Key: t.ID, Text: t.Template, Level: t.Level, Before: t.Count, ExampleID: t.ExampleID}
		if a := after[k]; a != nil {
			d.After, d.Level, d.ExampleID = a.Count, max(d.Level, a.Level), a.ExampleID
		}
		c.add(d)
	}
	for k, a := range after {
		if before[k] == nil {
			c.add(Delta{Key: a.ID, Text: a.Template, Level: a.Level, After: a.Count, ExampleID: a.ExampleID})
		}
	}
	// A new warning or error is in New already.
	c.Louder = slices.DeleteFunc(c.Louder, func(e Elevation) bool { return e.New() && after[e.Key] != nil })
	if err := l.compareCrashes(ctx, &c); err != nil {
		return c, err
	}
	c.New, c.Gone, c.Changed = dropTwins(c.New), dropTwins(c.Gone), dropTwins(c.Changed)
	counts := [3]int{len(c.New), len(c.Gone), len(c.Changed)}
	sortDeltas(&c)
	if prev.Outcome == OutcomeCrashed {
		c.FailedAfter, c.FailedRecords = prev.End.Sub(prev.Start), prev.Records-afterCrash
		c.NotYet = !cur.Ended() && c.short()
	}
	c.Verdict = c.verdict(counts)
	c.Calls, err = l.crashedCalls(ctx, c.Source)
	return c, err
}

// crashedCalls returns the call shapes over-represented in source's
// crashed runs; nil when none is, or the Store keeps no runs.
func (l *Log) crashedCalls(ctx context.Context, source string) (*Recurrence, error) {
	rec, err := CallRecurrence(ctx, l, RecurrenceQuery{Source: source})
	if ErrorCode(err) == EUNAVAILABLE {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if rec.Shapes = rec.OverRepresented(RecurTop); len(rec.Shapes) == 0 {
		return nil, nil
	}
	return &rec, nil
}

// dropTwins leaves out of ds each template that says what a crash group
// of ds says: the same record, the same counts (an uncaught exception's
// line is both a template and a crash).
func dropTwins(ds []Delta) []Delta {
	type twin struct {
		id            uint64
		before, after int
	}
	groups := map[twin]bool{}
	for _, d := range ds {
		if d.Class != "" {
			groups[twin{d.ExampleID, d.Before, d.After}] = true
		}
	}
	return slices.DeleteFunc(ds, func(d Delta) bool { return d.Class == "" && groups[twin{d.ExampleID, d.Before, d.After}] })
}

// add files d as new, gone or changed; an unchanged count is dropped.
func (c *RunComparison) add(d Delta) {
	switch {
	case d.Before == d.After:
	case d.Before == 0:
		c.New = append(c.New, d)
	case d.After == 0:
		c.Gone = append(c.Gone, d)
	default:
		c.Changed = append(c.Changed, d)
	}
}

// countRun counts the templates of run's records at level warn and above,
// by TemplateID, every template of any level (for Louder), and the records
// after its crash.
func (l *Log) countRun(ctx context.Context, run RunInfo, maxRecords int) (map[string]*TemplateCount, *counter, uint64, bool, error) {
	from, capped := run.FirstID, false
	if run.LastID-run.FirstID+1 > uint64(maxRecords) {
		from, capped = run.LastID-uint64(maxRecords)+1, true
	}
	c, all := newCounter(), newCounter()
	var afterCrash uint64
	_, err := l.scan(ctx, from, run.LastID, func(r *Record) {
		if r.Source != run.Source || r.Run != run.Run {
			return
		}
		if run.CrashID != 0 && r.ID > run.CrashID { // the exit marker after an uncaught exception too
			afterCrash++
		}
		all.add(r)
		if r.Level >= LevelWarn {
			c.add(r)
		}
	})
	byID := make(map[string]*TemplateCount, len(c.templates))
	for _, t := range c.templates {
		byID[t.ID] = t
	}
	return byID, all, afterCrash, capped, err
}

// compareCrashes adds the crash groups of both runs to c; none without a
// crash index.
func (l *Log) compareCrashes(ctx context.Context, c *RunComparison) error {
	groups := func(r RunInfo) (map[string]CrashGroup, error) {
		p, err := l.FindCrashes(ctx, CrashQuery{Runs: map[string]uint64{r.Source: r.Run}, Limit: MaxCrashLimit})
		out := make(map[string]CrashGroup, len(p.Groups))
		for _, g := range p.Groups {
			out[g.Signature] = g
		}
		return out, err
	}
	before, err := groups(c.Previous)
	if ErrorCode(err) == EUNAVAILABLE {
		return nil
	} else if err != nil {
		return err
	}
	after, err := groups(c.Current)
	if err != nil {
		return err
	}
	for sig, g := range before {
		d := Delta{Key: sig, Class: g.Class, Text: g.Title, Level: g.Level, Before: g.Count, ExampleID: g.ExampleID}
		if a, ok := after[sig]; ok {
			d.After, d.Level, d.ExampleID = a.Count, max(d.Level, a.Level), a.ExampleID
		}
		c.add(d)
	}
	for sig, a := range after {
		if _, ok := before[sig]; !ok {
			c.add(Delta{Key: sig, Class: a.Class, Text: a.Title, Level: a.Level, After: a.Count, ExampleID: a.ExampleID})
		}
	}
	return nil
}

// verdict says in one sentence how the two runs ended, from their
// outcomes (see outcome.go), with counts of the new, gone and changed
// templates and groups. A run over (exited, ended) is never too soon to
// tell; a crash after a run that was over without one is a regression.
// The table of every pair is TestLog_CompareRuns_Verdicts.
func (c *RunComparison) verdict(counts [3]int) string {
	prev, cur := &c.Previous, &c.Current
	crashPoint := fmt.Sprintf("(%s, %d records)", c.FailedAfter.Round(time.Millisecond), c.FailedRecords)
	var s string
	switch {
	case cur.Outcome == OutcomeCrashed && prev.Outcome == OutcomeCrashed:
		s = fmt.Sprintf("run %d crashed too (record %d), as run %d did (record %d)", cur.Run, cur.CrashID, prev.Run, prev.CrashID)
	case cur.Outcome == OutcomeCrashed && prev.Ended():
		s = fmt.Sprintf("regression: run %d %s, run %d crashed (record %d)", prev.Run, endedWithout(prev), cur.Run, cur.CrashID)
	case cur.Outcome == OutcomeCrashed:
		s = fmt.Sprintf("run %d crashed (record %d); run %d has not crashed, it is still running", cur.Run, cur.CrashID, prev.Run)
	case prev.Outcome != OutcomeCrashed:
		s = fmt.Sprintf("neither run crashed: run %d %s, run %d %s", prev.Run, endedWithout(prev), cur.Run, endedWithout(cur))
	case c.NotYet:
		s = fmt.Sprintf("too soon to tell: run %d crashed after %s and %d records; run %d is at %s and %d records, still running",
			prev.Run, c.FailedAfter.Round(time.Millisecond), c.FailedRecords, cur.Run, cur.Last.Sub(cur.Start).Round(time.Millisecond), cur.Records)
	case !cur.Ended():
		s = fmt.Sprintf("run %d got past the point where run %d crashed %s without crashing; it is still running", cur.Run, prev.Run, crashPoint)
	case c.endedShort():
		s = fmt.Sprintf("run %d %s after %s and %d records, before the point where run %d crashed %s: it never got that far",
			cur.Run, endedWithout(cur), cur.Last.Sub(cur.Start).Round(time.Millisecond), cur.Records, prev.Run, crashPoint)
	default:
		s = fmt.Sprintf("run %d %s, past the point where run %d crashed %s", cur.Run, endedWithout(cur), prev.Run, crashPoint)
	}
	return fmt.Sprintf("%s; %d new, %d gone, %d changed (errors, warnings and crash groups)", s, counts[0], counts[1], counts[2])
}

// short reports whether the current run is shorter, in time or in
// records, than the previous run when it crashed: while it runs, too soon
// to tell.
func (c *RunComparison) short() bool {
	cur := &c.Current
	return cur.Last.Sub(cur.Start) < c.FailedAfter || cur.Records < c.FailedRecords
}

// endedShort reports whether the current run, over, ended short of the
// point where the previous run crashed: fewer records, or less than half
// the time and a second less at least. One of as many records that took a
// few milliseconds less (a JVM or Node that printed no stack on its way
// out; a script whose run is milliseconds, half of them its start) got
// there.
func (c *RunComparison) endedShort() bool {
	cur := &c.Current
	d := cur.Last.Sub(cur.Start)
	return cur.Records < c.FailedRecords || d < c.FailedAfter/2 && c.FailedAfter-d >= time.Second
}

// endedWithout says how a run that did not crash ended, as a verdict
// words it: "exited cleanly", "ended without crashing", "is still running".
func endedWithout(r *RunInfo) string {
	switch r.Outcome {
	case OutcomeExited:
		return "exited cleanly"
	case OutcomeEnded:
		return "ended without crashing"
	}
	return "is still running"
}

func abs(n int) int { return max(n, -n) }
