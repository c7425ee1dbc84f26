package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// handleError is the Echo HTTPErrorHandler: it answers every error, the
// handlers' own and Echo's (404, 405), in the client.ErrorBody shape.
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

func (s *Server) errorAnswer(err error, c echo.Context) (int, client.ErrorBody) {
	var he *echo.HTTPError
	switch {
	case errors.As(err, new(*http.MaxBytesError)):
		status, code, msg := oplog.HTTPAnswer(err) // 413, before an *echo.HTTPError that wraps it
		return status, client.ErrorBody{Code: code, Message: msg}
	case errors.As(err, &he):
		msg, ok := he.Message.(string)
		if !ok {
			msg = http.StatusText(he.Code)
		}
		return he.Code, client.ErrorBody{Code: oplog.CodeForHTTPStatus(he.Code), Message: msg}
	case errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil:
		// The client went away; it will not read this, but an answer must
		// never be an implicit 200.
		s.logger.Debug("request cancelled by the client", "method", c.Request().Method, "path", c.Path())
		return http.StatusServiceUnavailable, client.ErrorBody{Code: oplog.EUNAVAILABLE, Message: "the request was cancelled"}
	}
	status, code, msg := oplog.HTTPAnswer(err)
	body := client.ErrorBody{Code: code, Message: msg}
	if be, ok := oplog.IsBatchError(err); ok {
		body.Index = &be.Index
	}
	if code == oplog.EINTERNAL {
		s.logger.Error("request failed", "method", c.Request().Method, "path", c.Path(), "err", err)
	}
	return status, body
}
