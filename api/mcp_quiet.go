package api

import (
	"context"
	"log/slog"
)

// sdkChatter is what the go-sdk's MCP server logs at INFO for every session
// and subscription. Under protocol 2026-07-28 every request is a session of
// its own, so these would be three lines per tool call; they are logged at
// DEBUG instead. "session initialized" stays at INFO: only a 2025 session's
// notifications/initialized logs it, so --log-level info says each session
// once.
var sdkChatter = map[string]bool{
	"server connecting": true, "server session connected": true, "server session disconnected": true,
	"server session ended": true, "server run start": true,
	"resource subscribed": true, "resource unsubscribed": true, "resource updated notification sent": true,
	"client log level set": true,
}

// quietSessions returns l with sdkChatter at DEBUG; nil stays nil.
func quietSessions(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(chatterHandler{l.Handler()})
}

type chatterHandler struct{ slog.Handler }

func (h chatterHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo && sdkChatter[r.Message] {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h chatterHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return chatterHandler{h.Handler.WithAttrs(attrs)}
}

func (h chatterHandler) WithGroup(name string) slog.Handler {
	return chatterHandler{h.Handler.WithGroup(name)}
}
