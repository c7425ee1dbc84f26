package gateway_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/gateway"
)

// oddServerEnv makes the test binary a hand-written stdio MCP server whose
// tools break the rules the SDK's server enforces (see TestOddServerChild).
const oddServerEnv = "MCPLOGD_TEST_ODD_SERVER"

// TestOddServerChild is the odd upstream when run with oddServerEnv set: a
// tool with an array input schema and one with none. Otherwise it is
// skipped.
func TestOddServerChild(t *testing.T) {
	if os.Getenv(oddServerEnv) == "" {
		t.Skip("the odd upstream of TestGateway_ToolsWithoutObjectSchema")
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // notifications
		}
		var result string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"odd","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"listy","inputSchema":{"type":"array"}},{"name":"bare"},{"name":"fine","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			result = `{"content":[{"type":"text","text":"called"}]}`
		default:
			result = `{}`
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
	}
	os.Exit(0)
}

func TestGateway_ToolsWithoutObjectSchema(t *testing.T) {
	t.Setenv(oddServerEnv, "1")
	e := newEnv(t, gateway.Upstream{Name: "odd", Command: []string{os.Args[0], "-test.run=^TestOddServerChild$"}})
	for _, name := range []string{"listy", "bare", "fine"} {
		tool := e.waitTool(name)
		if b, _ := json.Marshal(tool.InputSchema); !strings.Contains(string(b), `"object"`) {
			t.Errorf("%s offered with input schema %s, want an object schema", name, b)
		}
	}
	if res := e.call("bare", map[string]any{"x": 1}); res.IsError || text(t, res) != "called" {
		t.Errorf("calling a tool offered with a stand-in schema: %+v", res)
	}
}
