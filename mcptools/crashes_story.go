package mcptools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// find_crashes {limit: 1} answers "why did the game crash?" in one small
// answer: the crash that ended the latest crashed run, the lines just
// before it, how long ago and whether the runs since crashed too.

// crashAnswerBytes is find_crashes {limit: 1}'s budget unless maxBytes says
// otherwise: the crash, its context and as much of its stack as fits.
const crashAnswerBytes = 4 << 10

// crashBefore is how many lines before the crash limit 1 shows, each cut
// to crashBeforeChars characters.
const (
	crashBefore      = 3
	crashBeforeChars = 120
)

// crashQuery turns find_crashes's class and level into a query.
func crashQuery(in crashesIn) (oplog.CrashQuery, error) {
	q := oplog.CrashQuery{Limit: in.Limit}
	for c := range strings.SplitSeq(in.Class, ",") {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" && !slices.Contains(q.Classes, c) {
			q.Classes = append(q.Classes, c)
		}
	}
	lvl, err := oplog.ParseLevel(in.Level)
	if err != nil {
		return q, oplog.Errorf(oplog.EINVALID, "level: %v", err)
	}
	q.MinLevel = lvl
	return q, nil
}

// addStory gives g, the answer's one group, the run of its newest
// occurrence, the lines and calls before it, the calls in flight when it
// struck and what happened since.
func (t *toolset) addStory(ctx context.Context, g *crashGroupOut, cg *oplog.CrashGroup) error {
	r, err := t.log.Get(ctx, cg.LastID)
	switch {
	case oplog.ErrorCode(err) == oplog.ENOTFOUND:
		return nil
	case err != nil:
		return err
	}
	if r.Run > 0 {
		g.Run = fmt.Sprintf("%s#%d", r.Source, r.Run)
	}
	f := oplog.Filter{Source: r.Source, Kind: oplog.KindLine}
	if r.Run > 0 { // the lines of its own run: the run before's crash is not its story
		f.Runs = map[string]uint64{r.Source: r.Run}
	}
	p, err := t.log.List(ctx, oplog.Query{Filter: f, Count: crashBefore, Before: r.ID})
	if err != nil {
		return err
	}
	for i := len(p.Records) - 1; i >= 0; i-- {
		g.Before = append(g.Before, beforeLine(&p.Records[i]))
	}
	slices.Reverse(p.Records)
	if err := t.addCalls(ctx, g, &r, p.Records); err != nil {
		return err
	}
	if err := t.addRecurrence(ctx, g, cg, r.Source); err != nil {
		return err
	}
	g.Since = t.since(ctx, &r, t.opts.Now())
	if first := t.firstRun(ctx, cg, &r); first != "" {
		g.Since = first + "; " + g.Since
	}
	return nil
}

// firstRun says in which run of r's source the group's first occurrence
// was, "first in run 2 of game, none in the run before", when it was in a
// run of that source; "" otherwise.
func (t *toolset) firstRun(ctx context.Context, cg *oplog.CrashGroup, r *oplog.Record) string {
	first := r
	if cg.ExampleID != r.ID {
		f, err := t.log.Get(ctx, cg.ExampleID)
		if err != nil {
			return ""
		}
		first = &f
	}
	switch {
	case first.Run == 0 || first.Source != r.Source:
		return ""
	case first.Run == 1:
		return fmt.Sprintf("first in run 1 of %s", r.Source)
	case first.Run == 2:
		return fmt.Sprintf("first in run 2 of %s, none in run 1", r.Source)
	}
	return fmt.Sprintf("first in run %d of %s, none in runs 1–%d", first.Run, r.Source, first.Run-1)
}

// beforeLine is b, a line before a crash, as its story shows it: "#11
// warn EnemyPool growing to 700".
func beforeLine(b *oplog.Record) string {
	text, _ := cut(oplog.OneLine(b.Text, false), crashBeforeChars)
	return fmt.Sprintf("#%d %s %s", b.ID, b.Level, text)
}

// since says how long ago r was and how the runs of its source that
// started after r's went: "3 days ago; 4 runs since, none crashed".
func (t *toolset) since(ctx context.Context, r *oplog.Record, now time.Time) string {
	ago := now.Sub(r.Time)
	s := agoText(ago)
	runs, err := t.log.Runs(ctx, r.Source)
	if err != nil || r.Run == 0 {
		return s
	}
	var mine *oplog.RunInfo
	for i := range runs {
		if runs[i].Run == r.Run {
			mine = &runs[i]
		}
	}
	if mine == nil {
		return s
	}
	after, crashed := 0, 0
	for i := range runs {
		if o := &runs[i]; o.Run != mine.Run && o.Start.After(mine.Start) {
			after++
			if o.Outcome == oplog.OutcomeCrashed {
				crashed++
			}
		}
	}
	switch {
	case after == 0:
		return s + "; no run of " + r.Source + " since (it is the latest)"
	case crashed == 0:
		return fmt.Sprintf("%s; %s of %s since, none crashed", s, Plural(after, "run"), r.Source)
	}
	return fmt.Sprintf("%s; %s of %s since, %d crashed", s, Plural(after, "run"), r.Source, crashed)
}

// Plural says n of noun: "1 run", "4 runs", "2 frames".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// agoText says a duration as people do: "just now", "12 minutes ago",
// "3 days ago".
func agoText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < 2*time.Minute:
		return "a minute ago"
	case d < time.Hour:
		return fmt.Sprintf("%d minutes ago", int(d/time.Minute))
	case d < 2*time.Hour:
		return "an hour ago"
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
}
