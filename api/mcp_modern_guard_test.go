package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// TestMCP_Modern_StreamCapAndRotation: a 2026-07-28 subscriptions/listen
// stream counts against Limits.Streams (one more is refused while it is
// open), and replacing the token it was opened with ends it.
func TestMCP_Modern_StreamCapAndRotation(t *testing.T) {
	o := rotating(&harnessOptions{})
	o.API.Limits = api.Limits{Streams: 1}
	h := mustServe(t, o)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	first := connectVersion(t, h, "2026-07-28", nil)
	if err := first.Subscribe(ctx, &mcp.SubscribeParams{URI: "mcplogd://console"}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	logtest.Eventually(t, 10*time.Second, "the listen stream counted", func() bool { return h.Srv.Streams() == 1 })
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	listen := `{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{"resourceSubscriptions":["mcplogd://console"],` + meta + `}}`
	status, body := rawMCP(h, t, http.MethodPost, "/mcp/"+testToken, listen, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"})
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "--max-streams") {
		t.Fatalf("a second listen stream past a cap of 1: %d %.300s", status, body)
	}
	mustCall[map[string]string](h, "POST", "/api/v1/token/rotate", "", 200)
	logtest.Eventually(t, 10*time.Second, "the listen stream of the replaced token ended", func() bool { return h.Srv.Streams() == 0 })
}
