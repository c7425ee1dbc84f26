package api

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
)

// unescapeHTML wraps the MCP endpoint's answer writer: the SDK marshals tool
// results with json.Marshal, which writes < > & as \u003c \u003e \u0026;
// this turns them back (oplog.UnescapeWriter), as every other JSON answer
// of mcplogd is written. Content-Length, if any, is dropped: the answer
// can only get shorter, and goes out chunked.
func unescapeHTML(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !strings.HasPrefix(c.Request().URL.Path, "/mcp") {
			return next(c) // the other answers are written without escapes
		}
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

// unescapeResponse is an http.ResponseWriter whose body goes through an
// oplog.UnescapeWriter.
type unescapeResponse struct {
	http.ResponseWriter
	u oplog.UnescapeWriter
}

func (w *unescapeResponse) WriteHeader(code int) {
	w.Header().Del(echo.HeaderContentLength)
	w.ResponseWriter.WriteHeader(code)
}

func (w *unescapeResponse) Write(p []byte) (int, error) { return w.u.Write(p) }

// Flush sends what is held and flushes the connection (the SDK's event
// streams flush after each event).
func (w *unescapeResponse) Flush() {
	_ = w.u.Flush()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *unescapeResponse) Unwrap() http.ResponseWriter { return w.ResponseWriter }
