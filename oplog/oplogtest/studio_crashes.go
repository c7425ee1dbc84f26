package oplogtest

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/oplog"
)

// crashKey is a signature on one machine: what Client's stats query
// counts by.
type crashKey struct{ sig, machine string }

// crashStats are the counts of one signature on one machine, and its
// oldest and newest rows (the first of the oldest, the first of the
// newest, as row_min and row_max keep them).
type crashStats struct {
	n, fatal       int
	sources        []string
	oldest, newest *studioRow
}

// FindCrashes groups the rows with a signature by signature across
// machines, counted per machine and summed, as Client does.
func (s *Studio) FindCrashes(ctx context.Context, q oplog.StudioCrashQuery) (oplog.StudioCrashPage, error) {
	n, err := oplog.CheckLimit("limit", q.Limit, oplog.DefaultCrashLimit, oplog.MaxCrashLimit)
	if err != nil {
		return oplog.StudioCrashPage{}, err
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Until.After(q.Since) {
		return oplog.StudioCrashPage{}, oplog.Errorf(oplog.EINVALID, "until: must be after since")
	}
	for _, cl := range q.Classes {
		if !slices.Contains(oplog.CrashClasses, cl) {
			return oplog.StudioCrashPage{}, oplog.Errorf(oplog.EINVALID, "class: want crash, error or compile, got %q", cl)
		}
	}
	switch q.MinLevel {
	case 0, oplog.LevelError, oplog.LevelFatal:
	default:
		return oplog.StudioCrashPage{}, oplog.Errorf(oplog.EINVALID, "level: crashes are at level error or fatal, got %s", q.MinLevel)
	}
	if err := ctx.Err(); err != nil {
		return oplog.StudioCrashPage{}, err
	}
	rows := s.snapshot()
	stats := map[crashKey]*crashStats{}
	for _, r := range rows {
		if r.Signature == "" || !r.inStream(q.Machine, q.Source) || !r.inTime(q.Since, q.Until) ||
			q.MinLevel == oplog.LevelFatal && r.level != "fatal" {
			continue
		}
		k := crashKey{r.Signature, r.Machine}
		st := stats[k]
		if st == nil {
			st = &crashStats{oldest: r, newest: r}
			stats[k] = st
		}
		st.n++
		if r.level == "fatal" {
			st.fatal++
		}
		st.sources = append(st.sources, r.Record.Source)
		if r.rec.Time.Before(st.oldest.rec.Time) {
			st.oldest = r
		}
		if r.rec.Time.After(st.newest.rec.Time) {
			st.newest = r
		}
	}
	groups, newest := sumCrashes(stats)
	ended := runsEnded(rows, q)
	out := oplog.StudioCrashPage{}
	for sig, g := range groups {
		g.RunsEnded = ended[sig]
		slices.SortFunc(g.Machines, func(a, b oplog.MachineCount) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Machine, b.Machine))
		})
		slices.Sort(g.Sources)
		g.Sources = slices.Compact(g.Sources)
		nr := newest[sig]
		g.Title, g.Frames, g.LastFrames = s.opts.Describe(nr.rec.Text, nr.rec.Stack)
		g.Class = oplog.ClassError
		switch { // as the local index's classOf
		case g.RunsEnded > 0:
			g.Class = oplog.ClassCrash
		case s.opts.IsCompile(nr.rec.Name, nr.rec.Text):
			g.Class = oplog.ClassCompile
		case g.Level == oplog.LevelFatal:
			g.Class = oplog.ClassCrash
		}
		if oplog.WantedClass(q.Classes, g.Class) {
			out.Groups = append(out.Groups, *g)
		}
	}
	out.Total = len(out.Groups)
	oplog.SortStudioCrashGroups(out.Groups)
	out.Groups = out.Groups[:min(n, len(out.Groups))]
	return out, nil
}

