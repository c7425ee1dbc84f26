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

// Health per game: store_info says, for each source that has runs or an
// upstream, how its latest run stands and how long ago it ended, the age
// of its newest record, how its last run before ended (the exit marker's
// text) and its upstream's state and pending calls, in one line an agent
// reads before it calls:
//
//	game game: crashed 4s ago (python3 killed by signal 11 (SIGSEGV)), run 2; newest record 4s ago; upstream connecting, 0 pending: restarting
//
// A source's upstream is the upstream of the same name. The upstreams come
// first, then the sources written to most recently, infoRunSources at most.

// gameOut is one game's health in store_info.
type gameOut struct {
	Name     string `json:"name" jsonschema:"the source: its lines, calls and runs"`
	State    string `json:"state" jsonschema:"its latest run: running, crashed, exited or ended"`
	Run      uint64 `json:"run,omitempty"`
	Since    string `json:"since,omitempty" jsonschema:"RFC 3339: when the latest run ended, or started while running"`
	End      string `json:"end,omitempty" jsonschema:"how the latest run (or, while it runs, the one before) ended: the exit's text"`
	Newest   string `json:"newest,omitempty" jsonschema:"RFC 3339: its newest record's time"`
	Upstream string `json:"upstream,omitempty" jsonschema:"its upstream's state"`
	Pending  int    `json:"pending,omitempty" jsonschema:"its upstream's calls still running"`

	text string
}

// gamesInfo is the health of every game: the sources with runs (the ones
// store_info lists) and the upstreams.
func (t *toolset) gamesInfo(ctx context.Context, ups []oplog.UpstreamStatus) []gameOut {
	now := time.Now()
	runs, err := t.log.Runs(ctx, "")
	if err != nil && oplog.ErrorCode(err) != oplog.EUNAVAILABLE {
		return nil
	}
	latest := map[string][]oplog.RunInfo{} // each source's runs, newest last
	for _, r := range runs {
		latest[r.Source] = append(latest[r.Source], r)
	}
	names := make([]string, 0, len(latest)+len(ups))
	for s := range latest {
		names = append(names, s)
	}
	up := map[string]oplog.UpstreamStatus{}
	for _, u := range ups {
		up[u.Name] = u
		if _, ok := latest[u.Name]; !ok {
			names = append(names, u.Name)
		}
	}
	// The upstreams first, then the sources written to most recently, as
	// many as store_info lists runs of.
	newest := func(n string) time.Time {
		if rs := latest[n]; len(rs) > 0 {
			return slices.MaxFunc(rs, func(a, b oplog.RunInfo) int { return a.Last.Compare(b.Last) }).Last
		}
		return time.Time{}
	}
	slices.SortStableFunc(names, func(a, b string) int {
		_, ua := up[a]
		_, ub := up[b]
		switch {
		case ua != ub && ua:
			return -1
		case ua != ub:
			return 1
		}
		return cmp.Or(newest(b).Compare(newest(a)), strings.Compare(a, b))
	})
	names = names[:min(len(names), infoRunSources)]
	var out []gameOut
	for _, name := range names {
		u, hasUp := up[name]
		out = append(out, t.gameHealth(ctx, name, latest[name], u, hasUp, now))
	}
	return out
}

// gameHealth is one game's health: rs its runs (any order), u its
// upstream when hasUp.
func (t *toolset) gameHealth(ctx context.Context, name string, rs []oplog.RunInfo, u oplog.UpstreamStatus, hasUp bool, now time.Time) gameOut {
	g := gameOut{Name: name, State: "no run yet"}
	var parts []string
	if len(rs) > 0 {
		slices.SortStableFunc(rs, func(a, b oplog.RunInfo) int { return a.Start.Compare(b.Start) })
		r := rs[len(rs)-1]
		g.State, g.Run, g.Newest = r.Outcome, r.Run, formatTime(r.Last.UTC())
		ended, at := r, r.End
		if r.Outcome == oplog.OutcomeRunning {
			at = r.Start
			if len(rs) > 1 {
				ended = rs[len(rs)-2]
			}
		}
		g.Since = formatTime(at.UTC())
		if ended.Outcome != oplog.OutcomeRunning && ended.EndID != 0 {
			if e, err := t.log.Get(ctx, ended.EndID); err == nil {
				g.End = oplog.OneLine(e.Text, false)
			}
		}
		s := fmt.Sprintf("%s %s", r.Outcome, ageText(now.Sub(at)))
		if r.Outcome == oplog.OutcomeRunning {
			s = fmt.Sprintf("running, started %s", ageText(now.Sub(at)))
		}
		if g.End != "" && ended.Run == r.Run {
			s += " (" + clipText(g.End) + ")"
		}
		s += fmt.Sprintf(", run %d", r.Run)
		if g.End != "" && ended.Run != r.Run {
			s += fmt.Sprintf("; run %d %s (%s)", ended.Run, ended.Outcome, clipText(g.End))
		}
		parts = append(parts, s, "newest record "+ageText(now.Sub(r.Last)))
	} else {
		parts = append(parts, g.State)
	}
	if hasUp {
		g.Upstream, g.Pending = string(u.State), u.Pending
		s := fmt.Sprintf("upstream %s, %d pending", u.State, u.Pending)
		if g.State == oplog.OutcomeCrashed && (u.State == oplog.UpstreamConnecting || u.State == oplog.UpstreamDown) {
			s += ": restarting"
		}
		parts = append(parts, s)
	}
	g.text = "game " + name + ": " + strings.Join(parts, "; ")
	return g
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
