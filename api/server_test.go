package api_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

func TestNew_Validate(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	for _, tt := range []struct {
		name string
		log  *oplog.Log
		opts *api.Options
		want string // in the error; empty: no error
	}{
		{"OK", l, &api.Options{Token: testToken}, ""},
		{"NilOptions", l, nil, "Token"},
		{"NilLog", nil, &api.Options{Token: testToken}, "Log"},
		{"NoToken", l, &api.Options{}, "Options.Token: missing"},
		{"ShortToken", l, &api.Options{Token: "abc123"}, "Options.Token: must be 64 hex"},
		{"NotHex", l, &api.Options{Token: strings.Repeat("zz", 32)}, "Options.Token: must be 64 hex"},
		{"NegativeBody", l, &api.Options{Token: testToken, MaxBodyBytes: -1}, "Options.MaxBodyBytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := api.New(tt.log, tt.opts)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("New error = %v; want one naming %q", err, tt.want)
			}
		})
	}
}

func TestServer_Healthz(t *testing.T) {
	h := mustServe(t, &harnessOptions{API: api.Options{Options: mcptools.Options{Version: "v1.2.3"}}})
	status, b, err := h.Send(context.Background(), http.MethodGet, "/healthz", "", nil)
	if err != nil || status != http.StatusOK {
		t.Fatalf("GET /healthz without a token: %d %s %v", status, b, err)
	}
	got := mustDecode[map[string]string](t, b)
	if got["status"] != "ok" || got["version"] != "v1.2.3" {
		t.Errorf("healthz = %s", b)
	}
}

func TestServer_Auth(t *testing.T) {
	h := mustServe(t, nil)
	for _, tt := range []struct {
		name, auth string
		want       int
	}{
		{"OK", "Bearer " + testToken, http.StatusOK},
		{"LowercaseScheme", "bearer " + testToken, http.StatusOK},
		{"Missing", "", http.StatusUnauthorized},
		{"Wrong", "Bearer " + strings.Repeat("f", 64), http.StatusUnauthorized},
		{"Prefix", "Bearer " + testToken[:63], http.StatusUnauthorized},
		{"NoScheme", testToken, http.StatusUnauthorized},
		{"Basic", "Basic " + testToken, http.StatusUnauthorized},
		{"Empty", "Bearer ", http.StatusUnauthorized},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, path := range []string{"/api/v1/info", "/api/v1/records", "/api/v1/nowhere"} {
				status, b, err := h.Send(context.Background(), http.MethodGet, path, tt.auth, nil)
				if err != nil {
					t.Fatal(err)
				}
				if tt.want == http.StatusOK {
					if status == http.StatusUnauthorized {
						t.Errorf("%s: 401 with a good token: %s", path, b)
					}
					continue
				}
				checkError(t, status, b, http.StatusUnauthorized, oplog.EUNAUTHORIZED, "token")
			}
		})
	}
	if got := h.Log.Stats().Records; got != 0 {
		t.Errorf("records = %d after unauthorised requests", got)
	}
}

func TestServer_Logs_OK(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       string // texts
	}{
		{"Array", `[{"level":"info","text":"a"},{"level":"warn","text":"b"}]`, "a,b"},
		{"NDJSON", "{\"level\":\"info\",\"text\":\"a\"}\n\n{\"level\":\"warn\",\"text\":\"b\"}\r\n{\"level\":\"error\",\"text\":\"c\"}\n", "a,b,c"},
		{"Object", "{\n  \"level\": \"info\",\n  \"text\": \"pretty\"\n}\n", "pretty"},
		{"BOM", "\xef\xbb\xbf{\"level\":\"info\",\"text\":\"bom\"}", "bom"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := mustServe(t, nil)
			a := mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", tt.body, http.StatusOK)
			n := strings.Count(tt.want, ",") + 1
			if a.Count != n || len(a.IDs) != n || a.FirstID != a.IDs[0] || a.LastID != a.IDs[n-1] {
				t.Fatalf("answer %+v for %d lines", a, n)
			}
			if got := h.Log.Stats().Records; got != uint64(n) {
				t.Fatalf("records = %d, want %d", got, n)
			}
			var got []string
			for i, id := range a.IDs {
				if i > 0 && id <= a.IDs[i-1] {
					t.Errorf("ids not increasing: %v", a.IDs)
				}
				r, err := h.Log.Get(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, r.Text)
			}
			if strings.Join(got, ",") != tt.want {
				t.Errorf("stored %v, want %s", got, tt.want)
			}
		})
	}
}

