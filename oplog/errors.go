package oplog

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
)

// Error codes shared by every adapter. The table below maps each code to an
// HTTP status and an MCP error title.
const (
	EINVALID     = "invalid"     // the caller's input is wrong; the message names the field
	ENOTFOUND    = "not_found"   // no record with that ID (or it was trimmed by retention)
	ECONFLICT    = "conflict"    // the request contradicts the record's state (completing twice)
	EUNAVAILABLE = "unavailable" // the log is closed or shutting down
	EINTERNAL    = "internal"    // I/O or a broken invariant; the message is for the operator
	ENOSPACE     = "no_space"    // the disk holding the data is full: nothing of the request was written
	EDAMAGED     = "damaged"     // the record is in a damaged block of the data file (see Damaged); the message names mcplogd salvage

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
// any other non-nil error, and "" for nil; ENOSPACE for an error that a
// full disk caused (IsNoSpace), whatever wraps it.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case IsNoSpace(err):
		return ENOSPACE
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
	case IsNoSpace(err):
		return noSpaceMessage
	case errors.As(err, &e):
		return e.Error()
	default:
		return "internal error"
	}
}

// noSpaceMessage is what a caller is told when the disk is full.
const noSpaceMessage = "the disk holding the data directory is full (no space left on device): nothing of this request was written; free some space and send it again"

// IsNoSpace reports whether err comes from a full disk: ENOSPC in its
// chain, or in the text of an internal error (not an *Error of another
// code, whose message may quote a caller's input) when a layer below
// formatted it without %w.
func IsNoSpace(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) {
		return true
	}
	var e *Error
	if errors.As(err, &e) && e.Code != EINTERNAL {
		return false
	}
	return strings.Contains(err.Error(), syscall.ENOSPC.Error())
}

// Sentinel errors. Each is an *Error, so ErrorCode reports its code.
var (
	// ErrClosed is returned by every method after Close.
	ErrClosed = &Error{Code: EUNAVAILABLE, Message: "the log is closed"}
)

// codes is the one table between error codes, HTTP statuses and the titles
// of MCP tool errors. The HTTP API answers an error with the status of its
// code, its client turns a status back into the code, and an MCP tool
// error (isError: true) starts with the code's title.
var codes = []struct {
	code   string
	status int
	title  string
}{
	{EINVALID, http.StatusBadRequest, "invalid argument"},
	{EUNAUTHORIZED, http.StatusUnauthorized, "unauthorized"},
	{ENOTFOUND, http.StatusNotFound, "not found"},
	{ECONFLICT, http.StatusConflict, "conflict"},
	{EUNAVAILABLE, http.StatusServiceUnavailable, "unavailable"},
	{ENOSPACE, http.StatusInsufficientStorage, "disk full"},
	{EINTERNAL, http.StatusInternalServerError, "internal error"},
	{EDAMAGED, http.StatusInternalServerError, "data file damaged"}, // after EINTERNAL: a 500 is EINTERNAL to a client
}

// HTTPStatus returns the HTTP status of an error code; 500 for a code
// outside the table.
func HTTPStatus(code string) int {
	for _, c := range codes {
		if c.code == code {
			return c.status
		}
	}
	return http.StatusInternalServerError
}

// CodeForHTTPStatus returns the error code of an HTTP status. Statuses
// outside the table (405, 413, ...) fall back by class: a 4xx is the
// caller's mistake (EINVALID), anything else EINTERNAL.
func CodeForHTTPStatus(status int) string {
	for _, c := range codes {
		if c.status == status {
			return c.code
		}
	}
	if status >= 400 && status < 500 {
		return EINVALID
	}
	return EINTERNAL
}

// ErrorTitle returns the words an MCP tool error starts with for code
// ("invalid argument"), and "" for a code outside the table.
func ErrorTitle(code string) string {
	for _, c := range codes {
		if c.code == code {
			return c.title
		}
	}
	return ""
}

// HTTPAnswer returns how an HTTP API answers err: an *http.MaxBytesError
// is 413 EINVALID naming the limit; any other error has the status of its
// code (HTTPStatus), its code, and its message as ErrorMessage shows it
// (internal details stay hidden).
func HTTPAnswer(err error) (status int, code, message string) {
	if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return http.StatusRequestEntityTooLarge, EINVALID, fmt.Sprintf("request body is over the limit of %d bytes", mbe.Limit)
	}
	code = ErrorCode(err)
	return HTTPStatus(code), code, ErrorMessage(err)
}
