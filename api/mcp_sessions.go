package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP endpoint's sessions: how many may be open (Limits.MCPSessions),
// the token generation each was opened in (a rotation closes the older
// ones), and the cap on tool calls that wait (Limits.LongPolls).

// sessionRegistry knows the generation every open MCP session was opened in.
type sessionRegistry struct {
	slots *slots // reserved by initializes in flight; live sessions are counted in srv
	srv   *mcp.Server

	mu       sync.Mutex
	gens     map[string]uint64 // session ID → the generation it was opened in
	creating int
}

func newSessionRegistry(max int) *sessionRegistry {
	return &sessionRegistry{slots: newSlots(max, "MCP sessions", "--max-mcp-sessions"), gens: map[string]uint64{}}
}

// live returns the open sessions by ID: those initialized, not the
// short-lived ones the SDK makes for a request without a session that is
// not initialize (and closes after it). Under r.mu or not.
func (r *sessionRegistry) live() map[string]*mcp.ServerSession {
	m := map[string]*mcp.ServerSession{}
	if r.srv == nil {
		return m
	}
	for ss := range r.srv.Sessions() {
		if ss.InitializeParams() != nil {
			m[ss.ID()] = ss
		}
	}
	return m
}

// admit reserves room for one more session; false at the cap.
func (r *sessionRegistry) admit() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	live := r.live()
	for id := range r.gens { // closed since (idle, DELETE): forget
		if live[id] == nil {
			delete(r.gens, id)
		}
	}
	if max := r.slots.max; max > 0 && int64(len(live)+r.creating) >= max {
		return false
	}
	r.creating++
	return true
}

// opened ends admit's reservation, noting the session id (none when the
// initialize failed) as opened in generation g; one whose token was
// replaced meanwhile is closed at once.
func (r *sessionRegistry) opened(id string, g *generation) {
	r.mu.Lock()
	r.creating--
	if id != "" {
		r.gens[id] = g.n
	}
	r.mu.Unlock()
	if id != "" && g.revoked() {
		r.closeIf(func(sid string, _ uint64) bool { return sid == id })
	}
}

// current reports whether session id may go on: false, after closing it,
// for a session opened with a token that has been replaced since.
func (r *sessionRegistry) current(id string, cur uint64) bool {
	r.mu.Lock()
	n, ok := r.gens[id]
	r.mu.Unlock()
	if !ok || n == cur {
		return true // unknown: the SDK answers 404 itself
	}
	r.closeIf(func(sid string, _ uint64) bool { return sid == id })
	return false
}

// revoke closes every session opened before generation cur, and any
// initialized one it does not know (which can only be older).
func (r *sessionRegistry) revoke(cur uint64) {
	r.mu.Lock()
	for id := range r.live() {
		if _, ok := r.gens[id]; !ok {
			r.gens[id] = 0
		}
	}
	r.mu.Unlock()
	r.closeIf(func(_ string, n uint64) bool { return n < cur })
}

// closeIf closes and forgets the registered sessions that drop reports.
func (r *sessionRegistry) closeIf(drop func(id string, gen uint64) bool) {
	var ids []string
	r.mu.Lock()
	for id, n := range r.gens {
		if drop(id, n) {
			ids = append(ids, id)
			delete(r.gens, id)
		}
	}
	r.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	if r.srv == nil {
		return
	}
	for ss := range r.srv.Sessions() {
		if slices.Contains(ids, ss.ID()) {
			_ = ss.Close() // the SDK forgets it: its next request gets 404
		}
	}
}

// guardMCP passes a request of the MCP endpoint to the SDK's handler h,
// unless its session was opened with a replaced token (404, the session
// closed), it opens a session past the cap, or it is a tool call that
// waits past the long-poll cap (503 with Retry-After and a JSON-RPC error).
// body is a POST's, nil otherwise.
func (s *Server) guardMCP(c echo.Context, h http.Handler, w http.ResponseWriter, r *http.Request, body []byte) {
	g := s.generationOf(c)
	id := r.Header.Get("Mcp-Session-Id")
	if id != "" && !s.sessions.current(id, s.gen.Load().n) {
		http.Error(w, "session not found: the token it was opened with has been replaced", http.StatusNotFound)
		return
	}
	if g.revoked() && r.Method != http.MethodDelete {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	msgs := peekRPC(body)
	if id == "" && r.Method == http.MethodPost && msgs.initialize {
		if !s.sessions.admit() {
			writeBusy(w, msgs.id, s.sessions.slots)
			return
		}
		hw := &sessionWriter{ResponseWriter: w}
		hw.opened = func() { s.sessions.opened(w.Header().Get("Mcp-Session-Id"), g) }
		defer hw.open()
		w = hw
	}
	if msgs.waits {
		if !s.polls.take() {
			writeBusy(w, msgs.id, s.polls)
			return
		}
		defer s.polls.put()
	}
	if id, method, ok := sessionless(r, body); ok && r.Method == http.MethodPost {
		writeSessionless(w, id, method)
		return
	}
	h.ServeHTTP(w, r)
}

// writeBusy answers 503 with Retry-After and a JSON-RPC error naming the cap.
func writeBusy(w http.ResponseWriter, id json.RawMessage, l *slots) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	writeRPCError(w, http.StatusServiceUnavailable, id, -32000, l.message())
}

// rpcPeek is what guardMCP needs to know of a POST's JSON-RPC messages.
type rpcPeek struct {
	id         json.RawMessage // the first request's ID
	initialize bool            // one is initialize
	waits      bool            // one is a tools/call with waitMs > 0
}

func peekRPC(body []byte) rpcPeek {
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Arguments struct {
				WaitMs json.Number `json:"waitMs"`
			} `json:"arguments"`
		} `json:"params"`
	}
	var p rpcPeek
	if len(body) == 0 || !bytes.Contains(body, []byte("initialize")) && !bytes.Contains(body, []byte("waitMs")) &&
		!bytes.Contains(body, []byte(`\u`)) { // an escape could spell either
		return p
	}
	var msgs []message
	if err := json.Unmarshal(body, &msgs); err != nil {
		var m message
		if json.Unmarshal(body, &m) != nil {
			return p // the SDK words the error
		}
		msgs = []message{m}
	}
	for _, m := range msgs {
		if p.id == nil && len(m.ID) > 0 {
			p.id = m.ID
		}
		p.initialize = p.initialize || m.Method == "initialize"
		if f, err := m.Params.Arguments.WaitMs.Float64(); m.Method == "tools/call" && err == nil && f > 0 {
			p.waits = true
		}
	}
	return p
}

// sessionWriter ends an initialize's reservation (sessionRegistry.opened)
// as soon as its answer starts, before the client can open another
// session, so that the new session is not counted twice meanwhile.
type sessionWriter struct {
	http.ResponseWriter
	opened func()
	once   sync.Once
}

func (w *sessionWriter) open() { w.once.Do(w.opened) }

func (w *sessionWriter) WriteHeader(code int) {
	w.open()
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	w.open()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController flush the SDK's event streams.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