func TestServer_Logs_Fields(t *testing.T) {
	h := mustServe(t, nil)
	body := `[
	  {"time":"2026-01-02T15:04:05.123Z","level":"Exception","log_name":"Physics","source":"unity-editor",
	   "message":"NullReferenceException","stack_trace":"at Rigidbody.Step ()","context":{"frame": 12}},
	  {"time":1767366245000,"level":"warn","logName":"AI","text":"t2","stackTrace":"s2","data":{"a":[1, 2]}},
	  {"time":1767366245,"level":"debug","name":"Net","text":"t3","stack":"s3"}
	]`
	a := mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", body, http.StatusOK)
	want := []oplog.Record{
		{Time: time.Date(2026, 1, 2, 15, 4, 5, 123e6, time.UTC), Level: oplog.LevelError, Name: "Physics", Source: "unity-editor",
			Text: "NullReferenceException", Stack: "at Rigidbody.Step ()", Data: []byte(`{"frame":12}`)},
		{Time: time.UnixMilli(1767366245000).UTC(), Level: oplog.LevelWarn, Name: "AI", Source: oplog.DefaultSource, Text: "t2", Stack: "s2", Data: []byte(`{"a":[1,2]}`)},
		{Time: time.Unix(1767366245, 0).UTC(), Level: oplog.LevelDebug, Name: "Net", Source: oplog.DefaultSource, Text: "t3", Stack: "s3"},
	}
	for i, id := range a.IDs {
		r, err := h.Log.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		w := want[i]
		if !r.Time.Equal(w.Time) || r.Level != w.Level || r.Name != w.Name || r.Source != w.Source || r.Text != w.Text ||
			r.Stack != w.Stack || string(r.Data) != string(w.Data) || r.Kind != oplog.KindLine {
			t.Errorf("record %d = %+v\nwant %+v", i, r, w)
		}
	}
}

func TestServer_Logs_Levels(t *testing.T) {
	h := mustServe(t, nil)
	for in, want := range map[string]string{
		"debug": "debug", "Verbose": "debug", "info": "info", "Log": "info", "INFO": "info",
		"warn": "warn", "Warning": "warn", "WARNING": "warn", "error": "error", "Error": "error",
		"Exception": "error", "Assert": "error", "fatal": "fatal", "Critical": "fatal",
	} {
		a := mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", fmt.Sprintf(`{"level":%q,"text":"x"}`, in), http.StatusOK)
		r := mustCall[record](h, http.MethodGet, fmt.Sprintf("/api/v1/records/%d", a.IDs[0]), "", http.StatusOK)
		if r.Level != want {
			t.Errorf("level %q stored as %q, want %q", in, r.Level, want)
		}
	}
}

func TestServer_Logs_BadLine(t *testing.T) {
	h := mustServe(t, nil)
	const ok = `{"level":"info","text":"fine"}`
	for _, tt := range []struct {
		name, body string
		index      int // -1: no index
		msgs       []string
	}{
		{"ArrayBadLevel", `[` + ok + `,` + ok + `,{"level":"loud","text":"c"}]`, 2,
			[]string{"record 2", "level", `"loud"`, "debug, info, warn, error or fatal"}},
		{"NDJSONUnknownField", ok + "\n\n" + ok + "\n" + `{"level":"info","txt":"x"}` + "\n", 2,
			[]string{"record 2 (line 4)", `unknown field "txt"`, "put extra fields in data"}},
		{"UnknownFields", `{"level":"info","b":1,"a":2}`, 0, []string{`unknown fields "a", "b"`}},
		{"TextAndMessage", `[` + ok + `,{"level":"info","text":"a","message":"b"}]`, 1, []string{"record 1", "text", "message"}},
		{"NameTwice", `{"level":"info","name":"a","log_name":"b"}`, 0, []string{"name", "log_name"}},
		{"DataNotObject", `{"level":"info","data":[1]}`, 0, []string{"data: must be a JSON object"}},
		{"ContextNotObject", `{"level":"info","context":"x"}`, 0, []string{"context: must be a JSON object"}},
		{"MissingLevel", ok + "\n" + `{"text":"no level"}`, 1, []string{"record 1 (line 2)", "level: missing"}},
		{"LevelNotString", `{"level":3}`, 0, []string{"level: must be a string"}},
		{"TextNotString", `{"level":"info","text":{"a":1}}`, 0, []string{"text: must be a string"}},
		{"BadTime", `[` + ok + `,{"level":"info","time":"yesterday-ish"}]`, 1, []string{"record 1", "time:", "RFC 3339"}},
		{"TimeBool", `{"level":"info","time":true}`, 0, []string{"time: must be"}},
		{"NotObject", `[` + ok + `,1]`, 1, []string{"record 1", "expected a JSON object"}},
		{"MalformedArray", `[` + ok + `,{"level":}]`, 1, []string{"record 1", "malformed JSON", "invalid character"}},
		{"MalformedNDJSON", ok + "\n" + `{"level":"info"`, 1, []string{"record 1 (line 2)", "malformed JSON"}},
		{"TrailingGarbage", ok + ` trailing`, 0, []string{"record 0", "malformed JSON"}},
		{"Unclosed", `[` + ok, -1, []string{"not closed"}},
		{"AfterArray", `[` + ok + `] x`, -1, []string{"after the closing ]"}},
		// Refused by oplog.Log.Append rather than the decoder: same answer.
		{"NameWithNewline", `[` + ok + `,{"level":"info","name":"a\nb"}]`, 1, []string{"record 1", "name: must not contain"}},
		{"TimeOutOfRange", `[` + ok + `,{"level":"info","time":"1900-01-01T00:00:00Z"}]`, 1, []string{"record 1", "time:", "out of range"}},
		{"Empty", ``, -1, []string{"no lines"}},
		{"Blank", "\n \n", -1, []string{"no lines"}},
		{"EmptyArray", `[]`, -1, []string{"no lines"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, b := h.Call(http.MethodPost, "/api/v1/logs", tt.body)
			e := checkError(t, status, b, http.StatusBadRequest, oplog.EINVALID, tt.msgs...)
			switch {
			case tt.index < 0 && e.Index != nil:
				t.Errorf("index %d, want none", *e.Index)
			case tt.index >= 0 && (e.Index == nil || *e.Index != tt.index):
				t.Errorf("index %v, want %d; body %s", e.Index, tt.index, b)
			}
			if got := h.Log.Stats().Records; got != 0 {
				t.Fatalf("records = %d after a refused batch; want nothing written", got)
			}
		})
	}
}

