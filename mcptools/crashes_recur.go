package mcptools

import (
	"context"

	"github.com/mcplogd/mcplogd/oplog"
)

// Recurrence across runs: which call shapes (the tool and its arguments'
// names, oplog.RecordTemplate) were in flight when this crash ended a run
// of its source, or among the last calls before it, in how many of the
// runs it ended, against the source's runs that ended without a crash
// (oplog.CallRecurrence, which compare_runs asks too):
//
//	spawn_enemy {count} in flight in 2 of 2 crashed runs, 0 of 1 clean
//
// A call shape in flight in every crashed run and in no clean one is the
// call to look at first.

// recurLines is how many call shapes the answer names.
const recurLines = 3

// addRecurrence gives g the call shapes of the runs g's crash ended
// (among source's newest oplog.RecurRuns ended runs) against the clean
// ones. Nothing when the store keeps no runs or no call was in any of them.
func (t *toolset) addRecurrence(ctx context.Context, g *crashGroupOut, cg *oplog.CrashGroup, source string) error {
	rec, err := oplog.CallRecurrence(ctx, t.log, oplog.RecurrenceQuery{Source: source, Signature: cg.Signature})
	if oplog.ErrorCode(err) == oplog.EUNAVAILABLE {
		return nil
	}
	if err != nil || rec.Crashed == 0 {
		return err
	}
	g.Recurrence = recurrenceLines(&rec, rec.Shapes[:min(len(rec.Shapes), recurLines)])
	return nil
}

// recurrenceLines says shapes, each in one line out of rec's runs, its
// shape clipped to summaryTextRunes.
func recurrenceLines(rec *oplog.Recurrence, shapes []oplog.ShapeRecurrence) []string {
	var out []string
	for _, s := range shapes {
		s.Shape = clipSummary(s.Shape)
		out = append(out, rec.Line(&s))
	}
	return out
}
