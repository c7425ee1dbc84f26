package api

import (
	"context"

	"github.com/labstack/echo/v4"
)

// Token rotation revokes what the old token opened. Every token has a
// generation; a request records the generation it was authorised in (taken
// before the token is compared, so that a request that passed with an old
// token never gets a newer generation). SetToken ends the old generation:
// event streams opened in it end before their next event or heartbeat,
// waiting long polls end, and MCP sessions opened in it are closed (see
// mcp_sessions.go), so that their next request gets 404.

// generation is one token's lifetime: ctx ends when the token is replaced.
type generation struct {
	n      uint64
	ctx    context.Context
	cancel context.CancelFunc
}

func newGeneration(n uint64) *generation {
	g := &generation{n: n}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	return g
}

// revoked reports whether g's token has been replaced.
func (g *generation) revoked() bool { return g.ctx.Err() != nil }

// genKey is the echo.Context key of the generation a request was authorised in.
const genKey = "mcplogd.generation"

// rotate makes a new generation current and ends the old one. Called by
// SetToken after the new token is stored.
func (s *Server) rotate() {
	for {
		old := s.gen.Load()
		g := newGeneration(old.n + 1)
		if s.gen.CompareAndSwap(old, g) {
			old.cancel()
			s.sessions.revoke(g.n)
			return
		}
	}
}

// withGeneration records the current generation in c before the token
// checks that follow it run.
func (s *Server) withGeneration(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Set(genKey, s.gen.Load())
		return next(c)
	}
}

// generationOf returns the generation c was authorised in (the current one
// for a route without a token).
func (s *Server) generationOf(c echo.Context) *generation {
	if g, ok := c.Get(genKey).(*generation); ok {
		return g
	}
	return s.gen.Load()
}

// untilRevoked returns a context that also ends when the token c was
// authorised with is replaced.
func (s *Server) untilRevoked(parent context.Context, c echo.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	stop := context.AfterFunc(s.generationOf(c).ctx, cancel)
	return ctx, func() { stop(); cancel() }
}
