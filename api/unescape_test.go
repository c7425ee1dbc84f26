package api_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// teeTransport keeps a copy of every answer body the client reads.
type teeTransport struct {
	mu  sync.Mutex
	raw bytes.Buffer
}

func (tt *teeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(resp.Body, tt), resp.Body}
	return resp, nil
}

func (tt *teeTransport) Write(p []byte) (int, error) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.raw.Write(p)
}

func (tt *teeTransport) String() string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.raw.String()
}

// TestServer_MCP_NoHTMLEscapes: the MCP endpoint's answers, as they cross
// the wire, hold < and > as they are, in the text block and in
// structuredContent alike, and still decode.
func TestServer_MCP_NoHTMLEscapes(t *testing.T) {
	h := mustServe(t, nil)
	mustCall[map[string]any](h, "POST", "/api/v1/logs", `{"level":"error","name":"Boss","text":"BossFight+<PhaseRoutine>d__12 failed & stopped"}`, http.StatusOK)
	tee := &teeTransport{}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcplogd-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL(h), HTTPClient: &http.Client{Transport: tee}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "console_tail", Arguments: map[string]any{"format": "json"}})
	if err != nil || res.IsError {
		t.Fatalf("console_tail: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "BossFight+<PhaseRoutine>d__12 failed & stopped") {
		t.Fatalf("the decoded text block: %s", text)
	}
	raw := tee.String()
	if strings.Count(raw, "BossFight+<PhaseRoutine>d__12 failed & stopped") < 2 {
		t.Errorf("the answer on the wire does not hold the text unescaped in both the text block and structuredContent:\n%s", raw)
	}
	for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
		if strings.Contains(raw, esc) {
			t.Errorf("the answer on the wire holds %s:\n%s", esc, raw)
		}
	}
}

// TestServer_JSON_StoredEscapes: data stored with HTML escapes (as
// json.Marshal writes it) comes out of the API as < and >; an escaped
// backslash before "u003c" is left alone.
func TestServer_JSON_StoredEscapes(t *testing.T) {
	h := mustServe(t, nil)
	mustCall[map[string]any](h, "POST", "/api/v1/logs", `{"level":"info","text":"a \\u003c b","data":{"boss":"BossFight+\u003cPhaseRoutine\u003ed__12"}}`, http.StatusOK)
	resp, body := get(h, "/api/v1/records/1", "", map[string]string{"Authorization": "Bearer " + testToken})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/records/1: %d %s", resp.StatusCode, body)
	}
	if !strings.Contains(body, `"boss":"BossFight+<PhaseRoutine>d__12"`) || !strings.Contains(body, `"text":"a \\u003c b"`) {
		t.Fatalf("GET /api/v1/records/1: %s", body)
	}
}

// TestServer_Stream_NoHTMLEscapes: the event stream's JSON holds < as it is.
func TestServer_Stream_NoHTMLEscapes(t *testing.T) {
	h := mustServe(t, nil)
	mustCall[map[string]any](h, "POST", "/api/v1/logs", `{"level":"info","text":"BossFight+<PhaseRoutine>d__12"}`, http.StatusOK)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.URL+"/api/v1/stream", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got bytes.Buffer
	buf := make([]byte, 4096)
	for !strings.Contains(got.String(), "\n\n") {
		n, err := resp.Body.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if ev := got.String(); !strings.Contains(ev, `"text":"BossFight+<PhaseRoutine>d__12"`) || strings.Contains(ev, `\u003c`) {
		t.Fatalf("the first event: %s", ev)
	}
}
