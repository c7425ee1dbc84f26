package mcptools

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Health per game: store_info, GET /api/v1/info and `mcplogd status` say,
// for each source that has runs or an upstream, how its latest run stands
// and how long ago it ended, the age of its newest record, how its last
// run before ended (the exit marker's text) and its upstream's state and
// pending calls, in one line an agent or a person reads before it calls:
//
//	game game: crashed 4.0s ago (python3 killed by signal 11 (SIGSEGV)), run 2; newest record 4.0s ago; upstream connecting, 0 pending: restarting
//
// Games builds the health for all three; GameText says it. A source's
// upstream is the upstream of the same name, or the one declared part of
// its game. The upstreams come first,
// then the sources written to most recently, infoRunSources at most.

// RecordReader reads one record by ID; *oplog.Log and Backend do. Games
// reads with it the records that ended runs.
type RecordReader interface {
	Get(ctx context.Context, id uint64) (oplog.Record, error)
}

// Games returns the health of every game: the sources of runs (every
// source's runs, as Runs(ctx, "") returns them; nil: none) and the
// upstreams ups. It leaves runs as they are. A run's end whose record l
// cannot read is left out.
func Games(ctx context.Context, l RecordReader, runs []oplog.RunInfo, ups []oplog.UpstreamStatus) []oplog.GameHealth {
	bySource := map[string][]oplog.RunInfo{}
	for _, r := range runs {
		bySource[r.Source] = append(bySource[r.Source], r)
	}
	names := make([]string, 0, len(bySource)+len(ups))
	for s := range bySource {
		names = append(names, s)
	}
	up := map[string]oplog.UpstreamStatus{}
	for _, u := range ups {
		name := cmp.Or(u.Game, u.Name) // an upstream declared part of a game is the game's
		if _, seen := up[name]; seen {
			continue // the game's first upstream speaks for it
		}
		up[name] = u
		if _, ok := bySource[name]; !ok {
			names = append(names, name)
		}
	}
	newest := map[string]time.Time{}
	for s, rs := range bySource {
		newest[s] = slices.MaxFunc(rs, func(a, b oplog.RunInfo) int { return a.Last.Compare(b.Last) }).Last
	}
	// The upstreams first, then the sources written to most recently, as
	// many as store_info lists runs of.
	slices.SortStableFunc(names, func(a, b string) int {
		_, ua := up[a]
		_, ub := up[b]
		switch {
		case ua != ub && ua:
			return -1
		case ua != ub:
			return 1
		}
		return cmp.Or(newest[b].Compare(newest[a]), strings.Compare(a, b))
	})
	names = names[:min(len(names), infoRunSources)]
	out := make([]oplog.GameHealth, 0, len(names))
	for _, name := range names {
		u, hasUp := up[name]
		g := gameHealth(ctx, l, name, bySource[name])
		if hasUp {
			g.Upstream, g.Pending = u.State, u.Pending
		}
		out = append(out, g)
	}
	return out
}

// gameHealth is the health of the game name by its runs rs (any order,
// sorted here), its upstream left to the caller.
func gameHealth(ctx context.Context, l RecordReader, name string, rs []oplog.RunInfo) oplog.GameHealth {
	g := oplog.GameHealth{Name: name, State: oplog.GameNoRun}
	if len(rs) == 0 {
		return g
	}
	slices.SortStableFunc(rs, func(a, b oplog.RunInfo) int { return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.Run, b.Run)) })
	r := rs[len(rs)-1]
	g.State, g.Run, g.Newest, g.Since = r.Outcome, r.Run, r.Last.UTC(), r.End.UTC()
	ended := r
	if r.Outcome == oplog.OutcomeRunning {
		g.Since = r.Start.UTC()
		if len(rs) > 1 {
			ended = rs[len(rs)-2]
		}
	}
	if ended.Outcome == oplog.OutcomeRunning || ended.EndID == 0 {
		return g
	}
	if e, err := l.Get(ctx, ended.EndID); err == nil {
		g.End = oplog.OneLine(e.Text, false)
	}
	if g.End != "" && ended.Run != r.Run {
		g.EndRun, g.EndOutcome = ended.Run, ended.Outcome
	}
	return g
}

// GameText is g in one line as of now: "game NAME: " its latest run, how
// long ago it ended (or started), how, its newest record's age and its
// upstream; ": restarting" when it crashed and its upstream is not up.
func GameText(g *oplog.GameHealth, now time.Time) string {
	var parts []string
	if g.Run == 0 {
		parts = append(parts, g.State)
	} else {
		s := fmt.Sprintf("%s %s", g.State, ageText(now.Sub(g.Since)))
		if g.State == oplog.OutcomeRunning {
			s = "running, started " + ageText(now.Sub(g.Since))
		}
		if g.End != "" && g.EndRun == 0 {
			s += " (" + clipText(g.End) + ")"
		}
		s += fmt.Sprintf(", run %d", g.Run)
		if g.End != "" && g.EndRun != 0 {
			s += fmt.Sprintf("; run %d %s (%s)", g.EndRun, g.EndOutcome, clipText(g.End))
		}
		parts = append(parts, s, "newest record "+ageText(now.Sub(g.Newest)))
	}
	if g.Upstream != "" {
		s := fmt.Sprintf("upstream %s, %d pending", g.Upstream, g.Pending)
		if g.State == oplog.OutcomeCrashed && (g.Upstream == oplog.UpstreamConnecting || g.Upstream == oplog.UpstreamDown) {
			s += ": restarting"
		}
		parts = append(parts, s)
	}
	return "game " + g.Name + ": " + strings.Join(parts, "; ")
}

// clipText cuts an exit's text for a game's line.
func clipText(s string) string {
	t, _ := cut(s, 120)
	return t
}

// ageText says how long ago, to the second while it is recent: "4.0s
// ago", "75s ago", "12m ago", "3h ago", then "3 days ago".
func ageText(d time.Duration) string {
	if d < 48*time.Hour {
		return durText(max(d, 0)) + " ago"
	}
	return agoText(d)
}
