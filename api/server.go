package api

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// Options configures a Server. Token is required; a zero field otherwise
// means its documented default.
type Options struct {
	// Options configures the MCP server at /mcp/{token} (package
	// mcptools); its Version is reported by /healthz and /api/v1/info
	// too, its FileSize and FileFree by /api/v1/info as fileBytes and
	// fileFreeBytes, and its Logger receives failed requests (and every
	// request at debug level).
	mcptools.Options

	// Token is the credential of every /api/v1 route, sent as
	// "Authorization: Bearer <token>": 64 hex characters (32 random bytes).
	Token string

	// MaxBodyBytes limits request bodies; larger ones get 413. Default
	// DefaultMaxBodyBytes (1 MiB).
	MaxBodyBytes int64

	// Limits caps MCP sessions, event streams and long polls (limits.go).
	Limits Limits

	// RotateToken makes, saves and returns a new token for
	// POST /api/v1/token/rotate; from then on only the new token is
	// accepted. Nil: that route answers 404.
	RotateToken func() (string, error)

	// AllowOrigins lists extra origins ("https://tool.example:8443") whose
	// browser pages may call the MCP endpoint; their hosts are also
	// accepted in the Host header. Nil: only the server's own origin.
	AllowOrigins []string

	// Routes are endpoints other packages serve beside the API: GET
	// /metrics (package metrics) and POST /v1/logs (package otlp). Nil:
	// none.
	Routes []Route

	// ObserveRequest, when set, is told of every HTTP request once its
	// answer (errors included) is written, with the route template (never
	// the URL, which may hold a token; "unmatched" for a path that is no
	// route), the method as sent, the status and how long it took. The MCP
	// endpoint and the event stream are left out: their streams last as
	// long as a session (package metrics times tools/call by tool instead).
	ObserveRequest func(route, method string, code int, took time.Duration)
}

// Route is an endpoint that another package serves beside the API. Like
// /api/v1, it needs the token (or the web page's cookie).
type Route struct {
	Method, Path string
	Handler      http.Handler

	// WriteError answers the errors the server gives this route before
	// Handler runs (a missing or wrong token) in the route's own shape
	// (OTLP answers a google.rpc.Status). Nil: the API's JSON error. A body
	// over MaxBodyBytes by its Content-Length is refused in the API's
	// shape either way, before any route runs.
	WriteError func(w http.ResponseWriter, r *http.Request, status int, code, message string)
}

// Validate reports the first invalid field, by name.
func (o *Options) Validate() error {
	if err := checkToken(o.Token); err != nil {
		return fmt.Errorf("api: Options.Token: %w", err)
	}
	if o.MaxBodyBytes < 0 {
		return fmt.Errorf("api: Options.MaxBodyBytes: must not be negative, got %d", o.MaxBodyBytes)
	}
	for _, origin := range o.AllowOrigins {
		if u, err := url.Parse(origin); err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" && u.Path != "/" {
			return fmt.Errorf("api: Options.AllowOrigins: %q is not an origin; want scheme://host[:port]", origin)
		}
	}
	return nil
}

func checkToken(token string) error {
	if token == "" {
		return fmt.Errorf("missing")
	}
	if _, err := hex.DecodeString(token); len(token) != 64 || err != nil {
		return fmt.Errorf("must be 64 hex characters, got %d characters", len(token))
	}
	return nil
}

// Server is the HTTP API of one Log. It is safe for concurrent use.
type Server struct {
	log    *oplog.Log
	opts   Options
	logger *slog.Logger
	echo   *echo.Echo
	srv    *http.Server
	token  atomic.Pointer[string]
	gen    atomic.Pointer[generation] // the current token's (revoke.go)

	sessions *sessionRegistry // MCP sessions (mcp_sessions.go)
	streams  *slots           // open event streams
	polls    *slots           // waiting long polls

	// stopping ends long polls at Shutdown, which would otherwise wait for them.
	stopping context.Context
	stop     context.CancelFunc
}

