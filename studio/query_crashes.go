package studio

import (
	gocmp "cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// FindCrashes groups the rows with a signature by signature across
// machines: one stats query counts them per signature and machine, with
// the oldest and newest occurrence of each; the groups are summed here.
func (c *Client) FindCrashes(ctx context.Context, q oplog.StudioCrashQuery) (oplog.StudioCrashPage, error) {
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
	levels := `signature:*`
	switch q.MinLevel {
	case 0, oplog.LevelError:
	case oplog.LevelFatal:
		levels = `signature:* level:=fatal`
	default:
		return oplog.StudioCrashPage{}, oplog.Errorf(oplog.EINVALID, "level: crashes are at level error or fatal, got %s", q.MinLevel)
	}
	filter := and(streamFilter(c.opts.Project, q.Machine, q.Source), levels, timeLogsQL(q.Since, q.Until))
	query := filter + " | stats by (signature, machine) count() as n, count() if (level:=fatal) as fatal, min(_time) as first, max(_time) as last," +
		" uniq_values(source) as sources, row_min(_time, id) as oldest, row_max(_time, id, _msg, stack, name) as newest"
	groups := map[string]*oplog.StudioCrashGroup{}
	newest := map[string]row{}
	err = c.query(ctx, query, func(r row) error {
		c.addCrashRow(groups, newest, r)
		return nil
	})
	if err != nil {
		return oplog.StudioCrashPage{}, err
	}
	ended, err := c.runsEnded(ctx, and(streamFilter(c.opts.Project, q.Machine, q.Source), timeLogsQL(q.Since, q.Until)))
	if err != nil {
		return oplog.StudioCrashPage{}, err
	}
	out := oplog.StudioCrashPage{Total: len(groups)}
	for sig, g := range groups {
		g.RunsEnded = ended[sig]
		slices.SortFunc(g.Machines, func(a, b oplog.MachineCount) int {
			return gocmp.Or(gocmp.Compare(b.Count, a.Count), strings.Compare(a.Machine, b.Machine))
		})
		slices.Sort(g.Sources)
		g.Sources = slices.Compact(g.Sources)
		nr := newest[sig]
		g.Title, g.Frames, g.LastFrames = crash.Describe(nr["_msg"], nr["stack"])
		g.Class = oplog.ClassError
		switch { // as the local index's classOf
		case g.RunsEnded > 0:
			g.Class = oplog.ClassCrash
		case crash.IsCompile(nr["name"], nr["_msg"]):
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

// runsEnded counts, per signature, the runs (of a machine's source) whose
// first crash it is: the first fatal row of the run, or an exit marker
// that crashed it, as each machine's store decides (oplog's outcome.go).
func (c *Client) runsEnded(ctx context.Context, filter string) (map[string]int, error) {
	query := and(filter, `run:* signature:* (level:=fatal OR (kind:=marker name:=exit level:=error))`) +
		" | stats by (machine, source, revision, run) row_min(_time, signature) as first"
	out := map[string]int{}
	err := c.query(ctx, query, func(r row) error {
		if sig := jsonRow(r["first"])["signature"]; sig != "" {
			out[sig]++
		}
		return nil
	})
	return out, err
}

// addCrashRow adds one machine's counts of a signature to its group.
func (c *Client) addCrashRow(groups map[string]*oplog.StudioCrashGroup, newest map[string]row, r row) {
	sig := r["signature"]
	g := groups[sig]
	if g == nil {
		g = &oplog.StudioCrashGroup{CrashGroup: oplog.CrashGroup{Signature: sig}}
		groups[sig] = g
	}
	count := int(r.num("n"))
	first, last := r.time("first"), r.time("last")
	g.Count += count
	g.Level = max(g.Level, oplog.LevelError)
	if r.num("fatal") > 0 {
		g.Level = oplog.LevelFatal
	}
	g.Machines = append(g.Machines, oplog.MachineCount{Machine: r["machine"], Count: count})
	var sources []string
	_ = json.Unmarshal([]byte(r["sources"]), &sources)
	g.Sources = append(g.Sources, sources...)
	if g.FirstSeen.IsZero() || first.Before(g.FirstSeen) {
		g.FirstSeen, g.FirstMachine = first, r["machine"]
		g.ExampleID = jsonRow(r["oldest"]).num("id")
	}
	if last.After(g.LastSeen) || g.LastSeen.IsZero() {
		g.LastSeen, g.LastMachine = last, r["machine"]
		nr := jsonRow(r["newest"])
		g.LastID = nr.num("id")
		newest[sig] = nr
	}
}

// jsonRow decodes the JSON object that row_min and row_max answer.
func jsonRow(s string) row {
	r := row{}
	_ = json.Unmarshal([]byte(s), &r)
	return r
}

// Names lists log names per machine and source with counts per kind and
// level: lines and markers counted as rows, operations once each, at
// their newest row's level.
func (c *Client) Names(ctx context.Context, source, machine string) ([]oplog.StudioNameInfo, error) {
	base := streamFilter(c.opts.Project, machine, source)
	stats := " | stats by (machine, source, name, kind, level) count() as n, min(_time) as first, max(_time) as last"
	byKey := map[[3]string]*oplog.StudioNameInfo{}
	add := func(r row) error {
		k := [3]string{r["machine"], r["source"], r["name"]}
		ni := byKey[k]
		if ni == nil {
			ni = &oplog.StudioNameInfo{Machine: k[0], NameInfo: oplog.NameInfo{Source: k[1], Name: k[2]}}
			byKey[k] = ni
		}
		kind, _ := oplog.ParseKind(r["kind"])
		level, _ := oplog.ParseLevel(r["level"])
		n := r.num("n")
		if kind != 0 && level != 0 {
			ni.Counts[kind][level] += n
		}
		ni.Total += n
		if first := r.time("first"); ni.FirstSeen.IsZero() || first.Before(ni.FirstSeen) {
			ni.FirstSeen = first
		}
		if last := r.time("last"); last.After(ni.LastSeen) {
			ni.LastSeen = last
		}
		return nil
	}
	if err := c.query(ctx, base+" -kind:=op"+stats, add); err != nil {
		return nil, err
	}
	ops := base + " kind:=op | last 1 by (seq) partition by (machine, revision, id)" + stats
	if err := c.query(ctx, ops, add); err != nil {
		return nil, err
	}
	out := make([]oplog.StudioNameInfo, 0, len(byKey))
	for _, ni := range byKey {
		out = append(out, *ni)
	}
	slices.SortFunc(out, func(a, b oplog.StudioNameInfo) int {
		return gocmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Name, b.Name), strings.Compare(a.Machine, b.Machine))
	})
	return out, nil
}
