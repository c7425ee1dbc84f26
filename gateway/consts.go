package gateway

import "time"

// Defaults of Options, used where a field is zero.
const (
	defaultMinBackoff     = 250 * time.Millisecond // Options.MinBackoff
	defaultMaxBackoff     = 10 * time.Second       // Options.MaxBackoff
	defaultConnectTimeout = 10 * time.Second       // Options.ConnectTimeout
	defaultKeepAlive      = 5 * time.Second        // Options.KeepAlive
)

// Connections to upstreams.
const (
	// idleConnTimeout drops idle HTTP connections to upstreams after 4 s:
	// Node servers (the MCP TypeScript SDK's) close theirs after ~5 s, and a
	// POST sent on a connection the server is closing fails without a retry.
	idleConnTimeout = 4 * time.Second
	// terminateWait is how long a stdio upstream has to exit after its
	// stdin is closed before it is killed.
	terminateWait = 2 * time.Second
	// stderrDrain bounds how long a cmd: upstream's standard error is read
	// after it exited: what it printed is read at once, but a process it
	// started may hold the pipe open for good.
	stderrDrain = 2 * time.Second
)

// Recording calls.
const (
	// maxSummaryBytes bounds the text kept of a result too large for its
	// record (over oplog.MaxJSONBytes): the record says what it was.
	maxSummaryBytes = 4096
	// settleWait is how long Replay waits for the original's outcome.
	settleWait = 2 * time.Second
	// maxDiffs bounds the differences a replay reports.
	maxDiffs = 5
	// briefBytes bounds a value quoted in a replay's differences.
	briefBytes = 80
)

// The console mirror. The pace of polling: again at once while the game
// has more ready, soon while lines flow, slower and slower up to slowPoll
// while it is quiet.
const (
	fastPoll    = 100 * time.Millisecond
	slowPoll    = time.Second
	callTimeout = 30 * time.Second  // one console call; a frozen game is retried, not waited on forever
	tailLimit   = 1000              // lines per console_tail call: the seeds' whole buffer
	logsPage    = 100               // records per get_logs call
	maxCatchUp  = 1000              // get_logs records read back through offset in one poll
	resumeScan  = 100               // newest records of the source looked at for where the mirror stopped
	mirrorName  = "mcplogd.gateway" // the log name of the mirror's own warnings
	// maxUpstreamValue bounds an upstream's line ID or revision (as JSON)
	// kept in a record's data; a longer one is left out.
	maxUpstreamValue = 200
	// maxUpstreamTime bounds an unreadable upstream time kept in
	// data.upstreamTime.
	maxUpstreamTime = 100
)