// hiddenLen hides a reader's length so that the request is sent chunked,
// without Content-Length.
type hiddenLen struct{ io.Reader }

func TestServer_Logs_TooLarge(t *testing.T) {
	line := `{"level":"info","text":"` + strings.Repeat("x", 1000) + `"}` + "\n"
	big := strings.Repeat(line, (2<<20)/len(line)+1) // 2 MiB of good lines
	for _, tt := range []struct {
		name string
		max  int64
		body func() io.Reader
	}{
		{"ContentLength", 0, func() io.Reader { return strings.NewReader(big) }},
		{"Chunked", 0, func() io.Reader { return hiddenLen{strings.NewReader(big)} }},
		{"Configured", 4096, func() io.Reader { return strings.NewReader(strings.Repeat(line, 5)) }},
		{"ConfiguredChunked", 4096, func() io.Reader { return hiddenLen{strings.NewReader(strings.Repeat(line, 5))} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := mustServe(t, &harnessOptions{API: api.Options{MaxBodyBytes: tt.max}})
			status, b, err := h.Send(context.Background(), http.MethodPost, "/api/v1/logs", "Bearer "+testToken, tt.body())
			if err != nil {
				t.Fatal(err)
			}
			limit := cmpOr(tt.max, api.DefaultMaxBodyBytes)
			checkError(t, status, b, http.StatusRequestEntityTooLarge, oplog.EINVALID, fmt.Sprintf("over the limit of %d bytes", limit))
			if got := h.Log.Stats().Records; got != 0 {
				t.Errorf("records = %d after 413", got)
			}
			// A body within the limit still goes through.
			small := strings.Repeat(line, 3)
			if status, b = h.Call(http.MethodPost, "/api/v1/logs", small); status != http.StatusOK {
				t.Errorf("body of %d bytes: %d %s", len(small), status, b)
			}
		})
	}
}

func cmpOr(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}

