package mcptools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestSpellings_AlwaysAccepted: without any compat mode, the Unity-AI
// Bridge's input spellings work (logName, logId, numbers and booleans as
// strings) and what cannot be read is still refused by name.
func TestSpellings_AlwaysAccepted(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	for range 3 {
		logtest.MustAppend(t, l, oplog.Record{Level: oplog.LevelInfo, Name: "test-log", Text: "Test message"})
	}
	srv := New(l, nil)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bridge-client"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name, args string) (string, bool) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	for _, tt := range []struct{ tool, args, want string }{
		{"get_logs_by_name", `{"logName":"test-log","limit":"2"}`, "2 of 3 records"},
		{"get_log_by_name", `{"logName":"test-log","limit":" 1 ","collapse":"false"}`, "1 of 3 records"},
		{"get_log_details", `{"logId":"2"}`, "#2 line"},
		{"get_result", `{"log_id":"2","waitMs":"0"}`, "not an operation"},
	} {
		text, _ := call(tt.tool, tt.args)
		if !strings.Contains(text, tt.want) {
			t.Errorf("%s %s: %q, want %q", tt.tool, tt.args, text, tt.want)
		}
	}
	if text, isErr := call("get_logs_by_name", `{"logName":"test-log","limit":"ten"}`); !isErr || !strings.Contains(text, "limit") {
		t.Errorf(`limit "ten": %q, want an error naming limit`, text)
	}
	if text, isErr := call("get_logs", `{"bogus":1}`); !isErr || !strings.Contains(text, "bogus") {
		t.Errorf("an unknown argument: %q, want an error naming it", text)
	}
}
