package oplog

import "time"

// GameHealth is how one game stands: a source with runs, or an upstream
// of the gateway (a source's upstream is the one of its name). It is what
// store_info's games, GET /api/v1/info's games and `mcplogd status` say,
// built by one function of package mcptools (Games) for all three.
type GameHealth struct {
	// Name is the source: its lines, calls and runs.
	Name string `json:"name"`
	// State is its latest run's outcome (OutcomeRunning, OutcomeCrashed,
	// OutcomeExited, OutcomeEnded), or GameNoRun when it has none.
	State string `json:"state"`
	// Run is its latest run; 0 when it has none.
	Run uint64 `json:"run,omitempty"`
	// Since is when the latest run ended, or started while it runs.
	Since time.Time `json:"since,omitzero"`
	// End is how the latest run ended, or while it runs the one before:
	// the text of the record that ended it (the exit marker's, the
	// crash's). Empty when that run has not ended or said nothing.
	End string `json:"end,omitempty"`
	// EndRun and EndOutcome are the run End tells of and how it ended,
	// when it is not Run: the run before, while Run runs. 0 and "" when
	// End tells of Run.
	EndRun     uint64 `json:"endRun,omitempty"`
	EndOutcome string `json:"endOutcome,omitempty"`
	// Newest is its newest record's time; zero when it has no run.
	Newest time.Time `json:"newest,omitzero"`
	// Upstream is its upstream's state; "" when no upstream has its name.
	Upstream UpstreamState `json:"upstream,omitempty"`
	// Pending is how many of its upstream's calls still run.
	Pending int `json:"pending,omitempty"`
}

// GameNoRun is GameHealth.State of an upstream whose source has no run yet.
const GameNoRun = "no run yet"
