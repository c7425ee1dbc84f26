package oplog

import (
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
// no source has that many.
func runsBack(runs []RunInfo, source string, back int) (map[string]uint64, error) {
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
		what := "source " + strconv.Quote(source)
		if source == "" {
			what = "any source"
		}
		if back == 0 {
			return nil, Errorf(ENOTFOUND, "run: %s has no runs", what)
		}
		return nil, Errorf(ENOTFOUND, "run: %s has no run at offset -%d", what, back)
	}
	return out, nil
}
