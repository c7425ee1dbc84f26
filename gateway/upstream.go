package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/backoff"
	"github.com/mcplogd/mcplogd/internal/shellwords"
	"github.com/mcplogd/mcplogd/oplog"
)

// Upstream names one game server: Streamable HTTP at URL, or a process
// speaking MCP over stdio that mcplogd starts.
type Upstream struct {
	Name    string
	URL     string   // http(s)://..., path and token kept as given
	Command []string // program and arguments
	// RunsOwned says that another writer starts the game's runs (its
	// process, its followed log): the console mirror writes no run marker
	// when the upstream's console restarts. A cmd: upstream with
	// Options.Runs owns its runs itself and its mirror writes none either.
	RunsOwned bool
}

// ParseUpstream reads NAME=URL or NAME=cmd:COMMAND ARGS (words split as a
// shell would, quotes and all).
func ParseUpstream(s string) (Upstream, error) {
	name, target, ok := strings.Cut(s, "=")
	name, target = strings.TrimSpace(name), strings.TrimSpace(target)
	if !ok || name == "" || target == "" {
		return Upstream{}, oplog.Errorf(oplog.EINVALID, "upstream %q: want NAME=URL or NAME=cmd:COMMAND ARGS", s)
	}
	if !validName(name) {
		return Upstream{}, oplog.Errorf(oplog.EINVALID, "upstream %q: the name may hold letters, digits, '-' and '_' only", name)
	}
	if cmd, ok := strings.CutPrefix(target, "cmd:"); ok {
		words, err := shellwords.Split(cmd)
		if err != nil || len(words) == 0 {
			return Upstream{}, oplog.Errorf(oplog.EINVALID, "upstream %s: cannot read the command %q", name, cmd)
		}
		return Upstream{Name: name, Command: words}, nil
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Upstream{}, oplog.Errorf(oplog.EINVALID, "upstream %s: %q is neither an http(s) URL nor cmd:COMMAND", name, target)
	}
	return Upstream{Name: name, URL: target}, nil
}

func validName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return s != "" && !strings.Contains(s, "__")
}

func (u Upstream) String() string {
	if u.URL != "" {
		return u.Name + "=" + u.URL
	}
	return u.Name + "=cmd:" + strings.Join(u.Command, " ")
}

// upstream is one game server's connection: a loop that connects, keeps
// its tool list, mirrors its console and reconnects with backoff.
type upstream struct {
	cfg    Upstream
	g      *Gateway
	mirror *mirror

	mu      sync.Mutex
	session *mcp.ClientSession // nil while not connected
	tools   []*mcp.Tool        // the last list seen; kept while down
	state   oplog.UpstreamState
	err     string
	since   time.Time
	pending int
	crashes map[string]bool // tracebacks already recorded
	procs   processes       // a cmd: upstream's process starts and ends (process.go)
}

func (u *upstream) setState(state oplog.UpstreamState, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.state != state {
		u.since = time.Now().UTC()
	}
	u.state, u.err = state, ""
	if err != nil {
		u.err = err.Error()
	}
}

func (u *upstream) status() oplog.UpstreamStatus {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := oplog.UpstreamStatus{Name: u.cfg.Name, Transport: "http", Target: u.cfg.URL, State: u.state, Error: u.err,
		Since: u.since, Tools: len(u.tools), Console: console(u.tools), Pending: u.pending}
	if u.cfg.URL == "" {
		s.Transport, s.Target = "stdio", strings.Join(u.cfg.Command, " ")
	}
	return s
}

// current returns the session, or an error saying the upstream is down.
func (u *upstream) current() (*mcp.ClientSession, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.session == nil {
		msg := fmt.Sprintf("upstream %s is %s", u.cfg.Name, u.state)
		if u.err != "" {
			msg += ": " + u.err
		}
		return nil, oplog.Errorf(oplog.EUNAVAILABLE, "%s; mcplogd keeps retrying, try again shortly (store_info shows its state)", msg)
	}
	return u.session, nil
}

