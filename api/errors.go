package api

import (
	"context"
	"errors"
	"fmt"
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
	var (
		he  *echo.HTTPError
		mbe *http.MaxBytesError
	)
	switch {
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, client.ErrorBody{Code: oplog.EINVALID,
			Message: fmt.Sprintf("request body is over the limit of %d bytes", mbe.Limit)}
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
	code := oplog.ErrorCode(err)
	body := client.ErrorBody{Code: code, Message: oplog.ErrorMessage(err)}
	if be, ok := oplog.IsBatchError(err); ok {
		body.Index = &be.Index
	}
	if code == oplog.EINTERNAL {
		s.logger.Error("request failed", "method", c.Request().Method, "path", c.Path(), "err", err)
	}
	return oplog.HTTPStatus(code), body
}
