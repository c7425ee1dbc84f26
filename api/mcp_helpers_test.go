package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/api/apitest"
)

// mcpHarness is a harness with a connected go-sdk client session.
type mcpHarness struct {
	*harness
	session *mcp.ClientSession
	tools   map[string]*mcp.Tool
}

// mcpURL is the MCP endpoint of h.
func mcpURL(h *harness) string { return h.URL + "/mcp/" + testToken }

// mustConnect connects a go-sdk client over Streamable HTTP, closed at cleanup.
func mustConnect(t *testing.T, h *harness, opts *mcp.ClientOptions) *mcpHarness {
	t.Helper()
	return mustConnectAt(t, h, opts, "")
}

// sessionVersion is the newest protocol version with sessions (initialize,
// Mcp-Session-Id); the go-sdk client's default, 2026-07-28, has none.
const sessionVersion = "2025-11-25"

// mustConnectAt is mustConnect pinned to a protocol version ("": the
// go-sdk client's default).
func mustConnectAt(t *testing.T, h *harness, opts *mcp.ClientOptions, version string) *mcpHarness {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "mcplogd-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL(h)}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	m := &mcpHarness{harness: h, session: cs, tools: map[string]*mcp.Tool{}}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	for _, tool := range res.Tools {
		m.tools[tool.Name] = tool
	}
	return m
}

// mustServeMCP serves a fresh store and connects a client to it.
func mustServeMCP(t *testing.T) *mcpHarness {
	t.Helper()
	return mustConnect(t, mustServe(t, nil), nil)
}

// callRaw calls a tool and checks what every answer must be: one text block
// holding exactly the JSON of structuredContent, which (for a success)
// matches the tool's declared outputSchema.
func (m *mcpHarness) callRaw(t *testing.T, name string, args any) (*mcp.CallToolResult, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := m.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	return res, apitest.CheckToolResult(t, name, res, m.tools[name].OutputSchema)
}

// call calls a tool that must succeed and decodes its result into T. A
// tool that takes format is asked for format json (unless args say), so
// that structuredContent holds the entries that T reads.
func call[T any](t *testing.T, m *mcpHarness, name string, args any) T {
	t.Helper()
	if a, ok := args.(map[string]any); (ok || args == nil) && m.takes(name, "format") && a["format"] == nil {
		with := map[string]any{"format": "json"}
		for k, v := range a {
			with[k] = v
		}
		args = with
	}
	res, b := m.callRaw(t, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): tool error %s", name, args, b)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: decode %s: %v", name, b, err)
	}
	return v
}

// callError calls a tool that must fail with isError and returns the message.
func (m *mcpHarness) callError(t *testing.T, name string, args any, wants ...string) string {
	t.Helper()
	res, b := m.callRaw(t, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v) = %s, want isError", name, args, b)
	}
	for _, w := range wants {
		if !strings.Contains(string(b), w) {
			t.Errorf("%s(%v): message %q does not contain %q", name, args, b, w)
		}
	}
	return string(b)
}

// tail is console_tail's answer.
type tail struct {
	Lines []struct {
		ID        uint64 `json:"id"`
		Time      string `json:"time"`
		Level     string `json:"level"`
		Name      string `json:"name"`
		Source    string `json:"source"`
		Text      string `json:"text"`
		Truncated bool   `json:"truncated"`
		HasStack  bool   `json:"hasStack"`
	} `json:"lines"`
	LastID   uint64 `json:"lastId"`
	Revision uint64 `json:"revision"`
	Dropped  uint64 `json:"dropped"`
	Reset    bool   `json:"reset"`
	More     bool   `json:"more"`
}

func (tl tail) texts() string {
	s := make([]string, len(tl.Lines))
	for i, l := range tl.Lines {
		s[i] = l.Text
	}
	return strings.Join(s, ",")
}

// summary is a record in a list answer.
type summary struct {
	ID         uint64 `json:"id"`
	Kind       string `json:"kind"`
	Level      string `json:"level"`
	Name       string `json:"name"`
	Source     string `json:"source"`
	Text       string `json:"text"`
	Truncated  bool   `json:"truncated"`
	HasStack   bool   `json:"hasStack"`
	HasData    bool   `json:"hasData"`
	Tool       string `json:"tool"`
	Status     string `json:"status"`
	IsComplete *bool  `json:"isComplete"`
}

type logs struct {
	Logs  []summary `json:"logs"`
	Total int64     `json:"total"`
	More  bool      `json:"more"`
}

func summaryTexts(recs []summary) string {
	s := make([]string, len(recs))
	for i, r := range recs {
		s[i] = r.Text
	}
	return strings.Join(s, ",")
}

// rawMCP posts body to the MCP endpoint path with extra headers and returns
// the status and body.
func rawMCP(h *harness, t *testing.T, method, path, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, h.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func initializeBody(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
}

// takes reports whether tool name declares the argument arg.
func (m *mcpHarness) takes(name, arg string) bool {
	tool := m.tools[name]
	if tool == nil {
		return false
	}
	b, _ := json.Marshal(tool.InputSchema)
	var schema struct {
		Properties map[string]any `json:"properties"`
	}
	_ = json.Unmarshal(b, &schema)
	_, ok := schema.Properties[arg]
	return ok
}
