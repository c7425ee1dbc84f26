package oplog

// IndexState is what the full-text index is doing (IndexStatus.State).
type IndexState string

// The states of the index.
const (
	IndexIdle       IndexState = "idle"       // caught up
	IndexIndexing   IndexState = "indexing"   // indexing records appended since
	IndexRebuilding IndexState = "rebuilding" // rebuilding from the store
)

// UpstreamState is the state of a game server behind the gateway
// (UpstreamStatus.State).
type UpstreamState string

// The states of an upstream.
const (
	UpstreamConnecting UpstreamState = "connecting"
	UpstreamUp         UpstreamState = "up"
	UpstreamDown       UpstreamState = "down"
	UpstreamStopped    UpstreamState = "stopped"
)

// UpstreamStates lists every UpstreamState, for metrics.
var UpstreamStates = []UpstreamState{UpstreamConnecting, UpstreamUp, UpstreamDown, UpstreamStopped}

// FollowerState is the state of a followed log file (FollowerStatus.State).
type FollowerState string

// The states of a follower.
const (
	FollowerWaiting   FollowerState = "waiting"   // the file does not exist (yet)
	FollowerFollowing FollowerState = "following" // the file is being read
	FollowerFailing   FollowerState = "failing"   // reading or storing fails; retried
)

// FollowerStates lists every FollowerState, for metrics.
var FollowerStates = []FollowerState{FollowerWaiting, FollowerFollowing, FollowerFailing}
