package oplog

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// Calls by shape. A call shape is an operation's RecordTemplate: the tool
// and its arguments' names, values blanked ("spawn_enemy {count}"). Two
// questions are asked of them:
//
// Recurrence across runs (CallRecurrence): which shapes were in flight
// when a crash ended a run of a source, or among the last calls before
// it, in how many of its crashed runs, against its runs that ended
// without a crash (in flight when they ended, or among their last calls):
//
//	spawn_enemy {count} in flight in 2 of 2 crashed runs, 0 of 1 clean
//
// A shape in flight in every crashed run and in no clean one is the call
// to look at first. find_crashes {limit: 1} asks it of one crash group,
// compare_runs (RunComparison.Calls) of every crash of the source.
//
// Counts (CountCalls): how often each shape was called in a range, and
// how many of those calls crashed or failed; log_stats asks it.

// Limits of the calls by shape.
const (
	// RecurRuns is how many of a source's newest ended runs
	// CallRecurrence reads when the query names no number.
	RecurRuns = 20
	// RecurCallsRead is how many of a run's calls before its crash (or
	// its end) CallRecurrence reads to find those in flight and the last.
	RecurCallsRead = 16
	// RecurLastCalls is how many of the calls that ended before the crash
	// (or the end) count as its last calls.
	RecurLastCalls = 3
	// RecurTop is how many over-represented shapes a comparison names.
	RecurTop = 3
	// MaxCallsRead is how many calls CallCounts reads at most, the newest.
	MaxCallsRead = 20_000
)

// RecurrenceQuery asks which call shapes recur in a source's crashed runs
// against its clean ones.
type RecurrenceQuery struct {
	// Source is the source whose runs are read; required.
	Source string
	// Signature, when set, counts as crashed only the runs a crash of
	// that group ended; a run another crash ended is left out, neither
	// crashed nor clean. Empty: every crashed run counts.
	Signature string
	// Runs is how many of the source's newest ended runs are read (runs
	// left out by Signature among them); RecurRuns when zero.
	Runs int
}

// Recurrence is CallRecurrence's answer: the shapes of the calls of the
// runs read, most tied to their crashes first (see Tied).
type Recurrence struct {
	Crashed int               `json:"crashed"` // crashed runs read
	Clean   int               `json:"clean"`   // runs read that ended without a crash
	Shapes  []ShapeRecurrence `json:"shapes"`
}

// ShapeRecurrence is a call shape counted over runs: those where a call of
// it was in flight at the crash (or the clean end), and those where one
// was among the RecurLastCalls calls that ended before it.
type ShapeRecurrence struct {
	Shape           string `json:"shape"`
	InFlightCrashed int    `json:"inFlightCrashed"`
	InFlightClean   int    `json:"inFlightClean"`
	LastCrashed     int    `json:"lastCrashed,omitempty"`
	LastClean       int    `json:"lastClean,omitempty"`
}

// CallReader is what CallRecurrence and CountCalls read: a *Log, or an
// adapter's view of one (mcptools' Backend over a running server's API).
type CallReader interface {
	Runs(ctx context.Context, source string) ([]RunInfo, error)
	Get(ctx context.Context, id uint64) (Record, error)
	List(ctx context.Context, q Query) (Page, error)
	FindCrashes(ctx context.Context, q CrashQuery) (CrashPage, error)
}

var _ CallReader = (*Log)(nil)

// CallRecurrence counts the call shapes of q.Source's newest ended runs
// in src, crashed against clean (see RecurrenceQuery). No Shapes when no
// call was in any of them; EUNAVAILABLE when the Store keeps no runs, or
// with a Signature when the Log has no crash index; EINVALID without a
// Source.
func CallRecurrence(ctx context.Context, src CallReader, q RecurrenceQuery) (Recurrence, error) {
	var out Recurrence
	if q.Source == "" {
		return out, Errorf(EINVALID, "source: call recurrence is counted over one source's runs")
	}
	runs, err := src.Runs(ctx, q.Source)
	if err != nil {
		return out, err
	}
	counts := map[string]*ShapeRecurrence{}
	seen := 0
	for i := len(runs) - 1; i >= 0 && seen < cmp.Or(q.Runs, RecurRuns); i-- {
		r := &runs[i]
		if r.Source != q.Source || !r.Ended() {
			continue
		}
		seen++
		at, before, crashed, ok, err := runEndPoint(ctx, src, r, q.Signature)
		if err != nil {
			return out, err
		} else if !ok {
			continue
		}
		flight, last, err := callShapes(ctx, src, r, at, before)
		if err != nil {
			return out, err
		}
		if crashed {
			out.Crashed++
		} else {
			out.Clean++
		}
		countShapes(counts, flight, last, crashed)
	}
	for _, c := range counts {
		out.Shapes = append(out.Shapes, *c)
	}
	slices.SortFunc(out.Shapes, func(a, b ShapeRecurrence) int {
		fa, la := out.Tied(&a)
		fb, lb := out.Tied(&b)
		return cmp.Or(cmp.Compare(fb, fa), cmp.Compare(lb, la), cmp.Compare(a.Shape, b.Shape))
	})
	return out, nil
}

