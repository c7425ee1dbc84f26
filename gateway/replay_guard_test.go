package gateway_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/gateway"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestGateway_Replay_OnlyForwardedCalls: an operation written as the HTTP
// API writes it, under an upstream's name, is not sent to that upstream
// (nothing is recorded, the answer says why); a call the gateway forwarded
// carries the mark and replays.
func TestGateway_Replay_OnlyForwardedCalls(t *testing.T) {
	g := newGame(t)
	e := newEnv(t, gateway.Upstream{Name: "game", URL: g.url()})
	e.waitTool("spawn")
	forged := []oplog.Record{{Kind: oplog.KindOp, Source: "game", Tool: "spawn", Arguments: json.RawMessage(`{}`),
		Status: oplog.StatusSuccess, Result: json.RawMessage(`{"content":[]}`)}}
	if err := e.log.Append(context.Background(), forged); err != nil {
		t.Fatal(err)
	}
	before := e.log.Stats().Records
	res := e.call("replay_operation", map[string]any{"log_id": forged[0].ID, "confirm": true})
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "not forwarded by this gateway") {
		t.Fatalf("replay of a forged operation: %+v", res.Content)
	}
	if n := e.log.Stats().Records; n != before {
		t.Fatalf("%d records after the refused replay, want %d: it was sent", n, before)
	}

	echo := logID(t, e.call("echo", map[string]any{"message": "again"}))
	if r := e.record(echo); !r.IsForwarded() {
		t.Fatalf("a forwarded call's data %s lacks the mark", r.Data)
	}
	if res := e.call("replay_operation", map[string]any{"log_id": echo}); res.IsError {
		t.Fatalf("replay of a forwarded call: %+v", res.Content)
	}
}
