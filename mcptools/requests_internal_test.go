package mcptools

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRequests_Merge: a waiting tool ends when the HTTP request that
// carried its call ends, however the SDK's own context fares.
func TestMCPRequests_Merge(t *testing.T) {
	var m Requests
	r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp/x", nil)
	r.Header.Set(requestHeader, "forged") // a client's value is replaced
	httpCtx, endRequest := context.WithCancel(context.Background())
	done := m.Register(r, httpCtx)
	if r.Header.Get(requestHeader) == "forged" {
		t.Fatal("register kept the client's header")
	}

	ctx, cancel := m.merge(context.Background(), &mcp.CallToolRequest{Extra: &mcp.RequestExtra{Header: r.Header}})
	defer cancel()
	endRequest()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the merged context outlived the HTTP request")
	}
	done()

	// Unknown or missing keys (stdio) give the tool's own context.
	for _, req := range []*mcp.CallToolRequest{nil, {Extra: &mcp.RequestExtra{Header: http.Header{requestHeader: {"gone"}}}}} {
		ctx, cancel := m.merge(context.Background(), req)
		if ctx.Err() != nil {
			t.Error("merged context ended at once")
		}
		cancel()
	}
}
