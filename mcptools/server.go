package mcptools

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// Options configures New. A nil *Options means defaults; a zero field
// means its documented default.
type Options struct {
	// Version is reported in the initialize answer, ping and store_info.
	Version string

	// Logger receives the SDK's and the tools' diagnostics; nil discards them.
	Logger *slog.Logger

	// Now is the tools' clock: the server's start, time words ("-1h",
	// "yesterday"), a crash's age, ping; time.Now when nil.
	Now func() time.Time

	// MaxTextChars cuts the text of list and tail entries to this many
	// characters, marking them truncated: true. Default DefaultMaxTextChars
	// (500); get_log_details always returns the whole text.
	MaxTextChars int

	// FileSize returns the data file's size for store_info; nil: not reported.
	FileSize func() int64

	// FileFree returns how much of the data file is free pages the next
	// records reuse, for store_info; nil: not reported.
	FileFree func() int64

	// Retention is reported by store_info as it is; nil: not reported.
	Retention *Retention

	// Gateway offers upstream game servers' tools beside mcplogd's own and
	// serves replay_operation; nil: none.
	Gateway Gateway

	// Followers reports the followed log files for store_info; nil: none.
	Followers func() []oplog.FollowerStatus

	// Studio reports the forwarding to the studio's VictoriaLogs for
	// store_info; nil: none.
	Studio func() oplog.StudioStatus

	// Requests lets waiting tools end with the HTTP request that carried
	// the call (see Requests); the HTTP endpoint registers into it. Nil
	// (stdio): a waiting tool ends with the call's own context only.
	Requests *Requests

	// StudioScope answers the tools' scope "studio": every machine of
	// the project (package studio's Client, over VictoriaLogs). Nil: scope
	// studio is an error that says how to configure one.
	StudioScope oplog.Studio

	// Middleware is added around every request, outermost first, outside
	// the server's own (which explains bad arguments and recovers panics):
	// package metrics times tools/call this way. Nil: none.
	Middleware []mcp.Middleware

	// Compat shapes the answers for another tool's clients: "" (none) or
	// CompatUnityBridge. New panics on other values; CheckCompat first.
	Compat string
}

// Retention describes the store's retention settings, for store_info. A
// zero field means no limit.
type Retention struct {
	MaxRecords uint64
	MaxBytes   uint64
	MaxAge     time.Duration
}

// New returns the MCP server with every log tool, resource, template and
// completion, over b (an *oplog.Log, or a remote.Backend). It serves any
// number of sessions, over Streamable HTTP (package api mounts it at
// /mcp/{token}) or stdio (mcp.StdioTransport).
func New(b Backend, opts *Options) *mcp.Server {
	srv, _ := newServer(b, opts)
	return srv
}

// recoverPanics turns a panic while handling a request into a JSON-RPC
// internal error: the SDK runs handlers on goroutines of its own, where a
// panic would end the whole process and every session with it.
func (t *toolset) recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if r := recover(); r != nil {
				t.opts.Logger.Error("BUG: MCP handler panicked", "method", method, "panic", r, "stack", string(debug.Stack()))
				res, err = nil, fmt.Errorf("internal error while handling %s", method)
			}
		}()
		return next(ctx, method, req)
	}
}

// newServer also returns the tools, for ToolNames and tests.
func newServer(l Backend, opts *Options) (*mcp.Server, *toolset) {
	t := &toolset{log: l}
	if opts != nil {
		t.opts = *opts
	}
	if t.opts.Now == nil {
		t.opts.Now = time.Now
	}
	t.started = t.opts.Now()
	if t.opts.Requests == nil {
		t.opts.Requests = &Requests{}
	}
	if t.opts.MaxTextChars <= 0 {
		t.opts.MaxTextChars = DefaultMaxTextChars
	}
	if t.opts.Logger == nil {
		t.opts.Logger = slog.New(slog.DiscardHandler)
	}
	w := &consoleWatch{log: l, subs: map[*mcp.ServerSession]bool{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "mcplogd", Title: "mcplogd flight recorder", Version: t.opts.Version}, &mcp.ServerOptions{
		Instructions:       instructions,
		Logger:             slog.New(quietUndelivered{t.opts.Logger.Handler()}),
		CompletionHandler:  t.complete,
		SubscribeHandler:   w.subscribe,
		UnsubscribeHandler: w.unsubscribe,
	})
	w.server = srv
	t.addTools(srv)
	srv.AddReceivingMiddleware(t.explainArguments, t.recoverPanics)
	t.addCompat(srv) // outside: the arguments are respelled before they are explained
	// Added last, so outermost: a timer times the server's own middleware too.
	srv.AddReceivingMiddleware(t.opts.Middleware...)
	t.addResources(srv)
	srv.AddPrompt(triagePrompt, t.triage)
	if t.opts.Gateway != nil {
		go syncTools(srv, t.opts.Gateway)
	}
	return srv, t
}

const instructions = `mcplogd records every console line and tool operation of game engines and editors in one durable log with increasing IDs.
Why did the game crash? find_crashes {limit: 1}: the crash that ended the latest crashed run, its message, the game's own frame (file:line), the lines before it, its stack and the runs since; then get_log_details {log_id: its lastId, around: 5} for more.
Then search_logs {query} for a message; console_tail {sinceId: the previous lastId} follows new lines.
Did my fix work? compare_runs: the previous run against the current one (log_stats: what happened in a run).
Answers stop at maxBytes (default 32 KB) and say more. help {tool: NAME} describes a tool.`

// toolset holds the tool handlers over one Log.
type toolset struct {
	log     Backend
	opts    Options
	started time.Time
	help    []toolHelp

	// fullSchemas are the tools' whole output schemas (tools/list carries
	// lean ones, see outputSchema), for tests.
	fullSchemas map[string]*jsonschema.Schema
}

// ToolNames returns the names of mcplogd's own MCP tools, which upstream
// tools must not shadow.
func ToolNames() []string {
	_, t := newServer(nil, nil)
	names := make([]string, len(t.help))
	for i, h := range t.help {
		names[i] = h.Name
	}
	return names
}

// quietUndelivered lowers to debug the SDK's warning that a notification
// (a list of tools changed as an upstream restarted) found no stream to
// go on: a client that keeps no standalone stream open, as the protocol
// allows, is no fault, and serve's log said so at every restart.
type quietUndelivered struct{ slog.Handler }

func (h quietUndelivered) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn && strings.HasPrefix(r.Message, "calling notifications/") && strings.Contains(r.Message, "undelivered message") {
		if r.Level = slog.LevelDebug; !h.Handler.Enabled(ctx, r.Level) {
			return nil
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietUndelivered) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietUndelivered{h.Handler.WithAttrs(attrs)}
}

func (h quietUndelivered) WithGroup(name string) slog.Handler {
	return quietUndelivered{h.Handler.WithGroup(name)}
}