func TestServer_Operations(t *testing.T) {
	h := mustServe(t, nil)
	start := mustCall[record](h, http.MethodPost, "/api/v1/operations",
		`{"tool":"run_lua","arguments":{"code": "print(1)"},"source":"lua-engine","time":"2026-01-02T15:04:05Z"}`, http.StatusCreated)
	line := mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", `{"level":"info","text":"a line"}`, http.StatusOK)

	t.Run("Start", func(t *testing.T) {
		if start.ID == 0 || start.Kind != "op" || start.Status != "pending" || start.IsComplete == nil || *start.IsComplete ||
			start.Tool != "run_lua" || start.Name != "run_lua" || start.Source != "lua-engine" || start.Level != "info" ||
			string(start.Arguments) != `{"code":"print(1)"}` || !start.StartTime.Equal(time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)) ||
			!strings.HasPrefix(start.Text, "run_lua ") {
			t.Errorf("started operation = %+v", start)
		}
	})
	t.Run("Complete", func(t *testing.T) {
		r := mustCall[record](h, http.MethodPost, fmt.Sprintf("/api/v1/operations/%d/complete", start.ID),
			`{"status":"error","error":"attempt to call nil","result":{"line":3},"endTime":"2026-01-02T15:04:06Z"}`, http.StatusOK)
		if r.ID != start.ID || r.Status != "error" || r.IsComplete == nil || !*r.IsComplete || r.Level != "error" ||
			r.Error != "attempt to call nil" || string(r.Result) != `{"line":3}` || !r.EndTime.Equal(time.Date(2026, 1, 2, 15, 4, 6, 0, time.UTC)) {
			t.Errorf("completed operation = %+v", r)
		}
		stored, err := h.Log.Get(context.Background(), start.ID)
		if err != nil || stored.Status != oplog.StatusError {
			t.Errorf("stored = %+v, %v", stored, err)
		}
	})
	t.Run("EmptyBodyIsSuccess", func(t *testing.T) {
		op := mustCall[record](h, http.MethodPost, "/api/v1/operations", `{"tool":"ping"}`, http.StatusCreated)
		r := mustCall[record](h, http.MethodPost, fmt.Sprintf("/api/v1/operations/%d/complete", op.ID), "", http.StatusOK)
		if r.Status != "success" || r.EndTime.IsZero() {
			t.Errorf("completed = %+v", r)
		}
	})
	t.Run("OneShot", func(t *testing.T) {
		r := mustCall[record](h, http.MethodPost, "/api/v1/operations",
			`{"tool":"execute_code","arguments":{"code":"1+1"},"status":"success","result":2,"time":"2026-01-02T15:04:05Z","endTime":"2026-01-02T15:04:05.250Z"}`,
			http.StatusCreated)
		if r.Status != "success" || r.IsComplete == nil || !*r.IsComplete || string(r.Result) != "2" ||
			r.EndTime.Sub(r.StartTime) != 250*time.Millisecond {
			t.Errorf("one-shot operation = %+v", r)
		}
	})
	for _, tt := range []struct {
		name, path, body string
		status           int
		code             string
		msgs             []string
	}{
		{"CompleteTwice", fmt.Sprintf("/api/v1/operations/%d/complete", start.ID), `{}`, http.StatusConflict, oplog.ECONFLICT, []string{"already completed"}},
		{"CompleteUnknown", "/api/v1/operations/9999/complete", `{}`, http.StatusNotFound, oplog.ENOTFOUND, []string{"9999"}},
		{"CompleteLine", fmt.Sprintf("/api/v1/operations/%d/complete", line.IDs[0]), `{}`, http.StatusBadRequest, oplog.EINVALID, []string{"not an operation"}},
		{"CompleteBadID", "/api/v1/operations/abc/complete", `{}`, http.StatusBadRequest, oplog.EINVALID, []string{"id:", `"abc"`}},
		{"CompletePending", "/api/v1/operations/9999/complete", `{"status":"pending"}`, http.StatusBadRequest, oplog.EINVALID, []string{"status"}},
		{"CompleteBadStatus", "/api/v1/operations/9999/complete", `{"status":"meh"}`, http.StatusBadRequest, oplog.EINVALID, []string{"status", `"meh"`, "success"}},
		{"CompleteUnknownField", "/api/v1/operations/9999/complete", `{"sttus":"ok"}`, http.StatusBadRequest, oplog.EINVALID, []string{`unknown field "sttus"`}},
		{"StartNoTool", "/api/v1/operations", `{"arguments":{}}`, http.StatusBadRequest, oplog.EINVALID, []string{"tool: missing"}},
		{"StartUnknownField", "/api/v1/operations", `{"tool":"x","level":"info"}`, http.StatusBadRequest, oplog.EINVALID, []string{`unknown field "level"`}},
		{"StartNotObject", "/api/v1/operations", `[]`, http.StatusBadRequest, oplog.EINVALID, []string{"expected a JSON object"}},
		{"StartPendingWithResult", "/api/v1/operations", `{"tool":"x","result":1}`, http.StatusBadRequest, oplog.EINVALID, []string{"pending"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := h.Log.Stats().Records
			status, b := h.Call(http.MethodPost, tt.path, tt.body)
			if e := checkError(t, status, b, tt.status, tt.code, tt.msgs...); e.Index != nil {
				t.Errorf("index %d in a single operation's error", *e.Index)
			}
			if after := h.Log.Stats().Records; after != before {
				t.Errorf("records %d -> %d after a refused request", before, after)
			}
		})
	}
}

