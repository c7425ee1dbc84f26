package oplog

import (
	"encoding/json"
	"strings"
	"time"
)

// Kind says whether a record is a console line, an operation or a marker.
type Kind uint8

// Kinds. The zero Kind is not valid in a record; in a filter it means any.
const (
	KindLine   Kind = 1 // a console line
	KindOp     Kind = 2 // a tool invocation
	KindMarker Kind = 3 // a moment of a source's life: a new run, a compile's start or outcome (marker.go)
)

var kindNames = [...]string{KindLine: "line", KindOp: "op", KindMarker: "marker"}

func (k Kind) String() string {
	if k == 0 || int(k) >= len(kindNames) {
		return ""
	}
	return kindNames[k]
}

// ParseKind parses "line", "op" or "marker" (case-insensitively;
// "operation" too).
// The empty string, "any" and "all" give the zero Kind, which filters match as any.
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "any", "all":
		return 0, nil
	case "line", "lines":
		return KindLine, nil
	case "op", "ops", "operation", "operations":
		return KindOp, nil
	case "marker", "markers":
		return KindMarker, nil
	}
	return 0, Errorf(EINVALID, "unknown kind %q; expected line, op, marker or any", s)
}

// MarshalText implements encoding.TextMarshaler.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Kind) UnmarshalText(b []byte) (err error) { *k, err = ParseKind(string(b)); return err }

// Level is a record's severity. Levels are ordered: a filter on a level keeps
// that level and the ones above it.
type Level uint8

// Levels. The zero Level is not valid in a record; in a filter it means any.
const (
	LevelDebug Level = 1
	LevelInfo  Level = 2
	LevelWarn  Level = 3
	LevelError Level = 4
	LevelFatal Level = 5
)

// Levels lists the valid levels in ascending order.
var Levels = []Level{LevelDebug, LevelInfo, LevelWarn, LevelError, LevelFatal}

var levelNames = [...]string{LevelDebug: "debug", LevelInfo: "info", LevelWarn: "warn", LevelError: "error", LevelFatal: "fatal"}

func (l Level) String() string {
	if l == 0 || int(l) >= len(levelNames) {
		return ""
	}
	return levelNames[l]
}

// Valid reports whether l is one of the five levels.
func (l Level) Valid() bool { return l >= LevelDebug && l <= LevelFatal }

// levelSpellings maps the spellings that engines and logging libraries use to
// the five levels: Unity's LogType (Log, Warning, Error, Assert, Exception),
// the Minecraft client's INFO/WARN/ERROR, syslog and the usual logger names.
var levelSpellings = map[string]Level{
	"trace": LevelDebug, "verbose": LevelDebug, "verb": LevelDebug, "debug": LevelDebug, "dbg": LevelDebug,
	"fine": LevelDebug, "finer": LevelDebug, "finest": LevelDebug,
	"info": LevelInfo, "information": LevelInfo, "informational": LevelInfo, "log": LevelInfo,
	"notice": LevelInfo, "message": LevelInfo, "print": LevelInfo,
	"warn": LevelWarn, "warning": LevelWarn, "wrn": LevelWarn,
	"error": LevelError, "err": LevelError, "exception": LevelError, "assert": LevelError,
	"assertion": LevelError, "severe": LevelError,
	"fatal": LevelFatal, "critical": LevelFatal, "crit": LevelFatal, "panic": LevelFatal,
	"emergency": LevelFatal, "emerg": LevelFatal, "alert": LevelFatal,
}

// ParseLevel parses a level name case-insensitively, accepting the common
// spellings ("Warning", "ERR", Unity's "Exception" and "Assert", ...).
// The empty string gives the zero Level; an unknown name is an EINVALID error.
func ParseLevel(s string) (Level, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if l, ok := levelSpellings[strings.ToLower(s)]; ok {
		return l, nil
	}
	return 0, Errorf(EINVALID, "unknown level %q; expected debug, info, warn, error or fatal", s)
}

// MarshalText implements encoding.TextMarshaler.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (l *Level) UnmarshalText(b []byte) (err error) { *l, err = ParseLevel(string(b)); return err }

// Status is an operation's state. Lines have the zero Status.
type Status uint8