// runEndPoint returns where r's calls are looked at: the crash's time and
// ID for a crashed run, the end's and the run's last ID + 1 for a clean
// one. Not ok when r is neither: another group's crash (with sig), a crash
// record retention took, or a crashed run without one.
func runEndPoint(ctx context.Context, src CallReader, r *RunInfo, sig string) (at time.Time, before uint64, crashed, ok bool, err error) {
	if r.Outcome != OutcomeCrashed {
		at = r.End
		if at.IsZero() {
			at = r.Last
		}
		return at, r.LastID + 1, false, true, nil
	}
	if r.CrashID == 0 {
		return at, 0, true, false, nil
	}
	if sig != "" {
		p, err := src.FindCrashes(ctx, CrashQuery{Runs: map[string]uint64{r.Source: r.Run}, Limit: 1, Classes: []string{ClassCrash, ClassError}})
		if err != nil {
			return at, 0, true, false, err
		}
		if len(p.Groups) == 0 || p.Groups[0].Signature != sig || p.Groups[0].RunsEnded == 0 {
			return at, 0, true, false, nil // another crash ended it: neither this crash's nor clean
		}
	}
	c, err := src.Get(ctx, r.CrashID)
	if err != nil {
		return at, 0, true, false, nil // retention took it
	}
	return c.Time, c.ID, true, true, nil
}

// callShapes returns the shapes of r's calls recorded before the record
// ID before that were in flight at at, and of the last RecurLastCalls
// that ended before it (CallAtCrash).
func callShapes(ctx context.Context, src CallReader, r *RunInfo, at time.Time, before uint64) (flight, last map[string]bool, err error) {
	p, err := src.List(ctx, Query{Filter: Filter{Source: r.Source, Kind: KindOp, Runs: map[string]uint64{r.Source: r.Run}},
		Count: RecurCallsRead, Before: before})
	if err != nil {
		return nil, nil, err
	}
	flight, last = map[string]bool{}, map[string]bool{}
	ended := 0
	for i := range p.Records { // newest first
		c := &p.Records[i]
		switch inFlight, endedBefore := CallAtCrash(c, at); {
		case inFlight:
			flight[RecordTemplate(c)] = true
		case endedBefore && ended < RecurLastCalls:
			last[RecordTemplate(c)] = true
			ended++
		}
	}
	return flight, last, nil
}

// CallAtCrash says where c, a call recorded before a crash at time at,
// stood when it struck: in flight, or ended before it (neither: it started
// after it by its clock, as a call recorded while a followed log's crash
// was still being read). A call the crash completed as crashed was in
// flight, whatever its times say: the Log found it pending when the crash
// was recorded, and a crash's time may be early (a record's is its first
// line's; a log's clock may say only the second).
func CallAtCrash(c *Record, at time.Time) (inFlight, endedBefore bool) {
	switch {
	case c.Status == StatusCrashed:
		return true, false
	case c.StartTime.After(at):
		return false, false
	case !c.IsComplete() || !c.EndTime.Before(at):
		return true, false
	}
	return false, true
}

// countShapes counts a run's shapes, in flight and last, into counts.
func countShapes(counts map[string]*ShapeRecurrence, flight, last map[string]bool, crashed bool) {
	get := func(s string) *ShapeRecurrence {
		c := counts[s]
		if c == nil {
			c = &ShapeRecurrence{Shape: s}
			counts[s] = c
		}
		return c
	}
	for s := range flight {
		if c := get(s); crashed {
			c.InFlightCrashed++
		} else {
			c.InFlightClean++
		}
	}
	for s := range last {
		if c := get(s); crashed {
			c.LastCrashed++
		} else {
			c.LastClean++
		}
	}
}

// Tied says how much more often s was in flight, and among the last
// calls, in the crashed runs than in the clean ones: the share of the
// crashed runs less the share of the clean ones (a share of no runs is
// 0), each from -1 to 1.
func (r *Recurrence) Tied(s *ShapeRecurrence) (inFlight, last float64) {
	share := func(n, of int) float64 {
		if of == 0 {
			return 0
		}
		return float64(n) / float64(of)
	}
	return share(s.InFlightCrashed, r.Crashed) - share(s.InFlightClean, r.Clean),
		share(s.LastCrashed, r.Crashed) - share(s.LastClean, r.Clean)
}

