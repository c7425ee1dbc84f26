package api

import (
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// DefaultMaxBodyBytes is the request body limit when Options.MaxBodyBytes is zero.
const DefaultMaxBodyBytes = 1 << 20

// mcpMaxDepth is how deep the go-sdk lets a JSON-RPC message nest (its
// internal/json defaultMaxDepth); it answers a deeper one in plain text, so
// the MCP endpoint refuses it first, as a JSON-RPC parse error.
const mcpMaxDepth = 1000

// Timeouts of the http.Server that Serve runs. Writes outlast the longest
// long poll (oplog.MaxWait).
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = time.Minute
	writeTimeout      = oplog.MaxWait + 30*time.Second
	idleTimeout       = 2 * time.Minute
)

// Stream timing: an idle stream gets a comment this often, so that proxies
// and the browser see it alive; the browser reconnects after streamRetry.
const (
	streamHeartbeat = 15 * time.Second
	streamRetry     = 2 * time.Second
	// streamBacklog is how many of the newest lines a stream without
	// sinceId starts with, when limit does not say.
	streamBacklog = 500
)

// mcpSessionRecent is how long after its last call an MCP session is
// evicted last to make room at the session cap (mcp_sessions.go): an agent
// is quiet between calls while its model thinks or a person reads, for
// seconds up to a minute or two, so a session that called within it goes
// after every session that only initialized (a crash-looping client or a
// script never calls its abandoned sessions again). A session with a
// request in flight or an open GET stream is never evicted, however long
// ago that request began.
const mcpSessionRecent = 2 * time.Minute
