package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP endpoint's sessions: how many may be open (Limits.MCPSessions),
// the token generation each was opened in (a rotation closes the older
// ones), which are in use, and the cap on tool calls that wait
// (Limits.LongPolls). At the session cap, an initialize evicts an idle
// session: one with no request in flight and no open GET stream. Sessions
// that sent a request past their initialize in the last mcpSessionRecent (an
// agent thinking between calls) go last; among the others (abandoned ones)
// the least recently used goes first. Only when every session is in use is
// the new client refused, so a flood of abandoned sessions never keeps a new
// client out.

// sessionRegistry knows every open MCP session: the generation it was
// opened in and whether it is in use.
type sessionRegistry struct {
	slots *slots // reserved by initializes in flight; live sessions are counted in srv
	srv   *mcp.Server

	mu       sync.Mutex
	open     map[string]*sessionUse // by session ID
	creating int
	now      func() time.Time // the clock of sessionUse.last
}

// sessionUse is what the registry knows of one open session.
type sessionUse struct {
	gen     uint64    // the generation it was opened in
	active  int       // requests in flight, an open GET stream included
	last    time.Time // when a request last began or ended
	used    bool      // it sent a request past initialize and notifications/initialized
	evicted bool      // closed to make room: 404 until the SDK forgets it
}

// eviction tells of a session closed to make room for a new one.
type eviction struct {
	id   string
	idle time.Duration
}

func newSessionRegistry(max int) *sessionRegistry {
	return &sessionRegistry{slots: newSlots(max, "MCP sessions", "--max-mcp-sessions"), open: map[string]*sessionUse{}, now: time.Now}
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

// admit reserves room for one more session, at the cap by evicting the
// least recently used idle session (returned, closed in the background);
// false when every session is in use.
func (r *sessionRegistry) admit() (ok bool, ev *eviction) {
	r.mu.Lock()
	defer r.mu.Unlock()
	live := r.live()
	n := len(live) + r.creating
	for id, u := range r.open {
		switch {
		case live[id] == nil: // closed since (idle, DELETE, evicted): forget
			delete(r.open, id)
		case u.evicted: // closing: its room is taken already
			n--
		}
	}
	if max := r.slots.max; max > 0 && int64(n) >= max {
		id, u := r.leastRecent()
		if u == nil {
			return false, nil
		}
		u.evicted = true
		ss := live[id]
		go func() { _ = ss.Close() }() // the SDK forgets it: its next request gets 404
		ev = &eviction{id: id, idle: r.now().Sub(u.last)}
	}
	r.creating++
	return true, ev
}

// leastRecent returns the idle session to evict (no request in flight, no
// open GET stream): the least recently used of those not used lately, else
// the least recently used of all; nil when every session is in use. Under
// r.mu.
func (r *sessionRegistry) leastRecent() (string, *sessionUse) {
	var id string
	var lru *sessionUse
	now := r.now()
	// working: a session that called lately; an abandoned one goes first
	// however recently it opened.
	working := func(u *sessionUse) bool { return u.used && now.Sub(u.last) < mcpSessionRecent }
	for sid, u := range r.open {
		if u.evicted || u.active > 0 {
			continue
		}
		if lru == nil || working(lru) && !working(u) || working(u) == working(lru) && u.last.Before(lru.last) {
			id, lru = sid, u
		}
	}
	return id, lru
}

// enter notes a request of session id in flight until leave is called,
// work saying it is more than the notifications/initialized that ends an
// initialize; false for a session evicted to make room (which the request
// may not use). A session the registry does not know is left to the SDK.
func (r *sessionRegistry) enter(id string, work bool) (leave func(), ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.open[id]
	if u == nil {
		return func() {}, true
	}
	if u.evicted {
		return nil, false
	}
	u.active++
	u.used = u.used || work
	u.last = r.now()
	return func() {
		r.mu.Lock()
		u.active--
		u.last = r.now()
		r.mu.Unlock()
	}, true
}

// busyMessage is the refusal of an initialize when every session is in use.
func (r *sessionRegistry) busyMessage() string {
	return fmt.Sprintf("too many MCP sessions: all %d are in use (each has a request in flight or an open GET stream), "+
		"so none can make room; close the MCP clients you no longer use, "+
		"or start mcplogd serve with a higher --max-mcp-sessions; retry after %d s", r.slots.max, retryAfter)
}

// opened ends admit's reservation, noting the session id (none when the
// initialize failed) as opened in generation g; one whose token was
// replaced meanwhile is closed at once.
func (r *sessionRegistry) opened(id string, g *generation) {
	r.mu.Lock()
	r.creating--
	if id != "" {
		r.open[id] = &sessionUse{gen: g.n, last: r.now()}
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
	u, ok := r.open[id]
	r.mu.Unlock()
	if !ok || u.gen == cur {
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
		if _, ok := r.open[id]; !ok {
			r.open[id] = &sessionUse{}
		}
	}
	r.mu.Unlock()
	r.closeIf(func(_ string, n uint64) bool { return n < cur })
}

// closeIf closes and forgets the registered sessions that drop reports.
func (r *sessionRegistry) closeIf(drop func(id string, gen uint64) bool) {
	var ids []string
	r.mu.Lock()
	for id, u := range r.open {
		if drop(id, u.gen) {
			ids = append(ids, id)
			delete(r.open, id)
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
// unless its session was opened with a replaced token or evicted (404, the
// session closed), it opens a session at the cap while every session is in
// use, or it is a tool call that waits past the long-poll cap (503 with
// Retry-After and a JSON-RPC error). A request of a session keeps it in use
// while h serves it. body is a POST's, nil otherwise.
func (s *Server) guardMCP(c echo.Context, h http.Handler, w http.ResponseWriter, r *http.Request, body []byte) {
	g := s.generationOf(c)
	id := r.Header.Get("Mcp-Session-Id")
	msgs := peekRPC(body)
	if id != "" {
		if !s.sessions.current(id, s.gen.Load().n) {
			http.Error(w, "session not found: the token it was opened with has been replaced", http.StatusNotFound)
			return
		}
		leave, ok := s.sessions.enter(id, r.Method != http.MethodPost || !msgs.initialized)
		if !ok {
			http.Error(w, "session not found: it was idle and closed to make room for a new session; initialize a new one", http.StatusNotFound)
			return
		}
		defer leave()
	}
	if g.revoked() && r.Method != http.MethodDelete {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if id == "" && r.Method == http.MethodPost && msgs.initialize {
		ok, ev := s.sessions.admit()
		if !ok {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
			writeRPCError(w, http.StatusServiceUnavailable, msgs.id, -32000, s.sessions.busyMessage())
			return
		}
		if ev != nil {
			s.logger.Info("MCP session evicted to make room for a new one", "session_id", ev.id, "idle", ev.idle.Round(time.Millisecond))
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
	id          json.RawMessage // the first request's ID
	initialize  bool            // one is initialize
	initialized bool            // every one is notifications/initialized
	waits       bool            // one is a tools/call with waitMs > 0
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
	p.initialized = len(msgs) > 0
	for _, m := range msgs {
		p.initialized = p.initialized && m.Method == "notifications/initialized"
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
