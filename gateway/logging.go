package gateway

//lint:file-ignore SA1019 MCP log messages are deprecated from protocol 2026-07-28 (SEP-2577) but still sent by the upstreams of today, and the gateway is asked to store them.

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// receiveLogs stores the upstream's notifications/message as console lines.
func (u *upstream) receiveLogs(opts *mcp.ClientOptions) {
	opts.LoggingMessageHandler = func(ctx context.Context, req *mcp.LoggingMessageRequest) {
		u.logMessage(ctx, req.Params)
	}
}

// askForLogs asks an upstream that offers logging for every level.
func (u *upstream) askForLogs(ctx context.Context, s *mcp.ClientSession) {
	if init := s.InitializeResult(); init != nil && init.Capabilities != nil && init.Capabilities.Logging != nil {
		if err := s.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			u.g.opts.Logger.Warn("upstream refused logging/setLevel", "upstream", u.cfg.Name, "err", err)
		}
	}
}

// rfc5424 maps MCP logging levels (RFC 5424 names) to ours.
var rfc5424 = map[mcp.LoggingLevel]oplog.Level{
	"debug": oplog.LevelDebug, "info": oplog.LevelInfo, "notice": oplog.LevelInfo, "warning": oplog.LevelWarn,
	"error": oplog.LevelError, "critical": oplog.LevelFatal, "alert": oplog.LevelFatal, "emergency": oplog.LevelFatal,
}

// logMessage stores a notifications/message as a console line.
func (u *upstream) logMessage(ctx context.Context, p *mcp.LoggingMessageParams) {
	if p == nil {
		return
	}
	level, ok := rfc5424[p.Level]
	if !ok {
		level = oplog.LevelInfo
	}
	r := oplog.Record{Kind: oplog.KindLine, Source: u.cfg.Name, Name: p.Logger, Level: level, Text: messageText(p.Data)}
	if err := u.g.log.Append(context.WithoutCancel(ctx), []oplog.Record{r}); err != nil {
		u.g.opts.Logger.Error("cannot store an upstream log message", "upstream", u.cfg.Name, "err", err)
	}
}
