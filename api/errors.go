package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
)

// statuses is the one table between oplog error codes, HTTP statuses and
// MCP tool error texts. The server answers an error with the status of its
// code; the client turns a status back into the code; an MCP tool error
// (isError: true) starts with the code's text.
var statuses = []struct {
	code   string
	status int
	mcp    string
}{
	{oplog.EINVALID, http.StatusBadRequest, "invalid argument"},
	{oplog.EUNAUTHORIZED, http.StatusUnauthorized, "unauthorized"},
	{oplog.ENOTFOUND, http.StatusNotFound, "not found"},
	{oplog.ECONFLICT, http.StatusConflict, "conflict"},
	{oplog.EUNAVAILABLE, http.StatusServiceUnavailable, "unavailable"},
	{oplog.EINTERNAL, http.StatusInternalServerError, "internal error"},
}

// toolError turns err into the error a tool returns, which the SDK sends
// as a result with isError: true: the code's text, then the message
// ("invalid argument: level: unknown level ..."). Internal details are not
// shown; a cancelled call says so.
func toolError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("cancelled: %v", err)
	}
	code := oplog.ErrorCode(err)
	for _, s := range statuses {
		if s.code == code && code != oplog.EINTERNAL {
			return fmt.Errorf("%s: %s", s.mcp, oplog.ErrorMessage(err))
		}
	}
	return errors.New("internal error: see the server's log")
}

// httpStatus returns the HTTP status for an oplog error code.
func httpStatus(code string) int {
	for _, s := range statuses {
		if s.code == code {
			return s.status
		}
	}
	return http.StatusInternalServerError
}

// errorCode returns the oplog error code for an HTTP status. Statuses
// outside the table (405, 413, ...) fall back by class: a 4xx is the
// caller's mistake, anything else is internal.
func errorCode(status int) string {
	for _, s := range statuses {
		if s.status == status {
			return s.code
		}
	}
	if status >= 400 && status < 500 {
		return oplog.EINVALID
	}
	return oplog.EINTERNAL
}

// errorBody is the JSON of every error answer.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Index   *int   `json:"index,omitempty"` // the refused record of a batch
}

// handleError is the Echo HTTPErrorHandler: it answers every error, the
// handlers' own and Echo's (404, 405), in the errorBody shape.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, body := s.errorAnswer(err, c)
	if c.Request().Method == http.MethodHead {
		err = c.NoContent(status)
	} else {
		err = c.JSON(status, body)
	}
	if err != nil {
		s.logger.Debug("writing an error answer failed", "err", err)
	}
}

func (s *Server) errorAnswer(err error, c echo.Context) (int, errorBody) {
	var (
		he  *echo.HTTPError
		mbe *http.MaxBytesError
	)
	switch {
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, errorBody{Code: oplog.EINVALID,
			Message: fmt.Sprintf("request body is over the limit of %d bytes", mbe.Limit)}
	case errors.As(err, &he):
		msg, ok := he.Message.(string)
		if !ok {
			msg = http.StatusText(he.Code)
		}
		return he.Code, errorBody{Code: errorCode(he.Code), Message: msg}
	case errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil:
		// The client went away; it will not read this, but an answer must
		// never be an implicit 200.
		s.logger.Debug("request cancelled by the client", "method", c.Request().Method, "path", c.Path())
		return http.StatusServiceUnavailable, errorBody{Code: oplog.EUNAVAILABLE, Message: "the request was cancelled"}
	}
	code := oplog.ErrorCode(err)
	body := errorBody{Code: code, Message: oplog.ErrorMessage(err)}
	if be, ok := oplog.IsBatchError(err); ok {
		body.Index = &be.Index
	}
	if code == oplog.EINTERNAL {
		s.logger.Error("request failed", "method", c.Request().Method, "path", c.Path(), "err", err)
	}
	return httpStatus(code), body
}
