package oplog

import "time"

// StudioState is what the forwarder to a studio's VictoriaLogs is doing
// (StudioStatus.State).
type StudioState string

// The states of the forwarder.
const (
	StudioStarting    StudioState = "starting"    // reconciling with VictoriaLogs before the first send
	StudioCatchingUp  StudioState = "catching_up" // sending a backlog
	StudioUpToDate    StudioState = "up_to_date"  // every record sent and acknowledged
	StudioUnreachable StudioState = "unreachable" // VictoriaLogs does not answer (or fails); retried with backoff
	StudioRefusing    StudioState = "refusing"    // VictoriaLogs answers but refuses rows (HTTP 429: full, or over its limits); retried with backoff
)

// StudioStates lists every StudioState, for metrics.
var StudioStates = []StudioState{StudioStarting, StudioCatchingUp, StudioUpToDate, StudioUnreachable, StudioRefusing}

// StudioStatus is the state of the forwarding of this machine's records to
// a studio's VictoriaLogs (mcplogd serve --studio).
type StudioStatus struct {
	URL     string      `json:"url"`
	Project string      `json:"project"`
	Machine string      `json:"machine"`
	State   StudioState `json:"state"`
	Since   time.Time   `json:"since"` // when it entered State

	Seq         uint64    `json:"seq"`         // rows acknowledged by VictoriaLogs (the forwarding sequence)
	Reconciled  uint64    `json:"reconciled"`  // every seq up to it was found in VictoriaLogs
	ForwardedID uint64    `json:"forwardedId"` // the highest record ID acknowledged
	LagRecords  uint64    `json:"lagRecords"`  // records appended and not acknowledged yet
	LagSeconds  float64   `json:"lagSeconds"`  // age of the oldest record not acknowledged yet; 0 when none
	PendingOps  int       `json:"pendingOps"`  // operations sent pending whose completion is still to send
	Resent      uint64    `json:"resent"`      // rows sent again after a reconciliation found them missing
	Lost        uint64    `json:"lost"`        // records retention trimmed before they were forwarded
	TooOld      uint64    `json:"tooOld"`      // records outside VictoriaLogs' retention, not sent
	LastError   string    `json:"lastError,omitempty"`
	LastErrorAt time.Time `json:"lastErrorAt,omitzero"`
}
