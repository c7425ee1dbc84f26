package api

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/oplog"
)

// Defaults of Limits, used where a field is zero.
const (
	DefaultMaxMCPSessions = 256              // Limits.MCPSessions
	DefaultMaxStreams     = 64               // Limits.Streams
	DefaultMaxLongPolls   = 256              // Limits.LongPolls
	DefaultMCPSessionIdle = 30 * time.Minute // Limits.MCPSessionIdle
)

// retryAfter is what a request refused for a full cap is told to wait (the
// Retry-After header, in seconds).
const retryAfter = 2

// Limits caps what long-lived requests hold at once, so that abandoned
// sessions and streams cannot pile up goroutines and memory, nor slow every
// append down. Past a cap, the request is refused with 503 and Retry-After.
// A zero field means its documented default; a negative one, no limit.
type Limits struct {
	// MCPSessions is how many MCP sessions may be open at once. At the
	// cap, an initialize closes an idle session (no request in flight, no
	// open GET stream) to make room, the least recently used first and
	// those that called in the last two minutes last (mcp_sessions.go); it
	// is refused only when every session is in use. Default
	// DefaultMaxMCPSessions (256).
	MCPSessions int

	// Streams is how many GET /api/v1/stream event streams may be open at
	// once. Default DefaultMaxStreams (64).
	Streams int

	// LongPolls is how many waiting requests (GET /api/v1/tail and GET
	// /api/v1/operations/{id} with waitMs, MCP tool calls with waitMs such
	// as console_tail and get_result) may wait at once. Default
	// DefaultMaxLongPolls (256).
	LongPolls int

	// MCPSessionIdle closes an MCP session that sent no request for this
	// long (a client keeps its session with pings). Default
	// DefaultMCPSessionIdle (30 minutes).
	MCPSessionIdle time.Duration
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&l.MCPSessions, DefaultMaxMCPSessions)
	def(&l.Streams, DefaultMaxStreams)
	def(&l.LongPolls, DefaultMaxLongPolls)
	if l.MCPSessionIdle == 0 {
		l.MCPSessionIdle = DefaultMCPSessionIdle
	}
	return l
}

// slots counts the holders of one cap; max <= 0 means no limit.
type slots struct {
	n    atomic.Int64
	max  int64
	what string // "event streams", for the refusal
	flag string // the serve flag that sets max
}

func newSlots(max int, what, flag string) *slots {
	return &slots{max: int64(max), what: what, flag: flag}
}

// take holds a slot; false when all are held.
func (l *slots) take() bool {
	if l.n.Add(1) > l.max && l.max > 0 {
		l.n.Add(-1)
		return false
	}
	return true
}

func (l *slots) put() { l.n.Add(-1) }

// busy is the refusal of a request past l's cap: 503 with Retry-After.
func (l *slots) busy(c echo.Context) error {
	c.Response().Header().Set("Retry-After", strconv.Itoa(retryAfter))
	return oplog.Errorf(oplog.EUNAVAILABLE, "%s", l.message())
}

func (l *slots) message() string {
	return fmt.Sprintf("too many %s: at most %d at once (mcplogd serve %s); retry after %d s", l.what, l.max, l.flag, retryAfter)
}

// Sessions returns how many MCP sessions are open.
func (s *Server) Sessions() int { return len(s.sessions.live()) }

// Streams returns how many event streams (GET /api/v1/stream) are open.
func (s *Server) Streams() int { return int(s.streams.n.Load()) }

// Waiting returns how many long polls are waiting (Limits.LongPolls).
func (s *Server) Waiting() int { return int(s.polls.n.Load()) }
