package api

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/mcptools"
)

// mountMCP serves the Streamable HTTP MCP endpoint at /mcp/:token. Every
// request passes, in order: the Host and Origin rules (403), the token (404
// with no hint, like any unknown path), then the SDK, which answers
// protocol errors itself. Bodies over MaxBodyBytes get 413 from limitBody
// and, for bodies without a length, from the SDK's own reader.
func (s *Server) mountMCP() {
	requests := &mcptools.Requests{}
	opts := s.opts.Options
	opts.Logger, opts.Requests = quietSessions(s.logger), requests
	srv := mcptools.New(s.log, &opts)
	s.sessions.srv = srv
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		// checkOrigin applies the rules below, for non-loopback listeners too.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        s.opts.MaxBodyBytes,
		SessionTimeout:             max(s.opts.Limits.MCPSessionIdle, 0),
		Logger:                     s.logger,
	})
	modern := s.newModernHandler(srv)
	serve := func(c echo.Context) error {
		w, r := c.Response(), c.Request()
		// Shutdown ends waiting tools (they answer with what they have)
		// and standalone SSE streams, which would otherwise hold it up.
		ctx, cancel := s.untilShutdown(r.Context())
		defer cancel()
		if r.Method == http.MethodGet {
			// The standalone SSE stream lives as long as the session, past
			// the server's read and write timeouts.
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Time{})
			_ = rc.SetWriteDeadline(time.Time{})
			r = r.WithContext(ctx)
		}
		done := requests.Register(r, ctx)
		defer done()
		if r.Method != http.MethodPost {
			s.guardMCP(c, h, w, r, nil)
			return nil
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return err // over the limit: 413
		}
		if !json.Valid(body) {
			writeRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, "Parse error: the body is not JSON")
			return nil
		}
		if depth := jsonDepth(body); depth > mcpMaxDepth {
			// The SDK refuses it in plain text, for both generations.
			writeRPCError(w, http.StatusBadRequest, requestID(body), jsonrpc.CodeParseError, fmt.Sprintf(
				"Parse error: the JSON nests %d levels deep; an MCP message may nest at most %d", depth, mcpMaxDepth))
			return nil
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if ok, listen := isModern(r, body); ok {
			s.guardModern(ctx, c, modern, w, r, body, listen)
			return nil
		}
		rw := &rpcErrorWriter{ResponseWriter: w, request: body}
		s.guardMCP(c, h, rw, r, body)
		rw.finish()
		return nil
	}
	s.echo.Any("/mcp/:token", serve, s.withGeneration, s.checkOrigin, s.checkMCPToken)
	// The same endpoint for clients that insist on a path ending in /mcp
	// (the MCP Inspector's CLI replaces any other path with /mcp): at
	// /mcp/TOKEN/mcp, and at /mcp with the token as "Authorization: Bearer".
	s.echo.Any("/mcp/:token/mcp", serve, s.withGeneration, s.checkOrigin, s.checkMCPToken)
	s.echo.Any("/mcp", serve, s.withGeneration, s.checkOrigin, s.checkMCPBearer)
}

// checkMCPBearer answers 404, like checkMCPToken, unless the Authorization
// header carries the current token.
func (s *Server) checkMCPBearer(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		want := *s.token.Load()
		got, ok := strings.CutPrefix(c.Request().Header.Get("Authorization"), "Bearer ")
		if !ok || want == "" || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(want)) != 1 {
			return echo.ErrNotFound
		}
		return next(c)
	}
}

// checkMCPToken answers 404, as for any unknown path, unless the path holds
// the current token.
func (s *Server) checkMCPToken(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		want := *s.token.Load()
		if want == "" || subtle.ConstantTimeCompare([]byte(c.Param("token")), []byte(want)) != 1 {
			return echo.ErrNotFound
		}
		return next(c)
	}
}

// checkOrigin is the DNS-rebinding defence of the 2025-11-25 spec: 403 for
// a Host that is not a loopback name or address, the address the request
// arrived on, or the host of an allowed origin; and 403 for an Origin that
// is present and neither the server's own (same scheme, host and port as
// the request, or a loopback host on the port the request arrived on) nor
// one of Options.AllowOrigins.
func (s *Server) checkOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if !s.allowedHost(r) {
			return echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf("Host %q is not this server's address; use the link that mcplogd serve prints", r.Host))
		}
		if o := r.Header.Get(echo.HeaderOrigin); o != "" && !s.allowedOrigin(r, o) {
			return echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf("Origin %q may not use this server; start it with --allow-origin %s to allow it", o, o))
		}
		return next(c)
	}
}

func (s *Server) allowedHost(r *http.Request) bool {
	host := hostOnly(r.Host)
	if isLoopbackHost(host) {
		return true
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && hostOnly(local.String()) == host {
		return true
	}
	for _, o := range s.opts.AllowOrigins {
		if u, err := url.Parse(o); err == nil && strings.EqualFold(u.Hostname(), host) {
			return true
		}
	}
	return false
}

func (s *Server) allowedOrigin(r *http.Request, origin string) bool {
	origin = strings.ToLower(strings.TrimSuffix(origin, "/"))
	for _, o := range s.opts.AllowOrigins {
		if strings.ToLower(strings.TrimSuffix(o, "/")) == origin {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return false // "null" and other opaque origins
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true // same origin: the web page this server serves
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || !isLoopbackHost(u.Hostname()) {
		return false
	}
	_, port, _ := net.SplitHostPort(local.String())
	return port != "" && u.Port() == port
}

// hostOnly returns the host of host[:port], lower case, without brackets.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		hostport = h
	}
	return strings.ToLower(strings.Trim(hostport, "[]"))
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// notHandled starts the SDK's plain-text answer to a request for a method
// it does not know (jsonrpc2.ErrNotHandled).
const notHandled = "JSON RPC not handled"

// rpcErrorWriter turns the SDK's plain-text 400 for an unknown method into
// the JSON-RPC error -32601 for the request's ID, as the spec asks and
// clients expect. Every other answer passes through.
type rpcErrorWriter struct {
	http.ResponseWriter
	request []byte
	held    *bytes.Buffer // a plain-text 400, held back until finish
}

func (w *rpcErrorWriter) WriteHeader(code int) {
	if code == http.StatusBadRequest && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.held = new(bytes.Buffer)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rpcErrorWriter) Write(b []byte) (int, error) {
	if w.held != nil {
		return w.held.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController flush the SDK's event streams.
func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *rpcErrorWriter) finish() {
	if w.held == nil {
		return
	}
	msg := strings.TrimSpace(w.held.String())
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if strings.HasPrefix(msg, notHandled) && json.Unmarshal(w.request, &req) == nil && len(req.ID) > 0 {
		w.Header().Del("X-Content-Type-Options")
		writeRPCError(w.ResponseWriter, http.StatusOK, req.ID, jsonrpc.CodeMethodNotFound, fmt.Sprintf("Method not found: %q", req.Method))
		return
	}
	w.ResponseWriter.WriteHeader(http.StatusBadRequest)
	_, _ = w.ResponseWriter.Write(w.held.Bytes())
}

// jsonDepth is how deep the JSON b nests its objects and arrays, counted
// as the go-sdk counts them for mcpMaxDepth: brackets outside strings.
func jsonDepth(b []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// requestID is the id of the JSON-RPC request b, or nil (null) when b is
// no single request with one.
func requestID(b []byte) json.RawMessage {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(b, &req) != nil {
		return nil
	}
	return req.ID
}

// writeRPCError answers with a JSON-RPC error; a nil id is written as null.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
