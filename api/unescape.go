package api

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
)

// unescapeHTML wraps every answer's writer so that JSON (and Server-Sent
// Events of JSON) goes out without HTML escapes: the SDK marshals MCP tool
// results with json.Marshal, which writes < > & as \u003c \u003e \u0026,
// and records stored by other writers may hold such escapes in their data,
// arguments or results. oplog.UnescapeWriter turns them back; other
// answers (the page's files, /metrics) pass untouched. Content-Length, if
// any, is dropped from a JSON answer: it can only get shorter, and goes out
// chunked.
func unescapeHTML(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		res := c.Response()
		w := &unescapeResponse{ResponseWriter: res.Writer}
		w.u.W = res.Writer
		res.Writer = w
		defer func() {
			_ = w.u.Flush()
			res.Writer = w.ResponseWriter
		}()
		return next(c)
	}
}

// unescapeResponse is an http.ResponseWriter whose JSON body goes through
// an oplog.UnescapeWriter.
type unescapeResponse struct {
	http.ResponseWriter
	u       oplog.UnescapeWriter
	json    bool // the answer is JSON or an event stream
	started bool // WriteHeader was called
}

func (w *unescapeResponse) WriteHeader(code int) {
	if !w.started {
		w.started = true
		ct := w.Header().Get(echo.HeaderContentType)
		w.json = strings.HasPrefix(ct, echo.MIMEApplicationJSON) || strings.HasPrefix(ct, "text/event-stream")
		if w.json {
			w.Header().Del(echo.HeaderContentLength)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *unescapeResponse) Write(p []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	if !w.json {
		return w.ResponseWriter.Write(p)
	}
	return w.u.Write(p)
}

// Flush sends what is held and flushes the connection (event streams
// flush after each event).
func (w *unescapeResponse) Flush() {
	_ = w.u.Flush()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *unescapeResponse) Unwrap() http.ResponseWriter { return w.ResponseWriter }
