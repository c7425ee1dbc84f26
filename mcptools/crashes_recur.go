package mcptools

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Recurrence across runs: which call shapes (the tool and its arguments'
// names, oplog.RecordTemplate) were in flight when this crash ended a run
// of its source, or among the last calls before it, in how many of the
// runs it ended, against the source's runs that ended without a crash (in
// flight when they ended, or among their last calls):
//
//	spawn_enemy {count} in flight in 2 of 2 crashed runs, 0 of 1 clean
//
// A call shape in flight in every crashed run and in no clean one is the
// call to look at first.

const (
	// recurRuns is how many of the source's newest ended runs are read.
	recurRuns = 20
	// recurLines is how many call shapes the answer names.
	recurLines = 3
)

// shapeCount counts a call shape's runs: in flight at the crash (or the
// clean end), among the last calls before it, in crashed and clean runs.
type shapeCount struct {
	shape                  string
	flightCrash, lastCrash int
	flightClean, lastClean int
}

// addRecurrence gives g the call shapes of the runs g's crash ended
// (among source's newest recurRuns ended runs) against the clean ones.
// Nothing when the store keeps no runs or no call was in any of them.
func (t *toolset) addRecurrence(ctx context.Context, g *crashGroupOut, cg *oplog.CrashGroup, source string) error {
	runs, err := t.log.Runs(ctx, source)
	if oplog.ErrorCode(err) == oplog.EUNAVAILABLE {
		return nil
	}
	if err != nil {
		return err
	}
	var crashed, clean int
	counts := map[string]*shapeCount{}
	count := func(shapes map[string]bool, inFlight bool, crash bool) {
		for s := range shapes {
			c := counts[s]
			if c == nil {
				c = &shapeCount{shape: s}
				counts[s] = c
			}
			switch {
			case inFlight && crash:
				c.flightCrash++
			case inFlight:
				c.flightClean++
			case crash:
				c.lastCrash++
			default:
				c.lastClean++
			}
		}
	}
	seen := 0
	for i := len(runs) - 1; i >= 0 && seen < recurRuns; i-- {
		r := &runs[i]
		if r.Source != source || r.Outcome == oplog.OutcomeRunning {
			continue
		}
		seen++
		var at time.Time
		var before uint64
		isCrash := r.Outcome == oplog.OutcomeCrashed && r.CrashID > 0
		if isCrash {
			mine, err := t.endedBy(ctx, r, cg.Signature)
			if err != nil {
				return err
			}
			if !mine {
				continue // another crash ended it: neither this crash's nor clean
			}
			c, err := t.log.Get(ctx, r.CrashID)
			if err != nil {
				continue // retention took it
			}
			at, before = c.Time, c.ID
			crashed++
		} else {
			at, before = r.End, r.LastID+1
			if at.IsZero() {
				at = r.Last
			}
			clean++
		}
		flight, last, err := t.callShapes(ctx, r, at, before)
		if err != nil {
			return err
		}
		count(flight, true, isCrash)
		count(last, false, isCrash)
	}
	if crashed > 0 {
		g.Recurrence = recurrenceLines(counts, crashed, clean)
	}
	return nil
}

// recurrenceLines says the recurLines call shapes most tied to the crash
// (in flight in more of its runs than of the clean ones, then among the
// last calls), out of crashed and clean runs.
func recurrenceLines(counts map[string]*shapeCount, crashed, clean int) []string {
	list := slices.Collect(maps.Values(counts))
	slices.SortFunc(list, func(a, b *shapeCount) int {
		return cmp.Or(cmp.Compare(b.flightCrash-b.flightClean, a.flightCrash-a.flightClean),
			cmp.Compare(b.lastCrash-b.lastClean, a.lastCrash-a.lastClean), cmp.Compare(a.shape, b.shape))
	})
	var out []string
	for _, c := range list[:min(len(list), recurLines)] {
		s := fmt.Sprintf("%s in flight in %d of %d crashed runs, %d of %d clean", c.shape, c.flightCrash, crashed, c.flightClean, clean)
		if c.lastCrash+c.lastClean > 0 {
			s += fmt.Sprintf("; among the last calls in %d of %d crashed, %d of %d clean", c.lastCrash, crashed, c.lastClean, clean)
		}
		out = append(out, s)
	}
	return out
}

// endedBy reports whether the crash that ended r is of the group with
// signature sig.
func (t *toolset) endedBy(ctx context.Context, r *oplog.RunInfo, sig string) (bool, error) {
	p, err := t.log.FindCrashes(ctx, oplog.CrashQuery{Runs: map[string]uint64{r.Source: r.Run}, Limit: 1,
		Classes: []string{oplog.ClassCrash, oplog.ClassError}})
	if err != nil {
		return false, err
	}
	return len(p.Groups) > 0 && p.Groups[0].Signature == sig && p.Groups[0].RunsEnded > 0, nil
}

// callShapes returns the shapes of r's calls recorded before the record
// ID before that were in flight at at, and of the last crashCalls that
// ended before it.
func (t *toolset) callShapes(ctx context.Context, r *oplog.RunInfo, at time.Time, before uint64) (flight, last map[string]bool, err error) {
	p, err := t.log.List(ctx, oplog.Query{Filter: oplog.Filter{Source: r.Source, Kind: oplog.KindOp,
		Runs: map[string]uint64{r.Source: r.Run}}, Count: crashCallsRead, Before: before})
	if err != nil {
		return nil, nil, err
	}
	flight, last = map[string]bool{}, map[string]bool{}
	ended := 0
	for i := range p.Records { // newest first
		c := &p.Records[i]
		switch {
		case c.StartTime.After(at):
		case c.Status == oplog.StatusCrashed || !c.IsComplete() || !c.EndTime.Before(at):
			flight[oplog.RecordTemplate(c)] = true
		case ended < crashCalls:
			last[oplog.RecordTemplate(c)] = true
			ended++
		}
	}
	return flight, last, nil
}