// overShare is how much larger a shape's share of the crashed runs must be
// than its share of the clean ones for OverRepresented to name it: half
// of the runs, so one crash and one clean run tell it only when the call
// was in flight at the crash and not at the clean end.
const overShare = 0.5

// OverRepresented returns the shapes (at most n, most tied first) in
// flight in a share of the crashed runs at least overShare larger than
// their share of the clean runs; none without a crashed run. Being among
// the last calls is not enough: those calls were answered, and the last
// few calls before any end differ from run to run.
func (r *Recurrence) OverRepresented(n int) []ShapeRecurrence {
	var out []ShapeRecurrence
	for i := range r.Shapes {
		if f, _ := r.Tied(&r.Shapes[i]); r.Crashed > 0 && f >= overShare && len(out) < n {
			out = append(out, r.Shapes[i])
		}
	}
	return out
}

// Line says s in one line, out of r's runs: "spawn_enemy {count} in
// flight in 2 of 2 crashed runs, 0 of 1 clean", and "; among the last
// calls in 0 of 2 crashed, 1 of 1 clean" when it was among them.
func (r *Recurrence) Line(s *ShapeRecurrence) string {
	line := fmt.Sprintf("%s in flight in %d of %d crashed runs, %d of %d clean", s.Shape, s.InFlightCrashed, r.Crashed, s.InFlightClean, r.Clean)
	if s.LastCrashed+s.LastClean > 0 {
		line += fmt.Sprintf("; among the last calls in %d of %d crashed, %d of %d clean", s.LastCrashed, r.Crashed, s.LastClean, r.Clean)
	}
	return line
}

// CallCountQuery asks CountCalls for the call shapes of the operations Filter keeps
// (its Kind is set to KindOp) with IDs from FirstID to LastID.
type CallCountQuery struct {
	Filter
	// FirstID and LastID bound the IDs read; zero: no bound.
	FirstID, LastID uint64
	// Top is how many shapes the answer lists, the most called first;
	// DigestTop when zero.
	Top int
}

// CallCounts is CountCalls' answer.
type CallCounts struct {
	Shapes []CallCount `json:"shapes"`
	// Calls counts the calls read; Capped says more than MaxCallsRead
	// matched: only the newest were read.
	Calls  int  `json:"calls"`
	Capped bool `json:"capped,omitempty"`
}

// CallCount is a call shape and the calls that have it.
type CallCount struct {
	Shape string `json:"shape"`
	Count int    `json:"count"`
	// Crashed counts those its run's crash ended (StatusCrashed); Failed
	// those that ended in an error or a timeout.
	Crashed int `json:"crashed,omitempty"`
	Failed  int `json:"failed,omitempty"`
	// ExampleID is its newest call.
	ExampleID uint64 `json:"exampleId"`
}

// CountCalls counts the calls of src that q keeps by shape, newest first,
// at most MaxCallsRead of them. Errors of src pass through.
func CountCalls(ctx context.Context, src CallReader, q CallCountQuery) (CallCounts, error) {
	var out CallCounts
	f := q.Filter
	f.Kind = KindOp
	lq := Query{Filter: f, Count: MaxListCount}
	if q.LastID > 0 {
		lq.Before = q.LastID + 1
	}
	counts := map[string]*CallCount{}
	for {
		p, err := src.List(ctx, lq)
		if err != nil {
			return out, err
		}
		for i := range p.Records {
			r := &p.Records[i]
			if r.ID < q.FirstID {
				p.More = false
				break
			}
			if out.Calls == MaxCallsRead {
				out.Capped = true
				break
			}
			out.Calls++
			countCall(counts, r)
		}
		if !p.More || len(p.Records) == 0 || out.Capped {
			break
		}
		lq.Before = p.Records[len(p.Records)-1].ID
	}
	for _, c := range counts {
		out.Shapes = append(out.Shapes, *c)
	}
	slices.SortFunc(out.Shapes, func(a, b CallCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(b.Crashed, a.Crashed), cmp.Compare(b.Failed, a.Failed), cmp.Compare(a.Shape, b.Shape))
	})
	out.Shapes = out.Shapes[:min(len(out.Shapes), cmp.Or(q.Top, DigestTop))]
	return out, nil
}

// countCall counts r, a call read newest first, by its shape.
func countCall(counts map[string]*CallCount, r *Record) {
	shape := RecordTemplate(r)
	c := counts[shape]
	if c == nil {
		c = &CallCount{Shape: shape, ExampleID: r.ID}
		counts[shape] = c
	}
	c.Count++
	switch r.Status {
	case StatusCrashed:
		c.Crashed++
	case StatusError, StatusTimeout:
		c.Failed++
	}
}
