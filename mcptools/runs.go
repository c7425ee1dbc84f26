package mcptools

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// store_info lists the newest infoRuns runs of at most infoRunSources
// sources (those with the newest records first).
const (
	infoRuns       = 5
	infoRunSources = 16
)

// sourceRunsOut is one source's runs in store_info.
type sourceRunsOut struct {
	Source  string   `json:"source"`
	Current uint64   `json:"current" jsonschema:"the newest run: run current"`
	Runs    []runOut `json:"runs" jsonschema:"the newest few, newest first"`
}

type runOut struct {
	Run     uint64 `json:"run"`
	Start   string `json:"start"`
	Records uint64 `json:"records"`
	Errors  uint64 `json:"errors" jsonschema:"at level error or fatal"`
	Outcome string `json:"outcome" jsonschema:"crashed, exited, ended or running"`
	CrashID uint64 `json:"crashId,omitempty" jsonschema:"the crash that ended it"`
}

// runsInfo returns store_info's runs of runs (every source's, which it
// sorts).
func runsInfo(runs []oplog.RunInfo) []sourceRunsOut {
	// Newest first by start time, as run: current picks them.
	slices.SortStableFunc(runs, func(a, b oplog.RunInfo) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), b.Start.Compare(a.Start), cmp.Compare(b.Run, a.Run))
	})
	bySource := map[string]*sourceRunsOut{}
	var order []*sourceRunsOut
	lastID := map[string]uint64{}
	for _, r := range runs {
		s := bySource[r.Source]
		if s == nil {
			s = &sourceRunsOut{Source: r.Source, Current: r.Run}
			bySource[r.Source] = s
			order = append(order, s)
		}
		lastID[r.Source] = max(lastID[r.Source], r.LastID)
		if len(s.Runs) < infoRuns {
			s.Runs = append(s.Runs, runOut{Run: r.Run, Start: formatTime(r.Start.UTC()), Records: r.Records, Errors: r.Errors,
				Outcome: r.Outcome, CrashID: r.CrashID})
		}
	}
	// The sources written to most recently first.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && lastID[order[j].Source] > lastID[order[j-1].Source]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	out := make([]sourceRunsOut, 0, min(len(order), infoRunSources))
	for _, s := range order[:min(len(order), infoRunSources)] {
		out = append(out, *s)
	}
	return out
}

// runsText is a source's runs as store_info's text block says them.
func (s *sourceRunsOut) runsText() string {
	parts := make([]string, len(s.Runs))
	for i, r := range s.Runs {
		parts[i] = fmt.Sprintf("#%d from %s: %d records, %d errors, %s", r.Run, r.Start, r.Records, r.Errors, r.Outcome)
		if r.CrashID != 0 {
			parts[i] += fmt.Sprintf(" (crash #%d)", r.CrashID)
		}
	}
	return fmt.Sprintf("runs of %s (current %d): %s", s.Source, s.Current, strings.Join(parts, "; "))
}
