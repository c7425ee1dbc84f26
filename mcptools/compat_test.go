package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

func bridgeSession(t *testing.T, l Backend) *mcp.ClientSession {
	t.Helper()
	srv := New(l, &Options{Compat: CompatUnityBridge, Version: "test"})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bridge-client"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestCompat_Bridge_Shapes: in the bridge's mode errors come in its error
// envelope, a pending operation is not complete, lists keep one entry per
// record (no collapsing), the text block is the JSON with one entry per
// line, and tools/list carries no output schema of mcplogd's own shapes.
func TestCompat_Bridge_Shapes(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	for range 3 {
		logtest.MustAppend(t, l, oplog.Record{Level: oplog.LevelWarn, Name: "Shaders", Text: "macro redefinition <UNITY_PASS>"})
	}
	logtest.MustAppend(t, l, oplog.Record{Kind: oplog.KindOp, Tool: "execute_code", Source: "agent"}) // pending
	cs := bridgeSession(t, l)
	call := func(name, args string) (map[string]any, string, bool) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		var m map[string]any
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			t.Fatalf("%s: text block is not JSON: %v: %s", name, err, text)
		}
		return m, text, res.IsError
	}
	if m, _, isErr := call("unity_get_log_details", `{"logId":"99"}`); !isErr || m["status"] != "error" || m["log_id"] != "99" ||
		!strings.Contains(m["error"].(string), "99") || m["is_complete"] != true {
		t.Errorf("an unknown ID: %v (isError %v)", m, isErr)
	}
	if m, _, _ := call("get_result", `{"logId":"4"}`); m["is_complete"] != false || m["log_id"] != "4" {
		t.Errorf("a pending operation: %v", m)
	}
	m, text, _ := call("console_tail", `{}`)
	lines, _ := m["result"].(map[string]any)["lines"].([]any)
	if len(lines) != 3 || strings.Count(text, "\n") < 3 || !strings.Contains(text, "<UNITY_PASS>") {
		t.Errorf("console_tail: 3 entries, one per line, no HTML escapes:\n%s", text)
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.OutputSchema != nil {
			t.Errorf("%s has an output schema in the bridge's mode", tool.Name)
		}
	}
	if err := CheckCompat("unity"); err == nil || !strings.Contains(err.Error(), CompatUnityBridge) {
		t.Errorf("CheckCompat(unity) = %v", err)
	}
}

// TestCompat_Bridge_SeedEntriesAndUnsupported: get_log_by_name's entries
// carry their record's data as the bridge's example does ({"detail": …}),
// and a tool nobody offers (execute_code without an upstream) answers the
// bridge's error envelope "Unsupported tool: …" as a tool result, not a
// JSON-RPC error a bridge client does not expect.
func TestCompat_Bridge_SeedEntriesAndUnsupported(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	logtest.MustAppend(t, l, oplog.Record{Level: oplog.LevelInfo, Name: "test-log", Text: "Test message", Data: json.RawMessage(`{"detail":"Info details"}`)})
	logtest.MustAppend(t, l, oplog.Record{Level: oplog.LevelError, Name: "test-log", Text: "Error message"})
	cs := bridgeSession(t, l)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_log_by_name", Arguments: json.RawMessage(`{"log_name":"test-log","limit":10}`)})
	if err != nil || res.IsError {
		t.Fatalf("get_log_by_name: %v %+v", err, res)
	}
	var a struct {
		Status string `json:"status"`
		Result struct {
			Name    string `json:"name"`
			Entries []struct {
				Message string         `json:"message"`
				Data    map[string]any `json:"data"`
			} `json:"entries"`
		} `json:"result"`
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &a); err != nil || a.Status != "success" || a.Result.Name != "test-log" || len(a.Result.Entries) != 2 ||
		a.Result.Entries[1].Message != "Test message" || a.Result.Entries[1].Data["detail"] != "Info details" || a.Result.Entries[0].Data != nil {
		t.Errorf("get_log_by_name: the entries' data as the bridge's: %v\n%s", err, text)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(sc), `"data":{"detail":"Info details"}`) {
		t.Errorf("structuredContent lacks the entry's data: %s", sc)
	}

	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_code", Arguments: json.RawMessage(`{"code":"return 1;","timeout":5000}`)})
	if err != nil {
		t.Fatalf("execute_code without an upstream: a JSON-RPC error, not the bridge's envelope: %v", err)
	}
	var e map[string]any
	if json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &e) != nil || !res.IsError || e["status"] != "error" || e["is_complete"] != true ||
		!strings.HasPrefix(fmt.Sprint(e["error"]), "Unsupported tool: execute_code") || !strings.Contains(fmt.Sprint(e["error"]), "--upstream") {
		t.Errorf("execute_code without an upstream: %v (isError %v)", e, res.IsError)
	}
}
