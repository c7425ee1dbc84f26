package mcptools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// TestTools_FullOutputSchemas calls every tool with its help example and
// checks each answer against the tool's whole output schema (tools/list
// carries a lean one; see outputSchema). A tool whose example fails on
// this small store (an unknown ID) is called once more where it can
// succeed.
func TestTools_FullOutputSchemas(t *testing.T) {
	l, db := logtest.MustOpenLog(t, nil)
	idx, err := search.Open(t.TempDir(), db, &search.Options{Changed: l.Changed})
	if err != nil {
		t.Fatal(err)
	}
	l.SetIndex(idx)
	l.SetCrashes(crash.New(l, nil))
	logtest.MustAppend(t, l, oplog.Record{Level: oplog.LevelError, Name: "Physics", Source: "unity-editor", Text: "NullReferenceException",
		Stack: "at Physics.Step () in Assets/Physics.cs:12"})
	logtest.MustAppend(t, l, oplog.Record{Kind: oplog.KindOp, Tool: "run_code", Source: "agent", Status: oplog.StatusSuccess})
	// A second run, for compare_runs.
	logtest.MustAppend(t, l, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "unity-editor", Text: "run"})
	srv, tools := newServer(l, nil)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "schema-test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	retry := map[string]map[string]any{
		"get_log_details": {"log_id": 1}, "get_result": {"log_id": 2}, "clear_logs": {"confirm": true},
		"log_stats": {"run": "previous"}, "compare_runs": {},
	}
	checked := 0
	for _, h := range tools.help {
		args := h.Example
		if a, ok := retry[h.Name]; ok {
			args = a
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: h.Name, Arguments: args})
		if err != nil {
			t.Fatalf("%s(%v): %v", h.Name, args, err)
		}
		if res.IsError {
			t.Logf("%s(%v): %v", h.Name, args, res.Content[0].(*mcp.TextContent).Text)
			continue
		}
		b, _ := json.Marshal(res.StructuredContent)
		rs, err := tools.fullSchemas[h.Name].Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", h.Name, err)
		}
		var v any
		_ = json.Unmarshal(b, &v)
		if err := rs.Validate(v); err != nil {
			t.Errorf("%s: the answer does not match its whole output schema: %v\n%s", h.Name, err, b)
		}
		checked++
	}
	if checked < len(tools.help)-1 { // all but replay_operation, which needs a gateway
		t.Errorf("checked %d of %d tools", checked, len(tools.help))
	}
}
