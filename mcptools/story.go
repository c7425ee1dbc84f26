package mcptools

import (
	"time"

	"context"

	"github.com/mcplogd/mcplogd/oplog"
)

// CrashStory is what find_crashes {limit: 1} says of a crash beyond its
// group, for another adapter to show (GET /api/v1/crashes?story=, the web
// page's Crashes view): the agent's calls in flight when the group's
// newest occurrence struck and the trail before it, worded as the tool
// words them, so that an agent and a person read the same story.
type CrashStory struct {
	Signature string `json:"signature"` // the group's
	LastID    uint64 `json:"lastId"`    // the occurrence the story is of: the group's newest
	// Run is that occurrence's source#run; "" when it is of no run.
	Run string `json:"run,omitempty"`
	// Since says how long ago it was and how the source's later runs went:
	// "3 days ago; 4 runs of game since, none crashed".
	Since string `json:"since,omitempty"`
	// InFlight are the run's calls not ended when it struck, oldest first:
	// `#12 spawn_enemy {"count":500} started −0.4s, crashed`. Never nil.
	InFlight []string `json:"inFlight"`
	// Trail is the run's last lines and its last calls that ended before
	// the crash, oldest first, each with its time relative to the crash:
	// "#11 warn EnemyPool growing to 700 (−0.4s)", `call: #9 set_speed
	// {"x":2} success in 0.6s (−0.8s)`. Never nil.
	Trail []string `json:"trail"`
	// Recurrence says which call shapes were in flight in the other runs
	// this crash ended, against the source's clean runs.
	Recurrence []string `json:"recurrence,omitempty"`
}

// Story tells the story of g's newest occurrence (g.LastID) as
// find_crashes {limit: 1} does, reading b. A group whose newest
// occurrence retention removed has an empty story (its Signature and
// LastID set). The errors are b's.
func Story(ctx context.Context, b Backend, g *oplog.CrashGroup) (CrashStory, error) {
	t := &toolset{log: b, opts: Options{Now: time.Now}}
	o := crashGroup(g)
	if err := t.addStory(ctx, &o, g); err != nil {
		return CrashStory{}, err
	}
	s := CrashStory{Signature: g.Signature, LastID: g.LastID, Run: o.Run, Since: o.Since,
		InFlight: o.InFlight, Trail: o.trail, Recurrence: o.Recurrence}
	if s.InFlight == nil {
		s.InFlight = []string{}
	}
	if s.Trail == nil {
		s.Trail = []string{}
	}
	return s, nil
}