// Operation statuses. Pending is the only incomplete one. Crashed is a
// call that was in flight when its game crashed (crashed.go): the run it
// was recorded in ended crashed before it answered.
//
// The values are stored as one byte (internal/codec), so a new status
// needs no new format; a binary older than a status reads it as a
// complete operation whose status has no name ("").
const (
	StatusPending   Status = 1
	StatusSuccess   Status = 2
	StatusError     Status = 3
	StatusTimeout   Status = 4
	StatusCancelled Status = 5
	StatusCrashed   Status = 6

	statusLast = StatusCrashed
)

var statusNames = [...]string{StatusPending: "pending", StatusSuccess: "success", StatusError: "error",
	StatusTimeout: "timeout", StatusCancelled: "cancelled", StatusCrashed: "crashed"}

func (s Status) String() string {
	if s == 0 || int(s) >= len(statusNames) {
		return ""
	}
	return statusNames[s]
}

// ParseStatus parses a status name case-insensitively ("ok" and "succeeded"
// mean success, "failed" error, "canceled" cancelled). The empty string gives
// the zero Status.
func ParseStatus(s string) (Status, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return 0, nil
	case "pending", "running":
		return StatusPending, nil
	case "success", "ok", "succeeded", "done":
		return StatusSuccess, nil
	case "error", "failed", "failure":
		return StatusError, nil
	case "timeout", "timedout", "timed_out":
		return StatusTimeout, nil
	case "cancelled", "canceled":
		return StatusCancelled, nil
	case "crashed", "crash":
		return StatusCrashed, nil
	}
	return 0, Errorf(EINVALID, "unknown status %q; expected pending, success, error, timeout, cancelled or crashed", s)
}

// Level returns the level an operation with this status is logged at.
func (s Status) Level() Level {
	switch s {
	case StatusError, StatusTimeout, StatusCrashed:
		// Crashed is an error, not fatal: the crash is the game's record,
		// and a fatal operation would make its run crashed again.
		return LevelError
	case StatusCancelled:
		return LevelWarn
	}
	return LevelInfo
}

// MarshalText implements encoding.TextMarshaler.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Status) UnmarshalText(b []byte) (err error) { *s, err = ParseStatus(string(b)); return err }

// Record is one entry of the log: a console line or an operation. Fields
// below Data are used by operations only.
type Record struct {
	ID     uint64          `json:"id"`
	Kind   Kind            `json:"kind"`
	Time   time.Time       `json:"time"`            // UTC; the writer's timestamp when given, else arrival
	Source string          `json:"source"`          // the game, editor or upstream that wrote it
	Name   string          `json:"name,omitempty"`  // log name / logger / category; an op's tool name
	Level  Level           `json:"level"`           // an op's level follows its status
	Text   string          `json:"text"`            // the message; an op's one-line summary
	Stack  string          `json:"stack,omitempty"` // stack trace or traceback
	Data   json.RawMessage `json:"data,omitempty"`  // a JSON object, or nil
	Run    uint64          `json:"run,omitempty"`   // the run of its source it belongs to (marker.go); set by the Store

	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Status    Status          `json:"status,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`
	StartTime time.Time       `json:"startTime,omitzero"`
	EndTime   time.Time       `json:"endTime,omitzero"`
	ReplayOf  uint64          `json:"replayOf,omitempty"`
}

// IsComplete reports whether r is an operation that has ended.
func (r *Record) IsComplete() bool { return r.Kind == KindOp && r.Status > StatusPending }

// MarshalJSON adds isComplete and durationMs to operations.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record
	if r.Kind != KindOp {
		return MarshalJSON(plain(r), "")
	}
	op := struct {
		plain
		IsComplete bool   `json:"isComplete"`
		DurationMs *int64 `json:"durationMs,omitempty"`
	}{plain: plain(r), IsComplete: r.IsComplete()}
	if op.IsComplete && !r.StartTime.IsZero() && !r.EndTime.IsZero() {
		d := r.EndTime.Sub(r.StartTime).Milliseconds()
		op.DurationMs = &d
	}
	return MarshalJSON(op, "")
}

// Completion is how an operation ended.
type Completion struct {
	Status  Status          // StatusSuccess when zero and Error is empty, StatusError when Error is set
	Result  json.RawMessage // any JSON value, or nil
	Error   string
	EndTime time.Time // arrival time when zero
}
