package mcptools

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMCP_RecoverPanics(t *testing.T) {
	tools := &toolset{opts: Options{Logger: slog.New(slog.DiscardHandler)}}
	h := tools.recoverPanics(func(context.Context, string, mcp.Request) (mcp.Result, error) { panic("boom") })
	res, err := h(context.Background(), "tools/call", nil)
	if res != nil || err == nil || !strings.Contains(err.Error(), "tools/call") {
		t.Fatalf("after a panic: %v, %v; want an internal error naming the method", res, err)
	}
}
