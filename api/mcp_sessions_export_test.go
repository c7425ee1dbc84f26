package api

import "time"

// SessionRecent is how long after its last request a session may not be
// evicted (mcpSessionRecent).
const SessionRecent = mcpSessionRecent

// SetSessionClock makes now the clock that dates the requests of s's MCP
// sessions, so that a test can age them without waiting.
func SetSessionClock(s *Server, now func() time.Time) {
	s.sessions.mu.Lock()
	s.sessions.now = now
	s.sessions.mu.Unlock()
}

// SessionInUse reports whether MCP session id has a request in flight (an
// open GET stream included).
func SessionInUse(s *Server, id string) bool {
	s.sessions.mu.Lock()
	defer s.sessions.mu.Unlock()
	u := s.sessions.open[id]
	return u != nil && u.active > 0
}
