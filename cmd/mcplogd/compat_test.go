package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// bridgeUpstream is a game's MCP server with the Unity-AI Bridge's own
// execute_code and query, answering as the seed's examples do.
func bridgeUpstream(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "unity-bridge", Version: "2.0.0"}, nil)
	answer := func(key string) mcp.ToolHandler {
		return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &args)
			b, _ := json.Marshal(map[string]any{"status": "success", "log_id": "bfc24c7f-351f-4429-9f6d-6f92c682e4da",
				"result":      map[string]any{"result": map[string]any{"mockResult": true, key: args[key]}, "logs": []string{"[MOCK] executed"}, "executionTime": 165},
				"is_complete": true, "message": "Operation completed successfully"})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
		}
	}
	obj := func(p string) *mcp.Tool {
		return &mcp.Tool{Name: "", InputSchema: json.RawMessage(`{"type":"object","properties":{"` + p + `":{"type":"string"},"timeout":{"type":"number"}},"required":["` + p + `"]}`)}
	}
	code := obj("code")
	code.Name, code.Description = "execute_code", "Execute C# code in Unity at runtime"
	query := obj("query")
	query.Name, query.Description = "query", "Execute a query using dot notation"
	srv.AddTool(code, answer("code"))
	srv.AddTool(query, answer("query"))
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// bridgeCall calls a tool as the bridge's clients do: the answer is the
// JSON of the text block, which must equal structuredContent.
func bridgeCall(t *testing.T, cs *mcp.ClientSession, name, args string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var m, sc map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("%s %s: the text block is not JSON: %v\n%s", name, args, err, text)
	}
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &sc)
	if fmt.Sprint(m) != fmt.Sprint(sc) {
		t.Errorf("%s: the text block %s is not structuredContent %s", name, text, b)
	}
	if m["status"] != "success" {
		t.Fatalf("%s %s: status %v: %s", name, args, m["status"], text)
	}
	return m
}

