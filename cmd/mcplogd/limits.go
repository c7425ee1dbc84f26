package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/oplog"
)

// serveLimits are serve's flags for what long-lived requests may hold and
// how long an operation may stay pending.
type serveLimits struct {
	pendingMaxAge            time.Duration
	pendingMaxAgeSet         bool // given as a flag: config.json's does not count
	sessions, streams, polls int
	sessionIdle              time.Duration
}

func (l *serveLimits) register(fs *flag.FlagSet) {
	l.pendingMaxAge = oplog.DefaultMaxPendingAge
	fs.Var(setDuration{durationValue{&l.pendingMaxAge}, &l.pendingMaxAgeSet}, "pending-max-age", "settle as timeout an operation still pending this long after its start, e.g. 24h or 7d (0: never; also \"pendingMaxAge\" in DATA/config.json)")
	fs.IntVar(&l.sessions, "max-mcp-sessions", api.DefaultMaxMCPSessions, "MCP sessions open at once; at the cap the least recently used idle one makes room, and only when all are in use does a new one get 503 with Retry-After (0: no limit)")
	fs.IntVar(&l.streams, "max-streams", api.DefaultMaxStreams, "event streams (GET /api/v1/stream) open at once; more get 503 (0: no limit)")
	fs.IntVar(&l.polls, "max-long-polls", api.DefaultMaxLongPolls, "requests waiting at once (waitMs of /api/v1/tail, console_tail, get_result); more get 503 (0: no limit)")
	durationVar(fs, &l.sessionIdle, "mcp-session-idle", api.DefaultMCPSessionIdle, "close an MCP session that sent no request for this long (0: never)")
}

// setDuration is a duration flag that notes it was given.
type setDuration struct {
	durationValue
	set *bool
}

func (v setDuration) Set(s string) error {
	*v.set = true
	return v.durationValue.Set(s)
}

// withConfig takes config.json's pendingMaxAge unless the flag was given.
func (l *serveLimits) withConfig(cfg datadir.Config) error {
	if l.pendingMaxAgeSet || cfg.PendingMaxAge == "" {
		return nil
	}
	if err := (durationValue{&l.pendingMaxAge}).Set(cfg.PendingMaxAge); err != nil {
		return fmt.Errorf("config.json: pendingMaxAge %q: %w", cfg.PendingMaxAge, err)
	}
	return nil
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
