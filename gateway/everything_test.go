package gateway_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/gateway"
	"github.com/mcplogd/mcplogd/internal/harness/everything"
	"github.com/mcplogd/mcplogd/oplog"
)

// The MCP reference server, @modelcontextprotocol/server-everything
// (pinned in interop/), as a real upstream over both transports.

func text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("no content in %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0])
	}
	return tc.Text
}

func TestGateway_Everything(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			up := gateway.Upstream{Name: "everything"}
			if transport == "stdio" {
				up.Command = everything.Command(t)
			} else {
				up.URL, _ = everything.StartHTTP(t)
			}
			e := newEnv(t, up)
			echo := e.waitTool("echo")
			e.waitTool("trigger-long-running-operation")
			tools := e.tools()
			if echo.Annotations == nil || !echo.Annotations.ReadOnlyHint || tools["get-sum"] == nil ||
				tools["toggle-simulated-logging"].Annotations == nil || tools["toggle-simulated-logging"].Annotations.ReadOnlyHint {
				t.Fatalf("tools as offered: echo %+v, get-sum %v, toggle-simulated-logging %+v", echo.Annotations, tools["get-sum"] != nil, tools["toggle-simulated-logging"])
			}

			res := e.call("echo", map[string]any{"message": "hi there"})
			if got := text(t, res); res.IsError || got != "Echo: hi there" {
				t.Fatalf("echo answered %q (isError %v)", got, res.IsError)
			}
			echoID := logID(t, res)
			if r := e.record(echoID); r.Source != "everything" || r.Tool != "echo" || r.Status != oplog.StatusSuccess ||
				!strings.Contains(string(r.Arguments), `"hi there"`) || !strings.Contains(string(r.Result), "Echo: hi there") {
				t.Errorf("echo recorded as %+v", r)
			}
			res = e.call("get-sum", map[string]any{"a": 2, "b": 3.5})
			if got := text(t, res); got != "The sum of 2 and 3.5 is 5.5." {
				t.Errorf("get-sum answered %q", got)
			}
			if r := e.record(logID(t, res)); r.Tool != "get-sum" || !strings.Contains(string(r.Result), "5.5") || !strings.Contains(string(r.Arguments), `"a":2`) {
				t.Errorf("get-sum recorded as %+v", r)
			}

			// Answers later.
			res = e.call("trigger-long-running-operation", map[string]any{"duration": 1, "steps": 2, "timeout": 50})
			var p struct {
				Status string `json:"status"`
				LogID  uint64 `json:"log_id"`
			}
			structured(t, res, &p)
			if p.Status != "pending" || p.LogID == 0 {
				t.Fatalf("a long operation with timeout 50 answered %s", text(t, res))
			}
			res = e.call("get_result", map[string]any{"log_id": p.LogID, "waitMs": 15_000})
			var out struct {
				Status string          `json:"status"`
				Result json.RawMessage `json:"result"`
			}
			structured(t, res, &out)
			if out.Status != "success" || !strings.Contains(string(out.Result), "Long running operation completed") {
				t.Fatalf("get_result of the long operation: %s", text(t, res))
			}

			// Replay.
			res = e.call("replay_operation", map[string]any{"log_id": echoID})
			var rp struct {
				Same   bool `json:"same"`
				Replay struct {
					ID uint64 `json:"id"`
				} `json:"replay"`
			}
			structured(t, res, &rp)
			if !rp.Same || e.record(rp.Replay.ID).ReplayOf != echoID {
				t.Errorf("replay of echo: %s", text(t, res))
			}

			// Log messages become console lines of the upstream.
			e.call("toggle-simulated-logging", nil)
			defer e.call("toggle-simulated-logging", nil)
			eventually(t, "a simulated log message as a console line", func() bool {
				pg, err := e.log.List(context.Background(), oplog.Query{Filter: oplog.Filter{Kind: oplog.KindLine, Source: "everything"}, Count: 20})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range pg.Records {
					if strings.Contains(strings.ToLower(r.Text), "level") && strings.Contains(r.Text, "message") {
						return true
					}
				}
				return false
			})
		})
	}
}

func TestGateway_EverythingDiesMidCallAndComesBack(t *testing.T) {
	u, stop := everything.StartHTTP(t)
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(pu.Port())
	e := newEnv(t, gateway.Upstream{Name: "everything", URL: u})
	e.waitTool("trigger-long-running-operation")
	res := e.call("trigger-long-running-operation", map[string]any{"duration": 30, "steps": 3, "timeout": 50})
	id := logID(t, res)
	stop()
	r, err := e.log.AwaitComplete(ctxTimeout(t, 15*time.Second), id)
	if err != nil || r.Status != oplog.StatusError {
		t.Fatalf("the call in flight when the upstream died: %+v, %v; want status error", r, err)
	}
	eventually(t, "the upstream to be seen down", func() bool { return e.gw.Status()[0].State != oplog.UpstreamUp })
	if res := e.call("echo", map[string]any{"message": "anyone?"}); !res.IsError {
		t.Fatalf("echo while the upstream is down: %+v", res)
	}
	everything.StartHTTPOn(t, port)
	eventually(t, "the upstream to come back", func() bool { return e.gw.Status()[0].State == oplog.UpstreamUp })
	if res := e.call("echo", map[string]any{"message": "back"}); res.IsError || text(t, res) != "Echo: back" {
		t.Fatalf("echo after the restart: %+v", res)
	}
}
