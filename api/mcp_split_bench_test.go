package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCP_Split splits BenchmarkMCP_ConsoleTail's and
// BenchmarkMCP_Ping's calls into the server's part and the client's part
// (where the default console_tail's time goes), one go-sdk client, each protocol generation:
//
//   - side=server replays the go-sdk client's recorded tools/call requests
//     straight into the server's http.Handler, in process: Echo, the SDK's
//     handler, the tool and the answer's JSON, without the network or a
//     client.
//
//   - side=client answers the go-sdk client from a recording of the
//     server's answer, so only the client and the loopback remain.
//
//   - side=encoding is the part of side=server that the go-sdk's jsonrpc2
//     spends writing the recorded answer: the CallToolResult marshalled, then
//     the response around it, as the SDK does (a floor no tool can go under
//     for an answer of that size).
//
// side=server also reports the recorded answer's bytes (answer-B) and, for
// console_tail, its bytes per entry (B/entry).
func BenchmarkMCP_Split(b *testing.B) {
	rec := newRecorder(b)
	for _, proto := range []string{"2025-11-25", "2026-07-28"} {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: rec.url}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		for _, tool := range []string{"console_tail", "ping"} {
			call := func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
				if err == nil && res.IsError {
					err = fmt.Errorf("tool error: %v", res.Content)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			rec.recording = true
			call() // records the request and the answer
			rec.recording = false
			answerBytes, entries := rec.answerSize()
			b.Run(fmt.Sprintf("proto=%s/tool=%s/side=server", proto, tool), func(b *testing.B) {
				benchLatency(b, func() { rec.replay(b) })
				b.ReportMetric(float64(answerBytes), "answer-B")
				if entries > 0 {
					b.ReportMetric(float64(answerBytes)/float64(entries), "B/entry")
				}
			})
			b.Run(fmt.Sprintf("proto=%s/tool=%s/side=client", proto, tool), func(b *testing.B) {
				benchLatency(b, call)
			})
			b.Run(fmt.Sprintf("proto=%s/tool=%s/side=encoding", proto, tool), func(b *testing.B) {
				res := rec.result(b)
				benchLatency(b, func() { sdkEncode(b, res) })
			})
		}
	}
}

// benchLatency runs call b.N times and reports its p50.
func benchLatency(b *testing.B, call func()) {
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		call()
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
}

// splitRecorder serves the benchmark store, recording the last tools/call
// request and its answer while recording is set, and answering tools/call
// from that recording (with the caller's JSON-RPC ID) while it is not.
type splitRecorder struct {
	url       string
	handler   http.Handler
	recording bool

	mu     sync.Mutex
	req    *http.Request // the recorded request, its body in body
	body   []byte
	answer []byte
	header http.Header
}

func newRecorder(b *testing.B) *splitRecorder {
	r := &splitRecorder{handler: benchHandler(b)}
	ts := httptest.NewServer(r)
	b.Cleanup(ts.Close)
	r.url = ts.URL + "/mcp/" + testToken
	return r
}

var rpcID = regexp.MustCompile(`"id":[0-9]+`)

func (r *splitRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if req.Method != http.MethodPost || json.Unmarshal(body, &m) != nil || m.Method != "tools/call" {
		r.handler.ServeHTTP(w, req)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.recording {
		for k, v := range r.header {
			w.Header()[k] = v
		}
		_, _ = w.Write(rpcID.ReplaceAll(r.answer, []byte(`"id":`+string(m.ID))))
		return
	}
	rw := httptest.NewRecorder()
	r.handler.ServeHTTP(rw, req.Clone(context.Background()))
	r.req, r.body, r.answer, r.header = req.Clone(context.Background()), body, rw.Body.Bytes(), rw.Header().Clone()
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rw.Code)
	_, _ = w.Write(r.answer)
}

// replay sends the recorded request to the server's handler in process.
func (r *splitRecorder) replay(b *testing.B) {
	req := r.req.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(r.body))
	rw := httptest.NewRecorder()
	r.handler.ServeHTTP(rw, req)
	if rw.Code != http.StatusOK || !bytes.Contains(rw.Body.Bytes(), []byte(`"result"`)) {
		b.Fatalf("replay: %d %.300s", rw.Code, rw.Body.Bytes())
	}
}

var tailEntries = regexp.MustCompile(`console_tail: \d+ lines \((\d+) entries\)`)

// answerSize is the recorded answer's bytes and the entries it carries: its
// structuredContent's lines where it has them, else the count in the text
// block's header (0 for an answer of no lines, such as ping's).
func (r *splitRecorder) answerSize() (size, entries int) {
	var m struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			Structured struct {
				Lines []json.RawMessage `json:"lines"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	body := r.answer
	if i := bytes.Index(body, []byte("data: ")); i >= 0 { // an SSE answer
		body = body[i+len("data: "):]
	}
	_ = json.Unmarshal(body, &m)
	entries = len(m.Result.Structured.Lines)
	if entries == 0 {
		for _, c := range m.Result.Content {
			if s := tailEntries.FindStringSubmatch(c.Text); s != nil {
				fmt.Sscan(s[1], &entries)
			}
		}
	}
	return len(r.answer), entries
}

// result is the recorded answer's CallToolResult.
func (r *splitRecorder) result(b *testing.B) *mcp.CallToolResult {
	body := r.answer
	if i := bytes.Index(body, []byte("data: ")); i >= 0 { // an SSE answer
		body = body[i+len("data: "):]
	}
	var m struct {
		Result *mcp.CallToolResult `json:"result"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.Result == nil {
		b.Fatalf("recorded answer: %v %.300s", err, body)
	}
	return m.Result
}

// sdkEncode writes res as the go-sdk's jsonrpc2 writes a result: marshalled
// to a json.RawMessage, then the response around it by an Encoder without
// HTML escaping.
func sdkEncode(b *testing.B, res *mcp.CallToolResult) {
	raw, err := json.Marshal(res)
	if err != nil {
		b.Fatal(err)
	}
	enc := json.NewEncoder(io.Discard)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Version string          `json:"jsonrpc"`
		ID      int             `json:"id"`
		Result  json.RawMessage `json:"result"`
	}{"2.0", 1, raw}); err != nil {
		b.Fatal(err)
	}
}
