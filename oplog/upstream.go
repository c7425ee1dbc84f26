package oplog

import "time"

// UpstreamStatus is the state of one game server behind the gateway.
type UpstreamStatus struct {
	Name      string        `json:"name"`
	Transport string        `json:"transport"` // "http" or "stdio"
	Target    string        `json:"target"`    // the URL, or the command line
	State     UpstreamState `json:"state"`
	Error     string        `json:"error,omitempty"`
	Since     time.Time     `json:"since"` // when it entered State
	Tools     int           `json:"tools"`
	Console   string        `json:"console,omitempty"` // the upstream's console tool that is mirrored
	Pending   int           `json:"pending"`           // calls still running
}

// Replay is the outcome of sending a recorded operation again.
type Replay struct {
	Original Record
	Replay   Record
	Same     bool   // the two results are equal as JSON
	Diff     string // where they differ, briefly; empty when Same
}

// FollowerStatus is the state of one followed log file.
type FollowerStatus struct {
	Name   string        `json:"name"`   // the records' source
	Path   string        `json:"path"`   // the file followed
	Parser string        `json:"parser"` // "unity", "log4j", "godot" or "generic"
	State  FollowerState `json:"state"`
	Error  string        `json:"error,omitempty"`
	Since  time.Time     `json:"since"`  // when it entered State
	Offset int64         `json:"offset"` // bytes of the current file read and stored
	Size   int64         `json:"size"`   // the current file's size when last looked at
	Lines  uint64        `json:"lines"`  // lines read since start
	Stored uint64        `json:"stored"` // records appended since start
}