func TestServer_Records_Get(t *testing.T) {
	h := mustServe(t, nil)
	a := mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", `{"level":"info","name":"n","text":"hello","data":{"k":"v"}}`, http.StatusOK)
	t.Run("OK", func(t *testing.T) {
		r := mustCall[record](h, http.MethodGet, fmt.Sprintf("/api/v1/records/%d", a.IDs[0]), "", http.StatusOK)
		if r.ID != a.IDs[0] || r.Kind != "line" || r.Text != "hello" || r.Name != "n" || string(r.Data) != `{"k":"v"}` || r.IsComplete != nil {
			t.Errorf("record = %+v", r)
		}
	})
	for _, tt := range []struct {
		name, id string
		status   int
		code     string
		msg      string
	}{
		{"NotFound", "99", http.StatusNotFound, oplog.ENOTFOUND, "99"},
		{"NotANumber", "abc", http.StatusBadRequest, oplog.EINVALID, "id:"},
		{"Zero", "0", http.StatusBadRequest, oplog.EINVALID, "id:"},
		{"Negative", "-1", http.StatusBadRequest, oplog.EINVALID, "id:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, b := h.Call(http.MethodGet, "/api/v1/records/"+tt.id, "")
			checkError(t, status, b, tt.status, tt.code, tt.msg)
		})
	}
}