func (u *upstream) tool(name string) *mcp.Tool {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, t := range u.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// run connects and reconnects until ctx ends.
func (u *upstream) run(ctx context.Context) {
	pause := backoff.Backoff{Min: u.g.opts.MinBackoff, Max: u.g.opts.MaxBackoff}
	for ctx.Err() == nil {
		u.setState(oplog.UpstreamConnecting, nil)
		s, err := u.connect(ctx)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			u.setState(oplog.UpstreamDown, err)
			wait := pause.Next()
			u.g.opts.Logger.Warn("upstream unreachable", "upstream", u.cfg.Name, "err", err, "retryIn", wait)
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			continue
		}
		pause.Reset()
		u.g.opts.Logger.Info("upstream connected", "upstream", u.cfg.Name)
		mctx, stop := context.WithCancel(ctx)
		var mirrored sync.WaitGroup
		if tools := u.toolList(); console(tools) != "" {
			mirrored.Go(func() {
				if err := u.mirror.run(mctx, s, tools); err != nil && mctx.Err() == nil {
					u.g.opts.Logger.Warn("console mirroring stopped", "upstream", u.cfg.Name, "err", err)
					_ = s.Close() // a broken session: reconnect
				}
			})
		}
		go func() { <-ctx.Done(); _ = s.Close() }()
		err = s.Wait()
		stop()
		mirrored.Wait()
		u.mu.Lock()
		u.session = nil
		u.mu.Unlock()
		if ctx.Err() != nil {
			break
		}
		u.setState(oplog.UpstreamDown, fmt.Errorf("connection lost: %v", errText(err)))
		u.g.opts.Logger.Warn("upstream disconnected", "upstream", u.cfg.Name, "err", err)
	}
	u.setState(oplog.UpstreamStopped, nil)
}

func errText(err error) string {
	if err == nil {
		return "closed"
	}
	return err.Error()
}

func (u *upstream) toolList() []*mcp.Tool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.tools
}

// upstreamHTTP is the HTTP client of Streamable HTTP upstreams, dropping
// idle connections after idleConnTimeout.
var upstreamHTTP = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.IdleConnTimeout = idleConnTimeout
	return &http.Client{Transport: t}
}()

// connect opens a session, lists the tools and asks for log messages.
func (u *upstream) connect(ctx context.Context) (*mcp.ClientSession, error) {
	var t mcp.Transport
	if u.cfg.URL != "" {
		// No retries of its own: a lost upstream ends the session at once
		// (instead of ~20 s of reconnecting), and run connects again.
		t = &mcp.StreamableClientTransport{Endpoint: u.cfg.URL, MaxRetries: -1, HTTPClient: upstreamHTTP}
	} else {
		// Each start is a run of the game: its standard error read as the
		// game's lines, its end an exit marker (process.go).
		t = processTransport{u}
	}
	opts := &mcp.ClientOptions{
		// No roots: mcplogd has none to offer, and a server that asks
		// for them at start can hold up a close by seconds.
		Capabilities: &mcp.ClientCapabilities{},
		KeepAlive:    u.g.opts.KeepAlive,
		ToolListChangedHandler: func(_ context.Context, req *mcp.ToolListChangedRequest) {
			// the request's session: a notification may come before
			// Connect has returned it here
			go u.refreshTools(ctx, req.Session)
		},
	}
	u.receiveLogs(opts)
	c := mcp.NewClient(&mcp.Implementation{Name: "mcplogd-gateway", Version: u.g.opts.Version}, opts)
	cctx, cancel := context.WithTimeout(ctx, u.g.opts.ConnectTimeout)
	defer cancel()
	s, err := c.Connect(cctx, t, nil)
	if err != nil {
		return nil, err
	}
	tools, err := listTools(cctx, s)
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	u.askForLogs(cctx, s)
	u.mu.Lock()
	u.session, u.tools = s, tools
	u.crashes = map[string]bool{}
	u.mu.Unlock()
	u.setState(oplog.UpstreamUp, nil)
	u.g.toolsChanged()
	return s, nil
}

func listTools(ctx context.Context, s *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// refreshTools lists the tools again after notifications/tools/list_changed.
func (u *upstream) refreshTools(ctx context.Context, s *mcp.ClientSession) {
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, u.g.opts.ConnectTimeout)
	defer cancel()
	tools, err := listTools(ctx, s)
	if err != nil {
		u.g.opts.Logger.Warn("upstream tools/list failed", "upstream", u.cfg.Name, "err", err)
		return
	}
	u.mu.Lock()
	if u.session != s {
		u.mu.Unlock()
		return
	}
	u.tools = tools
	u.mu.Unlock()
	u.g.toolsChanged()
}
