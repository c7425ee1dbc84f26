package oplog

import (
	"encoding/json"
	"time"
)

// ForwardedKey is the key of an operation's data that says the gateway
// forwarded the call itself: {"mcplogd.forwarded": true}. Only the gateway
// sets it, and the HTTP API refuses it in the operations it is sent, so
// that only the calls the gateway made can be replayed to an upstream: an
// operation written through the API under an upstream's name cannot.
const ForwardedKey = "mcplogd.forwarded"

// ForwardedData is the data the gateway records its operations with.
func ForwardedData() json.RawMessage { return json.RawMessage(`{"` + ForwardedKey + `":true}`) }

// HasForwardedKey reports whether the JSON object data has ForwardedKey,
// however its key is spelled in JSON (escapes decode to the same key).
func HasForwardedKey(data json.RawMessage) bool {
	if len(data) == 0 {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, ok := m[ForwardedKey]
	return ok
}

// IsForwarded reports whether r is an operation the gateway forwarded
// (see ForwardedKey).
func (r *Record) IsForwarded() bool {
	if r.Kind != KindOp || len(r.Data) == 0 {
		return false
	}
	var m map[string]json.RawMessage
	return json.Unmarshal(r.Data, &m) == nil && string(m[ForwardedKey]) == "true"
}

// UpstreamStatus is the state of one game server behind the gateway.
type UpstreamStatus struct {
	Name      string        `json:"name"`
	Game      string        `json:"game,omitempty"` // the game its calls are recorded as, when not Name (Log.SetGames)
	Transport string        `json:"transport"`      // "http" or "stdio"
	Target    string        `json:"target"`         // the URL, or the command line
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
