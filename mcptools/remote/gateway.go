package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// Gateway is a running server's gateway as another process sees it
// (mcplogd stdio forwarding to that server): the upstream tools the server
// offers, called through its MCP endpoint, where they are recorded;
// replays through its HTTP API.
//
// A server that went away (a background recorder killed, then started
// again by the stdio session's client, whose HTTP client the link uses)
// offers a game's tools again only once its upstream is connected: a call
// it answers with "unknown tool" was not carried out, and is sent again
// once the tool is offered.
type Gateway struct {
	c    *client.Client
	cs   *mcp.ClientSession
	own  []string // mcplogd's own tools, which the stdio server has itself
	done chan struct{}
	once sync.Once

	mu      sync.Mutex
	tools   []*mcp.Tool
	changed chan struct{}
}

var _ mcptools.Gateway = (*Gateway)(nil)

// NewGateway connects to the MCP endpoint of the server c talks to.
func NewGateway(ctx context.Context, c *client.Client, version string) (*Gateway, error) {
	g := &Gateway{c: c, own: mcptools.ToolNames(), done: make(chan struct{}), changed: make(chan struct{})}
	mc := mcp.NewClient(&mcp.Implementation{Name: "mcplogd-stdio", Version: version}, &mcp.ClientOptions{
		Capabilities:           &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { go g.refresh() },
	})
	cs, err := mc.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.MCPEndpoint(), HTTPClient: c.HTTPClient}, nil)
	if err != nil {
		return nil, err
	}
	g.cs = cs
	g.refresh()
	return g, nil
}

// refresh lists the server's tools and keeps the upstreams' ones.
func (g *Gateway) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := g.cs.ListTools(ctx, nil)
	if err != nil {
		return // the server is going away; calls will say so
	}
	var tools []*mcp.Tool
	for _, t := range res.Tools {
		if !slices.Contains(g.own, t.Name) {
			tools = append(tools, t)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tools = tools
	close(g.changed)
	g.changed = make(chan struct{})
}

// Tools returns the upstream tools the server offers.
func (g *Gateway) Tools() []*mcp.Tool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tools
}

// Changed returns a channel closed when Tools changes.
func (g *Gateway) Changed() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.changed
}

// Done is closed by Close.
func (g *Gateway) Done() <-chan struct{} { return g.done }

// Call calls the tool on the server, which forwards and records it.
func (g *Gateway) Call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	res, err := g.cs.CallTool(ctx, params)
	if err != nil && ctx.Err() == nil && unknownTool(err, name) && g.awaitTool(ctx, name) {
		res, err = g.cs.CallTool(ctx, params)
	}
	return res, callError(name, err)
}

// callError names the call that failed on its way through the server.
func callError(name string, err error) error {
	if err == nil || oplog.ErrorCode(err) != oplog.EINTERNAL || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return oplog.Errorf(oplog.EUNAVAILABLE, "%s through the server: %v", name, err)
}

// unknownTool reports whether err is the server's answer that it offers
// no tool name: a server started again whose upstream is still starting.
// The call was not carried out.
func unknownTool(err error, name string) bool {
	return strings.Contains(err.Error(), fmt.Sprintf("unknown tool %q", name))
}

// toolWait bounds how long a call waits for the server to offer its tool
// again: an upstream's start (a game launched, its MCP server initialised).
const toolWait = 30 * time.Second

// awaitTool waits, up to toolWait or ctx's end, until the server offers
// the tool name again, and reports whether it does.
func (g *Gateway) awaitTool(ctx context.Context, name string) bool {
	ctx, cancel := context.WithTimeout(ctx, toolWait)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if res, err := g.cs.ListTools(ctx, nil); err == nil && slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == name }) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// Replay asks the server to replay operation id.
func (g *Gateway) Replay(ctx context.Context, id uint64, confirm bool) (oplog.Replay, error) {
	return g.c.Replay(ctx, id, confirm)
}

// Status reports the server's upstreams, from its store_info (nil when it
// does not answer within 2 s).
func (g *Gateway) Status() []oplog.UpstreamStatus {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	res, err := g.cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_info", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		return nil
	}
	b, _ := json.Marshal(res.StructuredContent)
	var info struct {
		Upstreams []oplog.UpstreamStatus `json:"upstreams"`
	}
	_ = json.Unmarshal(b, &info)
	return info.Upstreams
}

// Close ends the session with the server.
func (g *Gateway) Close() error {
	var err error
	g.once.Do(func() {
		close(g.done)
		err = g.cs.Close()
	})
	return err
}