// path reads a field of a decoded answer: "result.logs.0.logName".
func path(v any, p string) any {
	for _, k := range strings.Split(p, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// TestCompat_UnityBridge replays the Unity-AI Bridge seed's example
// exchanges (004_*: its MCP tools document) as a client written for the
// bridge sends and reads them, through `mcplogd stdio --compat unity-bridge`
// (the real binary) beside a server that config.json puts in the same
// mode, in front of an upstream with the bridge's execute_code and query.
func TestCompat_UnityBridge(t *testing.T) {
	bin := stdioBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "config.json"), []byte(`{"compat":"unity-bridge"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	base, _, _ := startServe(t, data, "--addr", "127.0.0.1:0", "--upstream", "unity="+bridgeUpstream(t))
	token := readToken(t, data)
	for _, rec := range []string{
		`{"level":"error","name":"test-log","text":"Error message","stack":"at Player.Update () in Assets/Player.cs:12","data":{"scene":"Main"}}`,
		`{"level":"info","name":"test-log","text":"Test message"}`,
		`{"level":"info","name":"test-log","text":"Test message"}`,
	} {
		if code, body := post(t, base+"/api/v1/logs", token, rec); code != 200 {
			t.Fatalf("ingest: %d %s", code, body)
		}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcp-stdio-client", Version: "1"}, nil).Connect(context.Background(),
		&mcp.CommandTransport{Command: exec.Command(bin, "stdio", "--data", data, "--compat", "unity-bridge")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	logtest.Eventually(t, 30*time.Second, "the upstream's tools", func() bool {
		l, err := cs.ListTools(context.Background(), nil)
		return err == nil && strings.Contains(fmt.Sprint(toolNames(l)), "execute_code")
	})

	exec1 := bridgeCall(t, cs, "execute_code", `{"code":"return System.Environment.MachineName;","timeout":5000}`)
	logID, _ := exec1["log_id"].(string)
	if logID == "" || exec1["is_complete"] != true || path(exec1, "result.result.mockResult") != true || exec1["message"] != "Operation completed successfully" {
		t.Fatalf("execute_code: %v", exec1)
	}
	if q := bridgeCall(t, cs, "unity_query", `{"query":"UnityEngine.Application.version","timeout":5000}`); path(q, "result.result.query") != "UnityEngine.Application.version" {
		t.Errorf("unity_query: %v", q)
	}
	// As the bridge's documents advise: check is_complete, ask again.
	var res map[string]any
	logtest.Eventually(t, 30*time.Second, "get_result is_complete", func() bool {
		res = bridgeCall(t, cs, "get_result", `{"logId":"`+logID+`"}`)
		return res["is_complete"] == true
	})
	if path(res, "result.logId") != logID || path(res, "result.status") != "success" || path(res, "result.isComplete") != true ||
		fmt.Sprintf("%T", path(res, "result.startTime")) != "float64" || fmt.Sprintf("%T", path(res, "result.endTime")) != "float64" || res["log_id"] != logID {
		t.Errorf("get_result {logId}: %v", res)
	}
	// The gateway completes an operation just after it answers the call.
	var logs map[string]any
	var ops []any
	logtest.Eventually(t, 30*time.Second, "both operations complete", func() bool {
		logs = bridgeCall(t, cs, "get_logs", `{"count":5}`)
		ops, _ = logs["operations"].([]any)
		return len(ops) == 2 && path(ops[0], "isComplete") == true && path(ops[1], "isComplete") == true
	})
	for i, op := range ops {
		for _, k := range []string{"logId:string", "status:string", "isComplete:bool", "startTime:float64", "endTime:float64", "operationType:string"} {
			name, typ, _ := strings.Cut(k, ":")
			if got := fmt.Sprintf("%T", path(op, name)); got != typ {
				t.Errorf("get_logs operation %d: %s is %s, want %s: %v", i, name, got, typ, op)
			}
		}
	}
	var errorID any
	for _, call := range [][2]string{
		{"get_logs_by_name", `{"log_name":"test-log","limit":10}`},
		{"unity_get_logs_by_name", `{"logName":"test-log","limit":"10"}`},
	} {
		byName := bridgeCall(t, cs, call[0], call[1])
		entries, _ := path(byName, "result.logs").([]any)
		if len(entries) != 3 || path(entries[0], "logName") != "test-log" || path(entries[0], "data.message") != "Test message" ||
			path(entries[0], "timestamp") == nil || path(entries[2], "data.level") != "error" {
			t.Fatalf("%s %s: one entry per record (no collapsing), with logName and data: %v", call[0], call[1], byName)
		}
		errorID = path(entries[2], "logId")
	}
	one := bridgeCall(t, cs, "get_log_by_name", `{"log_name":"test-log","limit":"2"}`)
	if entries, _ := path(one, "result.entries").([]any); path(one, "result.name") != "test-log" || len(entries) != 2 ||
		path(entries[0], "level") != "info" || path(entries[0], "message") != "Test message" || path(entries[0], "timestamp") == nil {
		t.Errorf("get_log_by_name: %v", one)
	}
	details := bridgeCall(t, cs, "get_log_details", fmt.Sprintf(`{"logId":%q}`, errorID))
	if path(details, "result.id") != errorID || path(details, "result.message") != "Error message" || path(details, "result.type") != "error" ||
		!strings.Contains(fmt.Sprint(path(details, "result.stackTrace")), "Player.cs:12") || path(details, "result.context.scene") != "Main" ||
		path(details, "result.timestamp") == nil || details["log_id"] != errorID {
		t.Errorf("get_log_details {logId}: %v", details)
	}
	help := bridgeCall(t, cs, "help", `{}`)
	ids := map[any]bool{}
	tools, _ := path(help, "result.tools").([]any)
	for _, tool := range tools {
		ids[path(tool, "id")] = true
	}
	if path(help, "result.documentation") == nil || !ids["unity_get_logs"] || !ids["unity_get_result"] || !ids["unity_execute_code"] || !ids["unity_help"] {
		t.Errorf("help: documentation and unity_ tool ids: %v", help)
	}
	if h := bridgeCall(t, cs, "unity_help", `{}`); path(h, "result.documentation") == nil {
		t.Errorf("unity_help: %v", h)
	}
	// The server itself answers in the mode config.json names.
	hc := mcp.NewClient(&mcp.Implementation{Name: "bridge-http", Version: "1"}, nil)
	hs, err := hc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp/" + token}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	if l := bridgeCall(t, hs, "unity_get_logs", `{"count":"1"}`); len(l["operations"].([]any)) != 1 {
		t.Errorf("unity_get_logs over HTTP: %v", l)
	}
}

func toolNames(l *mcp.ListToolsResult) []string {
	var names []string
	for _, tool := range l.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// TestCompat_BadMode: an unknown mode is refused by name, from the flag and
// from config.json.
func TestCompat_BadMode(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if _, err := run(t, data, "serve", "--compat", "unity"); err == nil || !strings.Contains(err.Error(), "unity-bridge") {
		t.Errorf("serve --compat unity: %v", err)
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "config.json"), []byte(`{"compat":"bridge"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "serve", "--addr", "127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "config.json") || !strings.Contains(err.Error(), `"bridge"`) {
		t.Errorf("config.json compat bridge: %v", err)
	}
}
