package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP endpoint speaks two generations of the protocol on one link.
// 2025-11-25 and older open a session with initialize and carry its
// Mcp-Session-Id on every request: the go-sdk's stateful handler serves
// them. 2026-07-28 has no handshake and no session: each request names the
// protocol version in its _meta (and in the MCP-Protocol-Version header)
// and server/discover replaces initialize. The go-sdk serves that
// generation only in its stateless mode, so a second, stateless handler
// over the same *mcp.Server answers those requests. Both see the same tools
// and resources, and ResourceUpdated reaches the subscribers of both
// (resources/subscribe sessions and subscriptions/listen streams alike).

// modernVersion is the first protocol version without sessions.
const modernVersion = "2026-07-28"

// newModernHandler returns the stateless go-sdk handler for 2026-07-28
// requests over srv, with the same body limit as the stateful one. The
// Host, Origin and token rules run before either.
func (s *Server) newModernHandler(srv *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		DisableLocalhostProtection: true, // checkOrigin applies mcplogd's rules
		MaxRequestBodyBytes:        s.opts.MaxBodyBytes,
		Logger:                     s.logger,
	})
}

// modernRequest is what isModern reads of a POST body.
type modernRequest struct {
	Method string `json:"method"`
	Params struct {
		Meta map[string]any `json:"_meta"`
	} `json:"params"`
}

// isModern reports whether a POST belongs to the 2026-07-28 generation: it
// carries no Mcp-Session-Id, and its MCP-Protocol-Version header or its
// _meta protocol version is 2026-07-28 or later. A request with a session
// stays with the session's handler, which refuses a 2026-07-28 version
// inside a 2025 session as the go-sdk words it. listen says whether the
// request is a subscriptions/listen stream.
func isModern(r *http.Request, body []byte) (modern, listen bool) {
	if r.Header.Get("Mcp-Session-Id") != "" {
		return false, false
	}
	var req modernRequest
	if json.Unmarshal(body, &req) != nil {
		return false, false // a batch: 2025-03-26 and older only
	}
	version, _ := req.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
	if h := r.Header.Get("Mcp-Protocol-Version"); h > version {
		version = h
	}
	modern = version >= modernVersion
	return modern, modern && req.Method == "subscriptions/listen"
}

// guardModern serves a 2026-07-28 request under the rules guardMCP keeps
// for 2025 sessions: nothing for a replaced token (404); a
// subscriptions/listen stream takes a slot of --max-streams and a waiting
// tool call one of --max-long-polls (503 with Retry-After past them); both
// end when the token they were opened with is replaced. A listen stream
// lives until the client cancels it or shutdown (ctx) ends it, past the
// server's read and write timeouts, like a 2025 session's GET stream.
// Other requests keep their own context: at shutdown a waiting tool ends
// through mcptools.Requests and still answers with what it has.
func (s *Server) guardModern(ctx context.Context, c echo.Context, h http.Handler, w http.ResponseWriter, r *http.Request, body []byte, listen bool) {
	g := s.generationOf(c)
	if g.revoked() {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	msgs := peekRPC(body)
	base := r.Context()
	switch {
	case listen:
		if !s.streams.take() {
			writeBusy(w, msgs.id, s.streams)
			return
		}
		defer s.streams.put()
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
		base = ctx
	case msgs.waits:
		if !s.polls.take() {
			writeBusy(w, msgs.id, s.polls)
			return
		}
		defer s.polls.put()
	}
	rctx, cancel := context.WithCancel(base)
	defer cancel()
	defer context.AfterFunc(g.ctx, cancel)() // a replaced token ends the stream or the wait
	h.ServeHTTP(w, r.WithContext(rctx))
}
