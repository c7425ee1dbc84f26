package mcptools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/logtest"
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
