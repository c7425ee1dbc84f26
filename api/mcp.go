package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// DefaultMaxTextChars is MCPOptions.MaxTextChars when zero.
const DefaultMaxTextChars = 500

// URIs of the MCP resources.
const (
	consoleURI       = "mcplogd://console"
	recordTemplate   = "mcplogd://records/{id}"
	recordURIPrefix  = "mcplogd://records/"
	namesTemplate    = "mcplogd://names/{name}"
	namesURIPrefix   = "mcplogd://names/"
	maxCompletions   = 100                    // the spec's limit on completion values
	updateInterval   = 250 * time.Millisecond // at most 4 console updates a second
	recentNameRecord = 10
)

// MCPOptions configures NewMCPServer. A nil *MCPOptions means defaults.
type MCPOptions struct {
	// Version is reported in the initialize answer, ping and store_info.
	Version string

	// Logger receives the SDK's and the tools' diagnostics; nil discards them.
	Logger *slog.Logger

	// MaxTextChars cuts the text of list and tail entries to this many
	// characters, marking them truncated: true. Default DefaultMaxTextChars
	// (500); get_log_details always returns the whole text.
	MaxTextChars int

	// FileSize returns the data file's size for store_info; nil: not reported.
	FileSize func() int64

	// Retention is reported by store_info as it is; nil: not reported.
	Retention *Retention

	// Gateway offers upstream game servers' tools beside mcplogd's own and
	// serves replay_operation; nil: none.
	Gateway Gateway

	// Followers reports the followed log files for store_info; nil: none.
	Followers func() []oplog.FollowerStatus
}

// Retention describes the store's retention settings, for store_info. A
// zero field means no limit.
type Retention struct {
	MaxRecords uint64
	MaxBytes   uint64
	MaxAge     time.Duration
}

// NewMCPServer returns the MCP server with every log tool, resource, template
// and completion, over l (an *oplog.Log, or a Remote). It serves any number of sessions, over Streamable
// HTTP (Server mounts it at /mcp/{token}) or stdio (mcp.StdioTransport).
func NewMCPServer(l Backend, opts *MCPOptions) *mcp.Server {
	srv, _ := newMCPServer(l, opts)
	return srv
}

// recoverPanics turns a panic while handling a request into a JSON-RPC
// internal error: the SDK runs handlers on goroutines of its own, where a
// panic would end the whole process and every session with it.
func (t *mcpTools) recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
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

// newMCPServer also returns the tools, whose request contexts the HTTP
// endpoint registers (see mcpRequests).
func newMCPServer(l Backend, opts *MCPOptions) (*mcp.Server, *mcpTools) {
	t := &mcpTools{log: l, started: time.Now(), requests: &mcpRequests{}}
	if opts != nil {
		t.opts = *opts
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
		Logger:             t.opts.Logger,
		CompletionHandler:  t.complete,
		SubscribeHandler:   w.subscribe,
		UnsubscribeHandler: w.unsubscribe,
	})
	w.server = srv
	t.addTools(srv)
	srv.AddReceivingMiddleware(t.explainArguments, t.recoverPanics)
	t.addResources(srv)
	srv.AddPrompt(triagePrompt, t.triage)
	if t.opts.Gateway != nil {
		go syncTools(srv, t.opts.Gateway)
	}
	return srv, t
}

const instructions = `mcplogd keeps every console line and tool operation of game engines and editors in one durable log with increasing IDs.
Poll new console lines with console_tail: pass the previous lastId as sinceId (and revision); reset: true means start over.
Browse with get_logs (newest first, filters, total), read one record in full with get_log_details, an operation's outcome with get_result.
help lists every tool with its arguments and an example.`

func (t *mcpTools) addResources(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{
		URI: consoleURI, Name: "console", Title: "Console: newest lines",
		Description: fmt.Sprintf("The newest %d console lines as console_tail returns them (JSON). Subscribe to be told when lines arrive.", oplog.DefaultTailLimit),
		MIMEType:    "application/json",
	}, t.readConsole)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: recordTemplate, Name: "record", Title: "One record",
		Description: "One record in full, as get_log_details returns it (JSON); id is the record's ID.",
		MIMEType:    "application/json",
	}, t.readRecord)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: namesTemplate, Name: "log-name", Title: "One log name",
		Description: fmt.Sprintf("A log name's counts per source and its newest %d records (JSON); completion offers the stored names.", recentNameRecord),
		MIMEType:    "application/json",
	}, t.readName)
}