// sumCrashes sums each signature's counts over its machines (in the
// order of their names) into a group, as Client's addCrashRow does, and
// returns the groups with each one's newest row.
func sumCrashes(stats map[crashKey]*crashStats) (map[string]*oplog.StudioCrashGroup, map[string]*studioRow) {
	keys := make([]crashKey, 0, len(stats))
	for k := range stats {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b crashKey) int {
		return cmp.Or(strings.Compare(a.sig, b.sig), strings.Compare(a.machine, b.machine))
	})
	groups := map[string]*oplog.StudioCrashGroup{}
	newest := map[string]*studioRow{}
	for _, k := range keys {
		st := stats[k]
		g := groups[k.sig]
		if g == nil {
			g = &oplog.StudioCrashGroup{CrashGroup: oplog.CrashGroup{Signature: k.sig}}
			groups[k.sig] = g
		}
		g.Count += st.n
		g.Level = max(g.Level, oplog.LevelError)
		if st.fatal > 0 {
			g.Level = oplog.LevelFatal
		}
		g.Machines = append(g.Machines, oplog.MachineCount{Machine: k.machine, Count: st.n})
		g.Sources = append(g.Sources, st.sources...)
		if first := st.oldest.rec.Time; g.FirstSeen.IsZero() || first.Before(g.FirstSeen) {
			g.FirstSeen, g.FirstMachine, g.ExampleID = first, k.machine, st.oldest.Record.ID
		}
		if last := st.newest.rec.Time; last.After(g.LastSeen) || g.LastSeen.IsZero() {
			g.LastSeen, g.LastMachine, g.LastID = last, k.machine, st.newest.Record.ID
			newest[k.sig] = st.newest
		}
	}
	return groups, newest
}

// runKey is a run of a machine's source, in one revision of its log.
type runKey struct {
	machine, source string
	revision, run   uint64
}

// runsEnded counts, per signature, the runs (of a machine's source) whose
// first crash it is: the first fatal row of the run with a signature, or
// an exit marker that crashed it (at level error), as Client counts them.
func runsEnded(rows []*studioRow, q oplog.StudioCrashQuery) map[string]int {
	first := map[runKey]*studioRow{}
	var order []runKey
	for _, r := range rows {
		if r.Record.Run == 0 || r.Signature == "" || !r.inStream(q.Machine, q.Source) || !r.inTime(q.Since, q.Until) ||
			r.level != "fatal" && !(r.kind == "marker" && r.Record.Name == "exit" && r.level == "error") {
			continue
		}
		k := runKey{r.Machine, r.Record.Source, r.Revision, r.Record.Run}
		if f := first[k]; f == nil {
			order = append(order, k)
			first[k] = r
		} else if r.rec.Time.Before(f.rec.Time) {
			first[k] = r
		}
	}
	out := map[string]int{}
	for _, k := range order {
		out[first[k].Signature]++
	}
	return out
}

// Names lists log names per machine and source with counts per kind and
// level: lines and markers counted as rows, operations once each, at
// their newest row's level.
func (s *Studio) Names(ctx context.Context, source, machine string) ([]oplog.StudioNameInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var lines, ops []*studioRow
	for _, r := range s.snapshot() {
		switch {
		case !r.inStream(machine, source):
		case r.kind == "op":
			ops = append(ops, r)
		default:
			lines = append(lines, r)
		}
	}
	byKey := map[[3]string]*oplog.StudioNameInfo{}
	for _, r := range append(lines, lastBySeq(ops)...) {
		k := [3]string{r.Machine, r.Record.Source, r.Record.Name}
		ni := byKey[k]
		if ni == nil {
			ni = &oplog.StudioNameInfo{Machine: k[0], NameInfo: oplog.NameInfo{Source: k[1], Name: k[2], FirstSeen: r.rec.Time, LastSeen: r.rec.Time}}
			byKey[k] = ni
		}
		kind, _ := oplog.ParseKind(r.kind)
		level, _ := oplog.ParseLevel(r.level)
		if kind != 0 && level != 0 {
			ni.Counts[kind][level]++
		}
		ni.Total++
		if t := r.rec.Time; t.Before(ni.FirstSeen) {
			ni.FirstSeen = t
		}
		if t := r.rec.Time; t.After(ni.LastSeen) {
			ni.LastSeen = t
		}
	}
	out := make([]oplog.StudioNameInfo, 0, len(byKey))
	for _, ni := range byKey {
		out = append(out, *ni)
	}
	slices.SortFunc(out, func(a, b oplog.StudioNameInfo) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Name, b.Name), strings.Compare(a.Machine, b.Machine))
	})
	return out, nil
}
