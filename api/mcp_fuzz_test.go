package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// FuzzServer_MCP sends arbitrary bodies to the MCP endpoint within an
// initialized session: whatever arrives, the server answers (no panic, no
// hang past the request's deadline), never with a 5xx, and a JSON answer is
// valid JSON. The seeds are a call of every tool, batches and broken JSON.
func FuzzServer_MCP(f *testing.F) {
	l, _ := logtest.MustOpenLog(f, nil)
	logtest.MustAppend(f, l, oplog.Record{Level: oplog.LevelError, Name: "Spawner", Text: "NullReferenceException",
		Stack: "at Spawner.Update () in Assets/Spawner.cs:42"})
	logtest.MustAppend(f, l, logtest.Lines(3, "line")...)
	s, err := api.New(l, &api.Options{Token: testToken})
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	post := func(ctx context.Context, session, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp/"+testToken, strings.NewReader(body))
		req.Host = "127.0.0.1:7170"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	w := post(context.Background(), "", initializeBody("2025-11-25"))
	session := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || session == "" {
		f.Fatalf("initialize: %d %q, session %q", w.Code, w.Body, session)
	}
	post(context.Background(), session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	call := func(tool, args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	}
	if w := post(context.Background(), session, call("ping", "{}")); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"status":"ok"`) {
		f.Fatalf("ping in the session: %d %s", w.Code, w.Body) // else every input would only meet "no session"
	}
	for _, seed := range []string{
		call("console_tail", `{"sinceId":0,"limit":2,"level":"warn"}`),
		call("console_tail", `{"waitMs":50,"sinceId":"4"}`),
		call("get_logs", `{"count":1,"offset":1,"since":"-1h"}`),
		call("get_logs_by_name", `{"log_name":"Spawner"}`),
		call("get_log_by_name", `{"log_name":"Spawner","limit":"x"}`),
		call("get_log_details", `{"log_id":1}`),
		call("get_log_details", `{"logId":"1e3"}`),
		call("get_result", `{"log_id":2,"waitMs":10}`),
		call("replay_operation", `{"log_id":1}`),
		call("list_log_names", `{"source":""}`),
		call("append_log", `{"text":"fuzz","data":{"a":[1,2]}}`),
		call("clear_logs", `{"confirm":"yes"}`),
		call("store_info", `{}`),
		call("ping", `null`),
		call("help", `{"tool":"search_logs"}`),
		call("search_logs", `{"query":"level:error AND \"null reference\" OR Physi*","limit":1}`),
		call("find_crashes", `{"since":"-1h","limit":0}`),
		call("no_such_tool", `{}`),
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"mcplogd://records/1"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"triage"},"argument":{"name":"log_name","value":""}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"triage"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"no/such"}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"1.0","method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"nope"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1`,
		`null`, `[]`, `""`, ``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		// Long polls end with the request; a second is plenty for the rest.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		w := post(ctx, session, body)
		if w.Code >= 500 {
			t.Fatalf("POST %q: %d %s", body, w.Code, w.Body)
		}
		if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") && w.Body.Len() > 0 &&
			!json.Valid(bytes.TrimSpace(w.Body.Bytes())) {
			t.Fatalf("POST %q: %d with a JSON Content-Type but not JSON: %q", body, w.Code, w.Body)
		}
	})
}
