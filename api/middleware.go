package api

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// authorize checks the bearer token in constant time, or else the web
// page's cookie (see cookieAuth).
func (s *Server) authorize(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Set(genKey, s.gen.Load()) // before the token: see revoke.go
		want := *s.token.Load()
		scheme, got, _ := strings.Cut(c.Request().Header.Get(echo.HeaderAuthorization), " ")
		if !strings.EqualFold(scheme, "Bearer") || want == "" ||
			subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(want)) != 1 {
			if ok, err := s.cookieAuth(c); !ok {
				if err != nil {
					return err
				}
				return unauthorized(c)
			}
		}
		return next(c)
	}
}

// limitBody refuses bodies over MaxBodyBytes: at once when Content-Length
// says so, otherwise (chunked) when reading passes the limit.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.ContentLength > s.opts.MaxBodyBytes {
			return &http.MaxBytesError{Limit: s.opts.MaxBodyBytes}
		}
		req.Body = http.MaxBytesReader(c.Response(), req.Body, s.opts.MaxBodyBytes)
		return next(c)
	}
}

// logRequests logs every request at debug level, after its answer (errors
// included) is written.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		s.logger.Debug("request", "method", c.Request().Method, "route", c.Path(), // not the URL: a path may hold a token
			"status", c.Response().Status, "duration", time.Since(start))
		return nil
	}
}

// recoverPanics turns a handler's panic into a 500 and a log entry with the stack.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler {
				panic(r) // net/http's way to abort a response; not a bug
			}
			s.logger.Error("BUG: handler panicked", "method", c.Request().Method, "route", c.Path(), "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("handler panicked: %v", r)
		}()
		return next(c)
	}
}

// timeRequests tells Options.ObserveRequest of each HTTP request once its answer
// (errors included) is written. The MCP endpoint and the page's event
// stream are left out: their streams last as long as a session, and
// tools/call is timed by tool.
func (s *Server) timeRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.opts.ObserveRequest == nil {
			return next(c)
		}
		start := time.Now()
		err := next(c)
		route := c.Path() // the template, never the URL: a path may hold a token
		if route == "/mcp" || strings.HasPrefix(route, "/mcp/") || route == "/api/v1/stream" {
			return err
		}
		if err != nil {
			c.Error(err) // write the answer now, to know its status
			err = nil
		}
		code := c.Response().Status
		if code == http.StatusNotFound && !s.isRoute(route) {
			route = "unmatched" // a scanner's made-up paths must not become labels
		}
		s.opts.ObserveRequest(route, c.Request().Method, code, time.Since(start))
		return err
	}
}

// isRoute reports whether path is a registered route template.
func (s *Server) isRoute(path string) bool {
	return slices.ContainsFunc(s.echo.Routes(), func(r *echo.Route) bool { return r.Path == path })
}

// untilShutdown returns a context that ends with parent (the request's) or
// when Shutdown starts, whichever comes first: long polls, the event
// stream and the MCP endpoint's waiting tools answer with what they have
// instead of holding Shutdown up.
func (s *Server) untilShutdown(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	stop := context.AfterFunc(s.stopping, cancel)
	return ctx, func() { stop(); cancel() }
}
