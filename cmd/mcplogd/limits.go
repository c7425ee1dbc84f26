package main

import (
	"context"
	"flag"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/oplog"
)

// serveLimits are serve's flags for what long-lived requests may hold and
// how long an operation may stay pending.
type serveLimits struct {
	pendingMaxAge            time.Duration
	sessions, streams, polls int
	sessionIdle              time.Duration
}

func (l *serveLimits) register(fs *flag.FlagSet) {
	durationVar(fs, &l.pendingMaxAge, "pending-max-age", oplog.DefaultMaxPendingAge, "settle as timeout an operation still pending this long after its start, e.g. 24h or 7d (0: never)")
	fs.IntVar(&l.sessions, "max-mcp-sessions", api.DefaultMaxMCPSessions, "MCP sessions open at once; more get 503 with Retry-After (0: no limit)")
	fs.IntVar(&l.streams, "max-streams", api.DefaultMaxStreams, "event streams (GET /api/v1/stream) open at once; more get 503 (0: no limit)")
	fs.IntVar(&l.polls, "max-long-polls", api.DefaultMaxLongPolls, "requests waiting at once (waitMs of /api/v1/tail, console_tail, get_result); more get 503 (0: no limit)")
	durationVar(fs, &l.sessionIdle, "mcp-session-idle", api.DefaultMCPSessionIdle, "close an MCP session that sent no request for this long (0: never)")
}

// api returns the limits as api.Options takes them (0 there means default,
// negative none).
func (l *serveLimits) api() api.Limits {
	none := func(n int) int {
		if n <= 0 {
			return -1
		}
		return n
	}
	idle := l.sessionIdle
	if idle == 0 {
		idle = -1
	}
	return api.Limits{MCPSessions: none(l.sessions), Streams: none(l.streams), LongPolls: none(l.polls), MCPSessionIdle: idle}
}

// expire starts settling, as timeout, the operations pending longer than
// --pending-max-age, leaving out the upstreams' (the gateway settles those
// at its start). It runs until log closes.
func (l *serveLimits) expire(log *oplog.Log, c *serveConfig, s *server) error {
	if l.pendingMaxAge == 0 {
		return nil
	}
	upstreams := map[string]bool{}
	for _, u := range c.upstreams {
		upstreams[u.Name] = true
	}
	return log.ExpirePending(context.Background(), &oplog.ExpireOptions{MaxAge: l.pendingMaxAge,
		Skip: func(source string) bool { return upstreams[source] }, Logger: s.logger})
}
