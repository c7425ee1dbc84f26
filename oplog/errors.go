package oplog

import (
	"errors"
	"fmt"
)

// Error codes shared by every adapter. The api package maps each code to an
// HTTP status and an MCP error text in one table.
const (
	EINVALID     = "invalid"     // the caller's input is wrong; the message names the field
	ENOTFOUND    = "not_found"   // no record with that ID (or it was trimmed by retention)
	ECONFLICT    = "conflict"    // the request contradicts the record's state (completing twice)
	EUNAVAILABLE = "unavailable" // the log is closed or shutting down
	EINTERNAL    = "internal"    // I/O or a broken invariant; the message is for the operator

	EUNAUTHORIZED = "unauthorized" // the caller's credential is missing or wrong
)

// Error is a domain error with a machine-readable code and a human message.
// Adapters show Message to callers as it is, so it must say what was wrong.
type Error struct {
	Code    string
	Message string
	Err     error // the underlying cause, if any; not shown to callers
}

func (e *Error) Error() string {
	if e.Err != nil && e.Message == "" {
		return e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EINTERNAL
	}
}

// ErrorMessage returns the message of the first *Error in err's chain, or
// "internal error" for other errors so that I/O details are not shown to
// remote callers.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Error()
	default:
		return "internal error"
	}
}

// Sentinel errors. Each is an *Error, so ErrorCode reports its code.
var (
	// ErrClosed is returned by every method after Close.
	ErrClosed = &Error{Code: EUNAVAILABLE, Message: "the log is closed"}
)