// New returns a Server for l. It fails when opts is nil or invalid (see
// Options.Validate).
func New(l *oplog.Log, opts *Options) (*Server, error) {
	if l == nil {
		return nil, fmt.Errorf("api: New: nil *oplog.Log")
	}
	if opts == nil {
		return nil, fmt.Errorf("api: New: nil *Options; Options.Token is required")
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &Server{log: l, opts: *opts, logger: opts.Logger}
	if s.opts.MaxBodyBytes == 0 {
		s.opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.token.Store(&s.opts.Token)
	s.gen.Store(newGeneration(1))
	s.opts.Limits = s.opts.Limits.withDefaults()
	s.sessions = newSessionRegistry(s.opts.Limits.MCPSessions)
	s.streams = newSlots(s.opts.Limits.Streams, "event streams", "--max-streams")
	s.polls = newSlots(s.opts.Limits.LongPolls, "waiting long polls", "--max-long-polls")
	s.stopping, s.stop = context.WithCancel(context.Background())

	e := echo.New()
	e.JSONSerializer = jsonSerializer{}
	e.HideBanner, e.HidePort = true, true
	e.Logger.SetOutput(io.Discard) // everything worth saying goes to s.logger
	e.HTTPErrorHandler = s.handleError
	e.Use(s.timeRequests, s.logRequests, s.recoverPanics, s.limitBody, unescapeHTML)
	s.echo = e
	s.routes()

	s.srv = &http.Server{
		Handler:           e,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	return s, nil
}

func (s *Server) routes() {
	s.echo.GET("/healthz", s.healthz)
	g := s.echo.Group("/api/v1", s.authorize)
	g.POST("/logs", s.appendLines)
	g.GET("/positions", s.position)
	g.POST("/operations", s.startOperation)
	g.POST("/operations/:id/complete", s.completeOperation)
	g.POST("/operations/:id/replay", s.replay)
	g.GET("/records/:id", s.getRecord)
	g.GET("/records", s.listRecords)
	g.GET("/tail", s.tail)
	g.GET("/info", s.info)
	g.GET("/names", s.names)
	g.GET("/records/:id/neighbors", s.neighbors)
	g.GET("/operations/:id", s.getOperation)
	g.POST("/clear", s.clear)
	g.GET("/crashes", s.crashes)
	g.GET("/search", s.search)
	g.GET("/stream", s.stream)
	g.GET("/runs", s.runs)
	g.GET("/stats", s.stats)
	g.GET("/compare", s.compare)
	g.GET("/studio", s.studioInfo)
	if s.opts.RotateToken != nil {
		g.POST("/token/rotate", s.rotateToken)
	}
	s.mountMCP()
	s.mountUI()
	for _, rt := range s.opts.Routes {
		s.mountRoute(rt)
	}
}

// mountRoute adds rt behind the token check.
func (s *Server) mountRoute(rt Route) {
	auth := s.authorize
	if rt.WriteError != nil {
		auth = func(next echo.HandlerFunc) echo.HandlerFunc {
			checked := s.authorize(next)
			return func(c echo.Context) error {
				err := checked(c)
				if err == nil || c.Response().Committed {
					return err
				}
				status, body := s.errorAnswer(err, c)
				rt.WriteError(c.Response(), c.Request(), status, body.Code, body.Message)
				return nil
			}
		}
	}
	s.echo.Add(rt.Method, rt.Path, echo.WrapHandler(rt.Handler), auth)
}

// Handler returns the HTTP handler of every route (the Echo instance).
func (s *Server) Handler() http.Handler { return s.echo }

// Echo returns the Echo instance, so that other endpoints (MCP) can be
// mounted beside the API. Routes added there do not require the token.
func (s *Server) Echo() *echo.Echo { return s.echo }

// SetToken makes token the only credential accepted from now on. Requests
// already past the check finish; event streams, long polls and MCP sessions
// opened with the old token end (revoke.go). An empty token refuses every
// request.
func (s *Server) SetToken(token string) {
	s.token.Store(&token)
	s.rotate()
}

// Serve answers HTTP requests on ln until Shutdown; then it returns
// http.ErrServerClosed.
func (s *Server) Serve(ln net.Listener) error { return s.srv.Serve(ln) }

// Shutdown stops accepting connections, ends waiting long polls (they
// answer with what they have) and waits for the requests in flight until
// ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stop()
	return s.srv.Shutdown(ctx)
}
