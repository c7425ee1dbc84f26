package mcptools

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// The calls of a crash's story: an agent's calls to the game (operations
// recorded by the gateway or POST /api/v1/operations, of the crash's
// source and run) that were in flight when it struck, and the last ones
// that ended before it, beside the lines before it, in time order. A call
// that ended before the crash is never in flight.

const (
	// crashCallsRead is how many of the run's calls before the crash
	// find_crashes {limit: 1} reads to find those in flight and the last.
	crashCallsRead = 16
	// crashCalls is how many of each (in flight, ended before) it shows.
	crashCalls = 3
	// crashCallArgs is how many bytes of a call's arguments it shows.
	crashCallArgs = 80
)

// trailItem is a line of a crash's trail in the text block: a line or a
// call before the crash, at its time.
type trailItem struct {
	at   time.Time
	id   uint64
	text string
}

// addCalls gives g the calls of crash's source and run in flight when
// crash (g's newest occurrence) was recorded and the last calls that ended
// before it, and the text's trail: before's lines and those calls in time
// order.
func (t *toolset) addCalls(ctx context.Context, g *crashGroupOut, crash *oplog.Record, before []oplog.Record) error {
	f := oplog.Filter{Source: crash.Source, Kind: oplog.KindOp}
	if crash.Run > 0 {
		f.Runs = map[string]uint64{crash.Source: crash.Run}
	}
	p, err := t.log.List(ctx, oplog.Query{Filter: f, Count: crashCallsRead, Before: crash.ID})
	if err != nil {
		return err
	}
	tellCalls(g, crash, before, p.Records)
	return nil
}

// tellCalls gives g the calls in flight when crash struck and the last
// that ended before it, of calls (those of crash's run recorded before
// it, newest first), and the text's trail: before's lines (g.Before's,
// oldest first) and those calls in time order. The studio scope tells its
// crashes' stories with it too.
func tellCalls(g *crashGroupOut, crash *oplog.Record, before, calls []oplog.Record) {
	var trail []trailItem
	for i := range before {
		b := &before[i]
		trail = append(trail, trailItem{b.Time, b.ID, g.Before[i] + " (" + relTime(b.Time.Sub(crash.Time)) + ")"})
	}
	var inFlight, ended []*oplog.Record
	more := 0              // in flight beyond those shown
	for i := range calls { // newest first
		c := &calls[i]
		switch flight, before := oplog.CallAtCrash(c, crash.Time); {
		case flight && len(inFlight) < crashCalls:
			inFlight = append(inFlight, c)
		case flight:
			more++
		case before && len(ended) < crashCalls:
			ended = append(ended, c)
		}
	}
	slices.Reverse(inFlight)
	for _, c := range inFlight {
		s := fmt.Sprintf("#%d %s started %s, %s", c.ID, callText(c), relTime(c.StartTime.Sub(crash.Time)), c.Status)
		if c.IsComplete() && c.Status != oplog.StatusCrashed && c.EndTime.After(crash.Time) {
			s += fmt.Sprintf(" %s after the crash", durText(c.EndTime.Sub(crash.Time)))
		}
		g.InFlight = append(g.InFlight, s)
	}
	switch {
	case more > 0 && len(calls) >= crashCallsRead: // more than were read
		g.InFlight = append(g.InFlight, fmt.Sprintf("and at least %d more, older", more))
	case more > 0:
		g.InFlight = append(g.InFlight, fmt.Sprintf("and %d more, older", more))
	}
	slices.Reverse(ended)
	for _, c := range ended {
		s := fmt.Sprintf("#%d %s %s in %s", c.ID, callText(c), c.Status, durText(c.EndTime.Sub(c.StartTime)))
		g.Calls = append(g.Calls, s)
		trail = append(trail, trailItem{c.StartTime, c.ID, "call: " + s + " (" + relTime(c.StartTime.Sub(crash.Time)) + ")"})
	}
	slices.SortStableFunc(trail, func(a, b trailItem) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.id, b.id)) })
	g.trail = g.trail[:0]
	for _, it := range trail {
		g.trail = append(g.trail, it.text)
	}
}

// callText is a call as a crash's story shows it: its tool and its
// arguments, compact and clipped to crashCallArgs bytes. Without its
// arguments at hand (the studio's rows carry a call's summary, "tool
// {arguments}" cut at 200 characters, not them), those of its summary.
func callText(c *oplog.Record) string {
	var args string
	cut := false
	if len(c.Arguments) > 0 {
		var buf bytes.Buffer
		if json.Compact(&buf, c.Arguments) != nil {
			return c.Tool
		}
		args = buf.String()
	} else if a, ok := strings.CutPrefix(c.Text, c.Tool+" {"); ok {
		args, cut = strings.CutSuffix("{"+a, "…")
	}
	if args == "" {
		return c.Tool
	}
	if len(args) > crashCallArgs || cut {
		args = oplog.ClipBytes(args, crashCallArgs-len("…")) + "…"
	}
	return c.Tool + " " + args
}

// relTime is a time relative to a crash as its story says it: "−1.2s",
// "−75s", "−12m", "+0.3s".
func relTime(d time.Duration) string {
	if d > 0 {
		return "+" + durText(d)
	}
	return "−" + durText(-d)
}

// durText says a duration briefly: "0.3s", "75s", "12m", "3h".
func durText(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < 2*time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh", int(d/time.Hour))
}
