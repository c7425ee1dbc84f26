package oplog

import "time"

// UpstreamStatus is the state of one game server behind the gateway.
type UpstreamStatus struct {
	Name      string    `json:"name"`
	Transport string    `json:"transport"` // "http" or "stdio"
	Target    string    `json:"target"`    // the URL, or the command line
	State     string    `json:"state"`     // "connecting", "up", "down" or "stopped"
	Error     string    `json:"error,omitempty"`
	Since     time.Time `json:"since"` // when it entered State
	Tools     int       `json:"tools"`
	Console   string    `json:"console,omitempty"` // the upstream's console tool that is mirrored
	Pending   int       `json:"pending"`           // calls still running
}

// Replay is the outcome of sending a recorded operation again.
type Replay struct {
	Original Record
	Replay   Record
	Same     bool   // the two results are equal as JSON
	Diff     string // where they differ, briefly; empty when Same
}
