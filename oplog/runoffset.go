package oplog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// runOffset reads a run offset as journalctl's -b takes it: "0" the
// current run, "-1" the one before, and so on; back counts the runs back.
func runOffset(sel string) (back int, ok bool) {
	if sel == "0" {
		return 0, true
	}
	rest, ok := strings.CutPrefix(sel, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 || strings.HasPrefix(rest, "+") {
		return 0, false
	}
	return n, true
}

// runsBack selects, of each source's runs, the one back runs before its
// newest by time (the order Latest and `mcplogd runs` use); ENOTFOUND when
// no source has that many (see noSuchRun).
func runsBack(runs []RunInfo, source, sel string, back int) (map[string]uint64, error) {
	bySource := map[string][]*RunInfo{}
	for i := range runs {
		bySource[runs[i].Source] = append(bySource[runs[i].Source], &runs[i])
	}
	out := map[string]uint64{}
	for src, rs := range bySource {
		slices.SortFunc(rs, func(a, b *RunInfo) int {
			if later(a, b) {
				return -1
			}
			if later(b, a) {
				return 1
			}
			return 0
		})
		if back < len(rs) {
			out[src] = rs[back].Run
		}
	}
	if len(out) == 0 {
		return nil, noSuchRun(runs, source, sel, back)
	}
	return out, nil
}

// noSuchRun is the ENOTFOUND of a run selector sel (as the caller wrote
// it, lower-cased) that selects none of runs, the runs of source ("" every
// source): its message names the argument and the selector first, as
// Resolve's errors do, then says which runs there are, so that the caller
// can pick one: "run 7: no source has a run 7 (runs go from 1 to 3)",
// `run previous: source "game" has no previous run (its only run is 1)`,
// "run -3: no source has a run at offset -3 (offsets go from 0 to -2)".
// back is the offset's runs back, when sel is one.
func noSuchRun(runs []RunInfo, source, sel string, back int) error {
	who, has := "no source", "has a"
	if source != "" {
		who, has = "source "+strconv.Quote(source), "has no"
	}
	if len(runs) == 0 {
		if source == "" {
			return Errorf(ENOTFOUND, "run %s: no source has any run yet", sel)
		}
		return Errorf(ENOTFOUND, "run %s: %s has no runs", sel, who)
	}
	lo, hi, most := runs[0].Run, runs[0].Run, 0
	count := map[string]int{}
	for _, r := range runs {
		lo, hi = min(lo, r.Run), max(hi, r.Run)
		count[r.Source]++
		most = max(most, count[r.Source])
	}
	its, the := "", "the"
	if source != "" {
		its, the = "its ", "its"
	}
	var what, which string
	_, isOffset := runOffset(sel)
	switch {
	case isOffset:
		what, which = "run at offset -"+strconv.Itoa(back), fmt.Sprintf("offsets go from 0 to -%d", most-1)
		if most == 1 {
			which = "the only offset is 0"
		}
	case sel == "previous":
		what, which = "previous run", "each source has one run"
		if source != "" {
			which = fmt.Sprintf("its only run is %d", lo)
		}
	default:
		what, which = "run "+sel, fmt.Sprintf("%sruns go from %d to %d", its, lo, hi)
		if lo == hi {
			which = fmt.Sprintf("%s only run is %d", the, lo)
		}
	}
	return Errorf(ENOTFOUND, "run %s: %s %s %s (%s)", sel, who, has, what, which)
}