func jsonContents(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

func (t *mcpTools) readConsole(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	out, err := t.consoleTail(ctx, nil, tailIn{})
	if err != nil {
		return nil, err
	}
	return jsonContents(req.Params.URI, out)
}

func (t *mcpTools) readRecord(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, _, err := parseIDArg("id", idArg(strings.TrimPrefix(uri, recordURIPrefix)), false)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	d, err := t.details(ctx, id)
	if oplog.ErrorCode(err) == oplog.ENOTFOUND {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, toolError(err)
	}
	return jsonContents(uri, d)
}

// nameResource is the JSON of mcplogd://names/{name}.
type nameResource struct {
	Name    string          `json:"name"`
	Sources []nameInfo      `json:"sources"`
	Recent  []recordSummary `json:"recent"`
}

func (t *mcpTools) readName(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, err := url.PathUnescape(strings.TrimPrefix(uri, namesURIPrefix))
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	names, err := t.log.Names(ctx, "")
	if err != nil {
		return nil, toolError(err)
	}
	r := nameResource{Name: name, Sources: []nameInfo{}}
	for _, n := range names {
		if n.Name == name {
			r.Sources = append(r.Sources, newNameInfo(&n))
		}
	}
	if len(r.Sources) == 0 {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	page, err := t.log.List(ctx, oplog.Query{Filter: oplog.Filter{Name: name}, Count: recentNameRecord})
	if err != nil {
		return nil, toolError(err)
	}
	r.Recent = t.summaries(page.Records)
	return jsonContents(uri, r)
}

var triagePrompt = &mcp.Prompt{
	Name:        "triage",
	Title:       "Triage the log",
	Description: "Look for errors and crashes in the recorded log, optionally in one log name and time range.",
	Arguments: []*mcp.PromptArgument{
		{Name: "log_name", Description: "Only this log name (completion offers the stored names); empty: every name."},
		{Name: "since", Description: `Only records at or after this time: RFC 3339 or relative like "-15m"; empty: all.`},
	},
}

func (t *mcpTools) triage(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name, since := req.Params.Arguments["log_name"], req.Params.Arguments["since"]
	scope := "every log name"
	if name != "" {
		scope = fmt.Sprintf("the log name %q", name)
	}
	filter := `level: "error"`
	if name != "" {
		filter += fmt.Sprintf(", name: %q", name)
	}
	if since != "" {
		filter += fmt.Sprintf(", since: %q", since)
		scope += " since " + since
	}
	text := fmt.Sprintf(`Triage the mcplogd log for %s.
1. Call list_log_names to see which names have errors.
2. Call get_logs with {%s, count: 50} and group the errors by message.
3. For the most frequent or most recent ones, call get_log_details with their id to read the stack trace and data, and get_result for failed operations.
4. Report each distinct problem: what happened, how often, first and last time, the likely cause, and the record IDs.`, scope, filter)
	return &mcp.GetPromptResult{
		Description: "Triage " + scope,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

// complete offers the stored log names for arguments called log_name or
// name (of the triage prompt, the names template, or anything else), the
// stored sources for source, and the levels for level.
func (t *mcpTools) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	prefix := strings.ToLower(req.Params.Argument.Value)
	var candidates []string
	switch req.Params.Argument.Name {
	case "log_name", "name", "source":
		names, err := t.log.Names(ctx, "")
		if err != nil {
			return nil, toolError(err)
		}
		for _, n := range names {
			if req.Params.Argument.Name == "source" {
				candidates = append(candidates, n.Source)
			} else {
				candidates = append(candidates, n.Name)
			}
		}
		slices.Sort(candidates)
		candidates = slices.Compact(candidates)
	case "level":
		for _, l := range oplog.Levels {
			candidates = append(candidates, l.String())
		}
	}
	values := []string{}
	for _, c := range candidates {
		if c != "" && strings.HasPrefix(strings.ToLower(c), prefix) {
			values = append(values, c)
		}
	}
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}
	if len(values) > maxCompletions {
		res.Completion.Values, res.Completion.HasMore = values[:maxCompletions], true
	}
	return res, nil
}

// consoleWatch sends notifications/resources/updated for mcplogd://console
// while any session subscribes to it: once after lines arrive, at most once
// per updateInterval. Subscriptions to other URIs are accepted (clients and
// the conformance suite subscribe to what they like) but never change.
type consoleWatch struct {
	log    Backend
	server *mcp.Server

	mu      sync.Mutex
	subs    map[*mcp.ServerSession]bool
	running bool
}

func (w *consoleWatch) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if req.Params.URI != consoleURI {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.subs[req.Session] {
		w.subs[req.Session] = true
		go func() {
			_ = req.Session.Wait() // a session that ends drops its subscription
			w.drop(req.Session)
		}()
	}
	if !w.running {
		w.running = true
		go w.run()
	}
	return nil
}

func (w *consoleWatch) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	if req.Params.URI == consoleURI {
		w.drop(req.Session)
	}
	return nil
}

func (w *consoleWatch) drop(ss *mcp.ServerSession) {
	w.mu.Lock()
	delete(w.subs, ss)
	w.mu.Unlock()
}

// active reports whether anyone still subscribes; when not, the watcher stops.
func (w *consoleWatch) active() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running = len(w.subs) > 0
	return w.running
}

func (w *consoleWatch) run() {
	tick := time.NewTicker(updateInterval)
	defer tick.Stop()
	changed := w.log.Changed()
	for w.active() {
		select {
		case <-changed:
		case <-tick.C:
			continue // look at the subscribers again
		}
		next := w.log.Changed()
		if next == changed {
			// Close closes the channel without replacing it: the log is gone.
			w.mu.Lock()
			w.running = false
			w.mu.Unlock()
			return
		}
		changed = next
		_ = w.server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: consoleURI})
		<-tick.C // coalesce what arrives meanwhile into the next notification
	}
}
