package mcptools

import (
	"context"
	"crypto/rand"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// requestHeader carries a key from the HTTP request to the tool handlers:
// the SDK runs a stateful session's handlers on contexts of their own, but
// hands them the request's header. A client's own value is removed first.
const requestHeader = "X-Mcplogd-Request"

// Requests lets a tool that waits (console_tail and get_result with
// waitMs) end when the HTTP request that carried the call ends: the
// client went away, or the server is shutting down. The HTTP endpoint
// registers each request's context; the zero Requests is empty and ready.
// It is safe for concurrent use.
type Requests struct {
	m sync.Map // key -> context.Context of the HTTP request
}

// Register records ctx, which ends with r, under a new key set in r's
// header (replacing a value the client sent); done forgets it.
func (m *Requests) Register(r *http.Request, ctx context.Context) (done func()) {
	key := rand.Text()
	r.Header.Set(requestHeader, key)
	m.m.Store(key, ctx)
	return func() { m.m.Delete(key) }
}

// merge returns a context that ends with ctx or with the HTTP request that
// carried req, whichever ends first. Without one (stdio), it is ctx.
func (m *Requests) merge(ctx context.Context, req *mcp.CallToolRequest) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return ctx, cancel
	}
	v, ok := m.m.Load(req.Extra.Header.Get(requestHeader))
	if !ok {
		return ctx, cancel
	}
	stop := context.AfterFunc(v.(context.Context), cancel)
	return ctx, func() { stop(); cancel() }
}