func TestServer_Records_List(t *testing.T) {
	h := mustServe(t, nil)
	mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", `[
		{"time":"2026-01-01T10:00:00Z","level":"debug","name":"A","source":"s1","text":"1"},
		{"time":"2026-01-01T11:00:00Z","level":"info","name":"B","source":"s1","text":"2"},
		{"time":"2026-01-01T12:00:00Z","level":"warn","name":"A","source":"s2","text":"3"},
		{"time":"2026-01-01T13:00:00Z","level":"error","name":"B","source":"s2","text":"4"}]`, http.StatusOK)
	op := mustCall[record](h, http.MethodPost, "/api/v1/operations", `{"tool":"T","text":"5","time":"2026-01-01T14:00:00Z"}`, http.StatusCreated)
	for _, tt := range []struct {
		name, query string
		want        string
		total       int64
		more        bool
	}{
		{"Default", "", "5,4,3,2,1", 5, false},
		{"Count", "?count=2", "5,4", 5, true},
		{"Offset", "?count=2&offset=2", "3,2", 5, true},
		{"Before", fmt.Sprintf("?before=%d", op.ID), "4,3,2,1", 5, false},
		{"Level", "?level=warning", "4,3", 2, false}, // the pending op is at info
		{"Name", "?name=A", "3,1", 2, false},
		{"KindLine", "?kind=line", "4,3,2,1", 4, false},
		{"KindOp", "?kind=op", "5", 1, false},
		{"KindAny", "?kind=any", "5,4,3,2,1", 5, false},
		{"Source", "?source=s2", "4,3", 2, false},
		{"Since", "?since=2026-01-01T12:00:00Z", "5,4,3", 3, false},
		{"Until", "?until=2026-01-01T12:00:00Z", "2,1", 2, false},
		{"UntilUnixMs", fmt.Sprintf("?until=%d", time.Date(2026, 1, 1, 11, 30, 0, 0, time.UTC).UnixMilli()), "2,1", 2, false},
		{"Combined", "?level=info&source=s1", "2", 1, false},
		{"Nothing", "?name=nobody", "", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, b := h.Call(http.MethodGet, "/api/v1/records"+tt.query, "")
			if status != http.StatusOK {
				t.Fatalf("status %d: %s", status, b)
			}
			p := mustDecode[pageAnswer](t, b)
			if got := texts(p.Records); got != tt.want {
				t.Errorf("records %q, want %q", got, tt.want)
			}
			if p.More != tt.more {
				t.Errorf("more = %v, want %v", p.More, tt.more)
			}
			if p.Total != tt.total {
				t.Errorf("total = %d, want %d", p.Total, tt.total)
			}
			if p.Records == nil || !bytes.Contains(b, []byte(`"records":[`)) {
				t.Errorf("records is not an array: %s", b)
			}
		})
	}
}

func TestServer_BadParams(t *testing.T) {
	h := mustServe(t, nil)
	for _, tt := range []struct {
		path string
		msgs []string
	}{
		{"/api/v1/records?count=abc", []string{"count:", `"abc"`, "whole number"}},
		{"/api/v1/records?count=-1", []string{"count:"}},
		{"/api/v1/records?offset=x", []string{"offset:"}},
		{"/api/v1/records?before=-3", []string{"before:"}},
		{"/api/v1/records?level=loud", []string{"level:", `"loud"`, "debug, info, warn, error or fatal"}},
		{"/api/v1/records?kind=bogus", []string{"kind:", `"bogus"`, "line, op, marker or any"}},
		{"/api/v1/records?since=soonish", []string{"since:", "RFC 3339"}},
		{"/api/v1/records?until=x", []string{"until:"}},
		{"/api/v1/records?since=2026-01-02&until=2026-01-01", []string{"until:"}},
		{"/api/v1/tail?sinceId=-1", []string{"sinceId:", `"-1"`}},
		{"/api/v1/tail?sinceId=abc", []string{"sinceId:"}},
		{"/api/v1/tail?revision=x", []string{"revision:"}},
		{"/api/v1/tail?limit=-5", []string{"limit:"}},
		{"/api/v1/tail?waitMs=soon", []string{"waitMs:"}},
		{"/api/v1/tail?level=LOUD", []string{"level:", "warn"}},
		{"/api/v1/tail?kind=x", []string{"kind:"}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			status, b := h.Call(http.MethodGet, tt.path, "")
			checkError(t, status, b, http.StatusBadRequest, oplog.EINVALID, tt.msgs...)
		})
	}
}

func TestServer_Tail(t *testing.T) {
	h := mustServe(t, nil)
	mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs",
		`[{"level":"info","text":"1"},{"level":"warn","text":"2","name":"N"},{"level":"info","text":"3","source":"S"}]`, http.StatusOK)
	mustCall[record](h, http.MethodPost, "/api/v1/operations", `{"tool":"T","text":"op"}`, http.StatusCreated)
	mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", `[{"level":"error","text":"4"},{"level":"info","text":"5"}]`, http.StatusOK)
	st := h.Log.Stats()
	get := func(t *testing.T, query string) tailAnswer {
		t.Helper()
		return mustCall[tailAnswer](h, http.MethodGet, "/api/v1/tail"+query, "", http.StatusOK)
	}

	t.Run("Newest", func(t *testing.T) {
		a := get(t, "?limit=3")
		if texts(a.Lines) != "3,4,5" || a.LastID != st.LastID || a.Revision != st.Revision || a.Reset || a.More {
			t.Errorf("tail = %+v", a)
		}
	})
	t.Run("Paging", func(t *testing.T) {
		var got []string
		since := uint64(0)
		for i := 0; ; i++ {
			a := get(t, fmt.Sprintf("?sinceId=%d&limit=2&revision=%d", since, st.Revision))
			if i > 10 || a.Reset {
				t.Fatalf("paging does not end: %+v", a)
			}
			got = append(got, texts(a.Lines))
			since = a.LastID
			if !a.More {
				break
			}
		}
		if strings.Join(got, ";") != "1,2;3,4;5" || since != st.LastID {
			t.Errorf("pages %q ending at %d; want 1,2;3,4;5 ending at %d", got, since, st.LastID)
		}
	})
	t.Run("KindAny", func(t *testing.T) {
		if a := get(t, "?sinceId=0&kind=any"); texts(a.Lines) != "1,2,3,op,4,5" {
			t.Errorf("kind=any: %q", texts(a.Lines))
		}
	})
	t.Run("Filters", func(t *testing.T) {
		for q, want := range map[string]string{"&level=warn": "2,4", "&name=N": "2", "&source=S": "3"} {
			if a := get(t, "?sinceId=0"+q); texts(a.Lines) != want {
				t.Errorf("%s: %q, want %q", q, texts(a.Lines), want)
			}
		}
	})
	t.Run("Empty", func(t *testing.T) {
		status, b := h.Call(http.MethodGet, fmt.Sprintf("/api/v1/tail?sinceId=%d", st.LastID), "")
		if status != http.StatusOK || !bytes.Contains(b, []byte(`"lines":[]`)) {
			t.Errorf("empty tail: %d %s; want lines []", status, b)
		}
	})
	t.Run("ResetPastNewest", func(t *testing.T) {
		a := get(t, "?sinceId=1000")
		if !a.Reset || texts(a.Lines) != "1,2,3,4,5" || a.LastID != st.LastID {
			t.Errorf("tail past the newest = %+v", a)
		}
	})
	t.Run("ResetOtherRevision", func(t *testing.T) {
		a := get(t, fmt.Sprintf("?sinceId=3&revision=%d", st.Revision+2))
		if !a.Reset || texts(a.Lines) != "1,2,3,4,5" {
			t.Errorf("tail from another revision = %+v", a)
		}
	})
}

func TestServer_Tail_Dropped(t *testing.T) {
	h := mustServe(t, &harnessOptions{Store: &store.Options{MaxRecords: 5}})
	mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", strings.Repeat(`{"level":"info","text":"x"}`+"\n", 20), http.StatusOK)
	logtest.Eventually(t, 10*time.Second, "retention", func() bool { return h.Log.Stats().Records <= 5 })
	a := mustCall[tailAnswer](h, http.MethodGet, "/api/v1/tail?sinceId=0", "", http.StatusOK)
	if a.Dropped != 15 || len(a.Lines) != 5 {
		t.Errorf("dropped = %d with %d lines, want 15 and 5", a.Dropped, len(a.Lines))
	}
}

func TestServer_Tail_Wait(t *testing.T) {
	arrived := make(chan struct{}, 1)
	h := mustServe(t, &harnessOptions{Wrap: observe("/api/v1/tail", arrived, nil)})
	a := mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", `{"level":"info","text":"before"}`, http.StatusOK)

	type answer struct {
		status int
		body   []byte
		err    error
	}
	res := make(chan answer, 1)
	go func() {
		status, b, err := h.Send(context.Background(), http.MethodGet,
			fmt.Sprintf("/api/v1/tail?sinceId=%d&waitMs=10000", a.LastID), "Bearer "+testToken, nil)
		res <- answer{status, b, err}
	}()
	within(t, arrived, 10*time.Second, "the tail request")
	mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", `{"level":"info","text":"wake"}`, http.StatusOK)
	select {
	case r := <-res:
		if r.err != nil || r.status != http.StatusOK {
			t.Fatalf("waiting tail: %d %s %v", r.status, r.body, r.err)
		}
		if got := texts(mustDecode[tailAnswer](t, r.body).Lines); got != "wake" {
			t.Errorf("waiting tail returned %q, want the appended line", got)
		}
	case <-time.After(8 * time.Second): // shorter than waitMs: the line, not the timeout, must end the wait
		t.Fatal("the waiting tail did not return after a line was appended")
	}
}

func TestServer_Tail_WaitTimesOut(t *testing.T) {
	h := mustServe(t, nil)
	begin := time.Now()
	a := mustCall[tailAnswer](h, http.MethodGet, "/api/v1/tail?sinceId=0&waitMs=300", "", http.StatusOK)
	if len(a.Lines) != 0 || a.Reset {
		t.Errorf("tail = %+v", a)
	}
	if d := time.Since(begin); d < 300*time.Millisecond {
		t.Errorf("a tail with waitMs=300 and nothing to return answered after %s", d)
	}
}

func TestServer_Tail_ClientGone(t *testing.T) {
	arrived, done := make(chan struct{}, 1), make(chan struct{}, 1)
	h := mustServe(t, &harnessOptions{Wrap: observe("/api/v1/tail", arrived, done)})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, _, err := h.Send(ctx, http.MethodGet, "/api/v1/tail?sinceId=0&waitMs=30000", "Bearer "+testToken, nil)
		errc <- err
	}()
	within(t, arrived, 10*time.Second, "the tail request")
	cancel()
	within(t, done, 10*time.Second, "the handler after the client went away") // waitMs is 30 s
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("client error = %v, want context.Canceled", err)
	}
}

func TestServer_Shutdown(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	s, err := api.New(l, &api.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	arrived := make(chan struct{}, 1)
	s.Echo().Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			arrived <- struct{}{}
			return next(c)
		}
	})
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()

	c := client.NewClient("http://"+ln.Addr().String(), testToken)
	type answer struct {
		tail oplog.Tail
		err  error
	}
	res := make(chan answer, 1)
	go func() {
		tail, err := c.Tail(context.Background(), oplog.TailQuery{HasSince: true, Wait: 30 * time.Second})
		res <- answer{tail, err}
	}()
	within(t, arrived, 10*time.Second, "the tail request")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // waitMs is 30 s
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v (a long poll held it up)", err)
	}
	if r := <-res; r.err != nil || len(r.tail.Lines) != 0 || r.tail.Revision != l.Stats().Revision {
		t.Errorf("long poll ended by Shutdown: %+v, %v; want an empty answer", r.tail, r.err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve = %v, want http.ErrServerClosed", err)
	}
}

func TestServer_Info(t *testing.T) {
	h := mustServe(t, &harnessOptions{API: api.Options{Options: mcptools.Options{Version: "v9", FileSize: func() int64 { return 12345 },
		FileFree: func() int64 { return 4096 }}}})
	mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs",
		`[{"level":"info","text":"a"},{"level":"info","text":"b"},{"level":"error","text":"c"}]`, http.StatusOK)
	mustCall[record](h, http.MethodPost, "/api/v1/operations", `{"tool":"T"}`, http.StatusCreated)
	st := h.Log.Stats()
	type info struct {
		Revision, GenStart, FirstID, LastID, Records, Bytes, Lines, Ops, Trimmed, TrimmedThrough uint64
		Levels                                                                                   map[string]uint64
		Counts                                                                                   map[string]map[string]uint64
		FileBytes, FileFreeBytes                                                                 int64
		Version                                                                                  string
	}
	got := mustCall[info](h, http.MethodGet, "/api/v1/info", "", http.StatusOK)
	want := info{Revision: st.Revision, GenStart: 1, FirstID: 1, LastID: 4, Records: 4, Bytes: st.Bytes, Lines: 3, Ops: 1,
		Levels: map[string]uint64{"debug": 0, "info": 3, "warn": 0, "error": 1, "fatal": 0},
		Counts: map[string]map[string]uint64{"line": {"debug": 0, "info": 2, "warn": 0, "error": 1, "fatal": 0}, "op": {"debug": 0, "info": 1, "warn": 0, "error": 0, "fatal": 0},
			"marker": {"debug": 0, "info": 0, "warn": 0, "error": 0, "fatal": 0}},
		FileBytes: 12345, FileFreeBytes: 4096, Version: "v9"}
	if fmt.Sprint(got) != fmt.Sprint(want) || st.Bytes == 0 || st.Revision == 0 {
		t.Errorf("info = %+v\nwant   %+v", got, want)
	}
}

func TestServer_RotateToken(t *testing.T) {
	next := strings.Repeat("fedcba9876543210", 4)
	var fail error
	h := mustServe(t, &harnessOptions{API: api.Options{RotateToken: func() (string, error) { return next, fail }}})
	auth := func(token string) int {
		status, _, err := h.Send(context.Background(), http.MethodGet, "/api/v1/info", "Bearer "+token, nil)
		if err != nil {
			t.Fatal(err)
		}
		return status
	}

	fail = errors.New("disk full")
	status, b := h.Call(http.MethodPost, "/api/v1/token/rotate", "")
	checkError(t, status, b, http.StatusInternalServerError, oplog.EINTERNAL)
	if auth(testToken) != http.StatusOK {
		t.Fatal("a failed rotation locked out the old token")
	}

	fail = nil
	got := mustCall[map[string]string](h, http.MethodPost, "/api/v1/token/rotate", "", http.StatusOK)
	if got["token"] != next {
		t.Fatalf("rotate answered %v, want token %s", got, next)
	}
	if s := auth(testToken); s != http.StatusUnauthorized {
		t.Errorf("old token after rotation: %d, want 401", s)
	}
	if s := auth(next); s != http.StatusOK {
		t.Errorf("new token after rotation: %d, want 200", s)
	}

	h.Srv.SetToken(testToken)
	if auth(testToken) != http.StatusOK || auth(next) != http.StatusUnauthorized {
		t.Error("SetToken did not swap the token")
	}
	h.Srv.SetToken("")
	if s := auth(""); s != http.StatusUnauthorized {
		t.Errorf("empty token set and sent: %d, want 401", s)
	}
}

func TestServer_RotateToken_Disabled(t *testing.T) {
	h := mustServe(t, nil)
	status, b := h.Call(http.MethodPost, "/api/v1/token/rotate", "")
	checkError(t, status, b, http.StatusNotFound, oplog.ENOTFOUND)
}

func TestServer_EchoErrors(t *testing.T) {
	h := mustServe(t, nil)
	for _, tt := range []struct {
		name, method, path string
		status             int
		code               string
	}{
		{"NoRoute", http.MethodGet, "/nowhere", http.StatusNotFound, oplog.ENOTFOUND},
		{"NoAPIRoute", http.MethodGet, "/api/v1/nowhere", http.StatusNotFound, oplog.ENOTFOUND},
		{"MethodNotAllowed", http.MethodPost, "/healthz", http.StatusMethodNotAllowed, oplog.EINVALID},
		// Echo answers a wrong method under a group with middleware as 404.
		{"APIMethod", http.MethodDelete, "/api/v1/records/1", http.StatusNotFound, oplog.ENOTFOUND},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, b := h.Call(tt.method, tt.path, "")
			if e := checkError(t, status, b, tt.status, tt.code); e.Message == "" {
				t.Errorf("no message: %s", b)
			}
		})
	}
}
