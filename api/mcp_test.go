package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

func TestMCP_ToolsList(t *testing.T) {
	m := mustServeMCP(t)
	type hints struct{ readOnly, destructive, idempotent bool }
	want := map[string]hints{
		"console_tail": {true, false, true}, "get_logs": {true, false, true}, "get_logs_by_name": {true, false, true},
		"get_log_by_name": {true, false, true}, "get_log_details": {true, false, true}, "get_result": {true, false, true},
		"list_log_names": {true, false, true}, "append_log": {false, false, false}, "clear_logs": {false, true, false},
		"store_info": {true, false, true}, "ping": {true, false, true}, "help": {true, false, true}, "find_crashes": {true, false, true},
		"search_logs": {true, false, true}, "replay_operation": {false, true, false}, "log_stats": {true, false, true},
		"compare_runs": {true, false, true},
	}
	if len(m.tools) != len(want) {
		t.Errorf("%d tools, want %d", len(m.tools), len(want))
	}
	for name, w := range want {
		tool := m.tools[name]
		if tool == nil {
			t.Errorf("tool %s missing", name)
			continue
		}
		if tool.OutputSchema == nil || tool.InputSchema == nil || tool.Description == "" {
			t.Errorf("%s: input schema %v, output schema %v, description %q", name, tool.InputSchema != nil, tool.OutputSchema != nil, tool.Description)
		}
		a := tool.Annotations
		// destructiveHint and idempotentHint mean something only when
		// readOnlyHint is false: a read-only tool leaves them out.
		if a == nil || a.OpenWorldHint == nil || !a.ReadOnlyHint && a.DestructiveHint == nil || a.ReadOnlyHint && (a.DestructiveHint != nil || a.IdempotentHint) {
			t.Errorf("%s: annotations %+v, want every hint that means something stated", name, a)
			continue
		}
		destructive := a.DestructiveHint != nil && *a.DestructiveHint
		// Only replay_operation reaches outside the log (to a game).
		if got := (hints{a.ReadOnlyHint, destructive, a.IdempotentHint || a.ReadOnlyHint}); got != w || *a.OpenWorldHint != (name == "replay_operation") {
			t.Errorf("%s: hints %+v openWorld %v, want %+v", name, got, *a.OpenWorldHint, w)
		}
		// Every argument is described.
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(b, &s)
		for arg, p := range s.Properties {
			if p.Description == "" {
				t.Errorf("%s: argument %s has no description", name, arg)
			}
		}
	}
	// Defaults are part of the schema.
	b, _ := json.Marshal(m.tools["console_tail"].InputSchema)
	if !strings.Contains(string(b), `"default":200`) || !strings.Contains(string(b), `"sinceId"`) {
		t.Errorf("console_tail input schema lacks limit's default or sinceId: %s", b)
	}
}

func TestMCP_ConsoleTail(t *testing.T) {
	m := mustServeMCP(t)
	recs := logtest.MustAppend(t, m.Log,
		oplog.Record{Level: oplog.LevelInfo, Name: "A", Text: "a1"},
		oplog.Record{Level: oplog.LevelError, Name: "B", Text: "b1", Stack: "at Foo()"},
		oplog.Record{Tool: "run_lua", Arguments: json.RawMessage(`{"code":"x"}`)}, // an op: never in the console
		oplog.Record{Level: oplog.LevelWarn, Name: "A", Source: "editor", Text: strings.Repeat("é", 600)},
	)

	t.Run("Newest", func(t *testing.T) {
		tl := call[tail](t, m, "console_tail", map[string]any{})
		if len(tl.Lines) != 3 || tl.LastID != recs[3].ID || tl.Revision == 0 || tl.Reset || tl.More {
			t.Fatalf("tail = %+v", tl)
		}
		if !tl.Lines[1].HasStack || tl.Lines[0].HasStack {
			t.Errorf("hasStack: %+v", tl.Lines)
		}
		long := tl.Lines[2]
		if !long.Truncated || len([]rune(long.Text)) != mcptools.DefaultMaxTextChars || long.Source != "editor" {
			t.Errorf("long line: truncated %v, %d characters, source %q", long.Truncated, len([]rune(long.Text)), long.Source)
		}
		if _, err := time.Parse(time.RFC3339, tl.Lines[0].Time); err != nil || tl.Lines[0].Level != "info" {
			t.Errorf("line 0 = %+v", tl.Lines[0])
		}
	})
	t.Run("SinceIDNumberAndString", func(t *testing.T) {
		for _, since := range []any{recs[0].ID, fmt.Sprint(recs[0].ID)} {
			tl := call[tail](t, m, "console_tail", map[string]any{"sinceId": since})
			if len(tl.Lines) != 2 || tl.Lines[0].Text != "b1" || tl.LastID != recs[3].ID {
				t.Errorf("sinceId %#v: %s lastId %d", since, tl.texts(), tl.LastID)
			}
		}
	})
	t.Run("LimitAndMore", func(t *testing.T) {
		tl := call[tail](t, m, "console_tail", map[string]any{"sinceId": 0, "limit": 1})
		if tl.texts() != "a1" || !tl.More || tl.LastID != recs[0].ID {
			t.Errorf("limit 1: %s more %v lastId %d", tl.texts(), tl.More, tl.LastID)
		}
	})
	t.Run("Filters", func(t *testing.T) {
		tl := call[tail](t, m, "console_tail", map[string]any{"sinceId": 0, "level": "Warning"})
		if len(tl.Lines) != 2 || tl.Lines[0].Text != "b1" {
			t.Errorf("level Warning: %s", tl.texts())
		}
		tl = call[tail](t, m, "console_tail", map[string]any{"sinceId": 0, "name": "A", "source": "default"})
		if tl.texts() != "a1" {
			t.Errorf("name A, source default: %s", tl.texts())
		}
	})
	t.Run("Reset", func(t *testing.T) {
		tl := call[tail](t, m, "console_tail", map[string]any{"sinceId": recs[3].ID + 100})
		if !tl.Reset || len(tl.Lines) != 3 {
			t.Errorf("sinceId past the newest: reset %v, %d lines", tl.Reset, len(tl.Lines))
		}
		tl = call[tail](t, m, "console_tail", map[string]any{"sinceId": recs[1].ID, "revision": "12345"})
		if !tl.Reset || len(tl.Lines) != 3 {
			t.Errorf("another revision: reset %v, %d lines", tl.Reset, len(tl.Lines))
		}
	})
	t.Run("Wait", func(t *testing.T) {
		got := make(chan tail, 1)
		go func() {
			got <- call[tail](t, m, "console_tail", map[string]any{"sinceId": recs[3].ID, "waitMs": 30000})
		}()
		logtest.MustAppend(t, m.Log, oplog.Record{Level: oplog.LevelInfo, Text: "late"})
		select {
		case tl := <-got:
			if tl.texts() != "late" {
				t.Errorf("waited tail = %s", tl.texts())
			}
		case <-time.After(25 * time.Second):
			t.Fatal("the long poll did not answer when a line arrived")
		}
	})
	t.Run("WaitEnds", func(t *testing.T) {
		st := m.Log.Stats()
		tl := call[tail](t, m, "console_tail", map[string]any{"sinceId": st.LastID, "waitMs": 1})
		if len(tl.Lines) != 0 || tl.LastID != st.LastID || tl.Lines == nil {
			t.Errorf("empty wait: %+v", tl)
		}
	})
}

// TestMCP_ConsoleTail_Concurrent pages with sinceId while another goroutine
// ingests: every line arrives exactly once, in order.
func TestMCP_ConsoleTail_Concurrent(t *testing.T) {
	m := mustServeMCP(t)
	const batches, perBatch = 50, 37
	errc := make(chan error, 1)
	go func() {
		for b := range batches {
			if err := m.Log.Append(context.Background(), logtest.Lines(perBatch, fmt.Sprintf("b%d", b))); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	var seen []string
	var since any // omitted at first: a fresh log has nothing older
	since = 0
	deadline := time.Now().Add(60 * time.Second)
	for len(seen) < batches*perBatch {
		if time.Now().After(deadline) {
			t.Fatalf("saw %d of %d lines", len(seen), batches*perBatch)
		}
		tl := call[tail](t, m, "console_tail", map[string]any{"sinceId": since, "limit": 100, "waitMs": 5000, "collapse": false})
		if tl.Reset || tl.Dropped != 0 {
			t.Fatalf("reset %v dropped %d", tl.Reset, tl.Dropped)
		}
		for _, l := range tl.Lines {
			seen = append(seen, l.Text)
		}
		since = fmt.Sprint(tl.LastID) // as the Unity seed would: a string
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	i := 0
	for b := range batches {
		for n := range perBatch {
			if want := fmt.Sprintf("b%d-%d", b, n); seen[i] != want {
				t.Fatalf("line %d = %q, want %q", i, seen[i], want)
			}
			i++
		}
	}
	if len(seen) != batches*perBatch {
		t.Errorf("saw %d lines, want %d", len(seen), batches*perBatch)
	}
}

func TestMCP_GetLogs(t *testing.T) {
	m := mustServeMCP(t)
	old := time.Now().Add(-time.Hour).UTC()
	logtest.MustAppend(t, m.Log,
		oplog.Record{Level: oplog.LevelInfo, Name: "A", Text: "1", Time: old},
		oplog.Record{Level: oplog.LevelError, Name: "B", Text: "2", Stack: "trace", Data: json.RawMessage(`{"scene":"Main"}`)},
		oplog.Record{Level: oplog.LevelWarn, Name: "A", Source: "editor", Text: "3"},
		oplog.Record{Tool: "execute_code", Text: "4", Status: oplog.StatusSuccess, Result: json.RawMessage(`1`)},
	)
	for _, tt := range []struct {
		name  string
		args  map[string]any
		want  string
		total int64
		more  bool
	}{
		{"Default", map[string]any{}, "4,3,2,1", 4, false},
		{"Count", map[string]any{"count": 2}, "4,3", 4, true},
		{"Offset", map[string]any{"count": 2, "offset": 2}, "2,1", 4, false},
		{"Level", map[string]any{"level": "warn"}, "3,2", 2, false},
		{"Name", map[string]any{"name": "A"}, "3,1", 2, false},
		{"KindOp", map[string]any{"kind": "op"}, "4", 1, false},
		{"KindLine", map[string]any{"kind": "line"}, "3,2,1", 3, false},
		{"Source", map[string]any{"source": "editor"}, "3", 1, false},
		{"SinceRelative", map[string]any{"since": "-15m"}, "4,3,2", 3, false},
		{"UntilRFC3339", map[string]any{"until": old.Add(time.Minute).Format(time.RFC3339)}, "1", 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := call[logs](t, m, "get_logs", tt.args)
			if got := summaryTexts(l.Logs); got != tt.want || l.Total != tt.total || l.More != tt.more {
				t.Errorf("get_logs(%v) = %s total %d more %v, want %s total %d more %v", tt.args, got, l.Total, l.More, tt.want, tt.total, tt.more)
			}
		})
	}
	t.Run("Summaries", func(t *testing.T) {
		l := call[logs](t, m, "get_logs", map[string]any{})
		op, line := l.Logs[0], l.Logs[2]
		if op.Kind != "op" || op.Tool != "execute_code" || op.Status != "success" || op.IsComplete == nil || !*op.IsComplete {
			t.Errorf("op summary = %+v", op)
		}
		if !line.HasStack || !line.HasData || line.Kind != "line" || line.Level != "error" {
			t.Errorf("line summary = %+v", line)
		}
		_, b := m.callRaw(t, "get_logs", map[string]any{})
		if strings.Contains(string(b), "trace") || strings.Contains(string(b), "Main") {
			t.Errorf("a list carries a stack or data: %s", b)
		}
	})
}

func TestMCP_ByName(t *testing.T) {
	m := mustServeMCP(t)
	logtest.MustAppend(t, m.Log,
		oplog.Record{Level: oplog.LevelInfo, Name: "test-log", Text: "1"},
		oplog.Record{Level: oplog.LevelInfo, Name: "other", Text: "2"},
		oplog.Record{Level: oplog.LevelError, Name: "test-log", Text: "3"},
	)
	a := call[struct {
		LogName string    `json:"log_name"`
		Logs    []summary `json:"logs"`
		Total   int64     `json:"total"`
	}](t, m, "get_logs_by_name", map[string]any{"log_name": "test-log", "limit": 10})
	if a.LogName != "test-log" || summaryTexts(a.Logs) != "3,1" || a.Total != 2 {
		t.Errorf("get_logs_by_name = %+v", a)
	}
	b := call[struct {
		Name    string    `json:"name"`
		Entries []summary `json:"entries"`
		More    bool      `json:"more"`
	}](t, m, "get_log_by_name", map[string]any{"log_name": "test-log", "limit": 1})
	if b.Name != "test-log" || summaryTexts(b.Entries) != "3" || !b.More {
		t.Errorf("get_log_by_name = %+v", b)
	}
}

type details struct {
	ID         uint64          `json:"id"`
	Kind       string          `json:"kind"`
	Text       string          `json:"text"`
	Stack      string          `json:"stack"`
	Data       json.RawMessage `json:"data"`
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	Status     string          `json:"status"`
	IsComplete *bool           `json:"isComplete"`
	Result     json.RawMessage `json:"result"`
	Error      string          `json:"error"`
	StartTime  string          `json:"startTime"`
	EndTime    string          `json:"endTime"`
	DurationMs *int64          `json:"durationMs"`
	Prev       uint64          `json:"prev"`
	Next       uint64          `json:"next"`
}

func TestMCP_GetLogDetails(t *testing.T) {
	m := mustServeMCP(t)
	start := time.Now().Add(-time.Second).UTC()
	recs := logtest.MustAppend(t, m.Log,
		oplog.Record{Level: oplog.LevelError, Name: "Physics", Text: strings.Repeat("x", 900), Stack: "at Rigidbody.Step ()", Data: json.RawMessage(`{"scene":"Main"}`)},
		oplog.Record{Tool: "execute_code", Arguments: json.RawMessage(`{"code":"return 1;"}`), StartTime: start, Time: start,
			Status: oplog.StatusError, Error: "boom", EndTime: start.Add(150 * time.Millisecond)},
	)
	d := call[details](t, m, "get_log_details", map[string]any{"log_id": recs[0].ID})
	if d.Kind != "line" || len(d.Text) != 900 || d.Stack != "at Rigidbody.Step ()" || string(d.Data) != `{"scene":"Main"}` || d.Prev != 0 || d.Next != recs[1].ID {
		t.Errorf("line details = %+v", d)
	}
	d = call[details](t, m, "get_log_details", map[string]any{"logId": fmt.Sprint(recs[1].ID)})
	if d.Kind != "op" || d.Tool != "execute_code" || string(d.Arguments) != `{"code":"return 1;"}` || d.Status != "error" ||
		d.Error != "boom" || d.DurationMs == nil || *d.DurationMs != 150 || d.Prev != recs[0].ID || d.Next != 0 {
		t.Errorf("op details = %+v", d)
	}
	m.callError(t, "get_log_details", map[string]any{"log_id": recs[1].ID + 10}, "not found", fmt.Sprint(recs[1].ID+10))
}

func TestMCP_GetResult(t *testing.T) {
	m := mustServeMCP(t)
	recs := logtest.MustAppend(t, m.Log,
		oplog.Record{Tool: "execute_code", Status: oplog.StatusSuccess, Result: json.RawMessage(`{"answer":42}`)},
		oplog.Record{Tool: "query"},
		oplog.Record{Level: oplog.LevelInfo, Text: "a line"},
	)
	type result struct {
		ID         uint64          `json:"id"`
		Status     string          `json:"status"`
		IsComplete bool            `json:"isComplete"`
		Result     json.RawMessage `json:"result"`
		StartTime  string          `json:"startTime"`
		EndTime    string          `json:"endTime"`
		DurationMs *int64          `json:"durationMs"`
	}
	r := call[result](t, m, "get_result", map[string]any{"logId": fmt.Sprint(recs[0].ID)})
	if r.Status != "success" || !r.IsComplete || string(r.Result) != `{"answer":42}` || r.EndTime == "" || r.DurationMs == nil {
		t.Errorf("complete op = %+v", r)
	}
	r = call[result](t, m, "get_result", map[string]any{"log_id": recs[1].ID, "waitMs": 1})
	if r.Status != "pending" || r.IsComplete || r.EndTime != "" {
		t.Errorf("pending op = %+v", r)
	}
	got := make(chan result, 1)
	go func() { got <- call[result](t, m, "get_result", map[string]any{"log_id": recs[1].ID, "waitMs": 30000}) }()
	if _, err := m.Log.Complete(context.Background(), recs[1].ID, oplog.Completion{Result: json.RawMessage(`"done"`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r.Status != "success" || string(r.Result) != `"done"` {
			t.Errorf("waited result = %+v", r)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("get_result with waitMs did not answer when the operation completed")
	}
	m.callError(t, "get_result", map[string]any{"log_id": recs[2].ID}, "log_id", "not an operation")
}

func TestMCP_ListLogNames(t *testing.T) {
	m := mustServeMCP(t)
	logtest.MustAppend(t, m.Log,
		oplog.Record{Level: oplog.LevelInfo, Name: "A", Text: "1"},
		oplog.Record{Level: oplog.LevelError, Name: "A", Text: "2"},
		oplog.Record{Level: oplog.LevelInfo, Name: "B", Source: "editor", Text: "3"},
	)
	type names struct {
		Names []struct {
			Name     string            `json:"name"`
			Source   string            `json:"source"`
			Total    uint64            `json:"total"`
			Counts   map[string]uint64 `json:"counts"`
			LastSeen string            `json:"lastSeen"`
		} `json:"names"`
		Total int  `json:"total"`
		More  bool `json:"more"`
	}
	n := call[names](t, m, "list_log_names", map[string]any{})
	if n.Total != 2 || len(n.Names) != 2 {
		t.Fatalf("list_log_names = %+v", n)
	}
	a := n.Names[slices.IndexFunc(n.Names, func(x struct {
		Name     string            `json:"name"`
		Source   string            `json:"source"`
		Total    uint64            `json:"total"`
		Counts   map[string]uint64 `json:"counts"`
		LastSeen string            `json:"lastSeen"`
	}) bool {
		return x.Name == "A"
	})]
	if a.Total != 2 || a.Counts["info"] != 1 || a.Counts["error"] != 1 || a.LastSeen == "" {
		t.Errorf("A = %+v", a)
	}
	n = call[names](t, m, "list_log_names", map[string]any{"source": "editor"})
	if len(n.Names) != 1 || n.Names[0].Name != "B" {
		t.Errorf("source editor: %+v", n)
	}
	n = call[names](t, m, "list_log_names", map[string]any{"limit": 1})
	if len(n.Names) != 1 || !n.More || n.Total != 2 {
		t.Errorf("limit 1: %+v", n)
	}
}

func TestMCP_AppendAndClear(t *testing.T) {
	m := mustServeMCP(t)
	a := call[struct {
		ID uint64 `json:"id"`
	}](t, m, "append_log", map[string]any{"text": "marker", "name": "agent", "data": map[string]any{"step": 1}})
	r, err := m.Log.Get(context.Background(), a.ID)
	if err != nil || r.Text != "marker" || r.Level != oplog.LevelInfo || r.Source != "agent" || string(r.Data) != `{"step":1}` {
		t.Fatalf("appended %+v, %v", r, err)
	}
	before := call[tail](t, m, "console_tail", map[string]any{})

	m.callError(t, "clear_logs", map[string]any{}, "confirm")
	m.callError(t, "clear_logs", map[string]any{"confirm": false}, "confirm", "nothing was deleted")
	if m.Log.Stats().Records != 1 {
		t.Fatal("clear_logs without confirm deleted records")
	}
	c := call[struct {
		Deleted  uint64 `json:"deleted"`
		Revision uint64 `json:"revision"`
	}](t, m, "clear_logs", map[string]any{"confirm": true})
	if c.Deleted != 1 || c.Revision == before.Revision || m.Log.Stats().Records != 0 {
		t.Errorf("clear_logs = %+v, %d records left", c, m.Log.Stats().Records)
	}
	logtest.MustAppend(t, m.Log, oplog.Record{Level: oplog.LevelInfo, Text: "after"})
	tl := call[tail](t, m, "console_tail", map[string]any{"sinceId": before.LastID, "revision": before.Revision})
	if !tl.Reset || tl.texts() != "after" || tl.Revision != c.Revision {
		t.Errorf("tail after clear = %+v", tl)
	}
}

func TestMCP_InfoPingHelp(t *testing.T) {
	h := mustServe(t, &harnessOptions{API: api.Options{Options: mcptools.Options{Version: "v9", FileSize: func() int64 { return 4096 },
		FileFree: func() int64 { return 2048 }, Retention: &mcptools.Retention{MaxRecords: 10, MaxAge: time.Hour}}}})
	m := mustConnect(t, h, nil)
	logtest.MustAppend(t, m.Log, oplog.Record{Level: oplog.LevelError, Text: "x"}, oplog.Record{Tool: "run_lua"})
	info := call[struct {
		Records   uint64                       `json:"records"`
		Lines     uint64                       `json:"lines"`
		Ops       uint64                       `json:"ops"`
		Levels    map[string]uint64            `json:"levels"`
		Counts    map[string]map[string]uint64 `json:"counts"`
		LastID    uint64                       `json:"lastId"`
		Revision  uint64                       `json:"revision"`
		FileBytes int64                        `json:"fileBytes"`
		FileFree  int64                        `json:"fileFreeBytes"`
		Version   string                       `json:"version"`
		Retention struct {
			MaxRecords uint64 `json:"maxRecords"`
			MaxAge     string `json:"maxAge"`
		} `json:"retention"`
	}](t, m, "store_info", nil)
	if info.Records != 2 || info.Lines != 1 || info.Ops != 1 || info.Levels["error"] != 1 || info.Counts["op"]["info"] != 1 ||
		info.FileBytes != 4096 || info.FileFree != 2048 || info.Version != "v9" || info.Retention.MaxRecords != 10 || info.Retention.MaxAge != "1h0m0s" || info.Revision == 0 {
		t.Errorf("store_info = %+v", info)
	}
	p := call[struct {
		Status  string `json:"status"`
		Version string `json:"version"`
	}](t, m, "ping", map[string]any{})
	if p.Status != "ok" || p.Version != "v9" {
		t.Errorf("ping = %+v", p)
	}
	type help struct {
		Tools []struct {
			Name      string         `json:"name"`
			Example   map[string]any `json:"example"`
			Arguments []struct {
				Name     string          `json:"name"`
				Type     string          `json:"type"`
				Default  json.RawMessage `json:"default"`
				Required bool            `json:"required"`
			} `json:"arguments"`
		} `json:"tools"`
	}
	all := call[help](t, m, "help", map[string]any{})
	if len(all.Tools) != len(m.tools) {
		t.Errorf("help lists %d tools, want %d", len(all.Tools), len(m.tools))
	}
	one := call[help](t, m, "help", map[string]any{"tool": "console_tail"})
	if len(one.Tools) != 1 || one.Tools[0].Example == nil || len(one.Tools[0].Arguments) == 0 {
		t.Fatalf("help console_tail = %+v", one)
	}
	for _, a := range one.Tools[0].Arguments {
		if a.Name == "limit" && (string(a.Default) != "200" || a.Type != "integer") {
			t.Errorf("help: limit = %+v", a)
		}
	}
	m.callError(t, "help", map[string]any{"tool": "nope"}, "tool", "console_tail")
}

// TestMCP_InvalidArguments: a bad argument is a tool result with isError
// that names the argument (and what it accepts), never a JSON-RPC error.
func TestMCP_InvalidArguments(t *testing.T) {
	m := mustServeMCP(t)
	for _, tt := range []struct {
		tool  string
		args  map[string]any
		wants []string
	}{
		{"console_tail", map[string]any{"sinceId": "abc"}, []string{"sinceId", "whole number"}},
		{"console_tail", map[string]any{"sinceId": -1}, []string{"sinceId"}},
		{"console_tail", map[string]any{"sinceId": 1.5}, []string{"sinceId"}},
		{"console_tail", map[string]any{"level": "loud"}, []string{"level", "debug, info, warn, error or fatal"}},
		{"console_tail", map[string]any{"limit": -5}, []string{"limit"}},
		{"console_tail", map[string]any{"limit": "ten"}, []string{"limit"}},
		{"console_tail", map[string]any{"waitMs": -1}, []string{"waitMs"}},
		{"console_tail", map[string]any{"revision": "x"}, []string{"revision"}},
		{"console_tail", map[string]any{"sinceID": 5}, []string{"sinceID"}}, // a misspelt name is not ignored
		{"get_logs", map[string]any{"kind": "event"}, []string{"kind", "line, op, marker or any"}},
		{"get_logs", map[string]any{"since": "yesterday-ish"}, []string{"since", "RFC 3339"}},
		{"get_logs", map[string]any{"until": "nope"}, []string{"until"}},
		{"get_logs", map[string]any{"since": "-1m", "until": "-2m"}, []string{"until"}},
		{"get_logs", map[string]any{"count": -1}, []string{"count"}},
		{"get_logs", map[string]any{"offset": "x"}, []string{"offset"}},
		{"get_logs_by_name", map[string]any{}, []string{"log_name"}},
		{"get_log_by_name", map[string]any{"log_name": ""}, []string{"log_name"}},
		{"get_log_details", map[string]any{}, []string{"log_id", "logId"}},
		{"get_log_details", map[string]any{"log_id": 0}, []string{"log_id"}},
		{"get_log_details", map[string]any{"log_id": "bfc24c7f-351f"}, []string{"log_id", "whole number"}},
		{"get_log_details", map[string]any{"log_id": 1, "logId": 2}, []string{"log_id", "logId", "disagree"}},
		{"get_log_details", map[string]any{"logId": true}, []string{"logId"}},
		{"get_result", map[string]any{"logId": "x"}, []string{"logId"}},
		{"get_result", map[string]any{"log_id": 1, "waitMs": "soon"}, []string{"waitMs"}},
		{"append_log", map[string]any{}, []string{"text"}},
		{"append_log", map[string]any{"text": "x", "level": "loud"}, []string{"level", "debug, info"}},
		{"append_log", map[string]any{"text": "x", "data": []int{1}}, []string{"data", "object"}},
		{"append_log", map[string]any{"text": "x", "name": "a\nb"}, []string{"name"}},
		{"clear_logs", map[string]any{"confirm": "yes"}, []string{"confirm"}},
		{"list_log_names", map[string]any{"limit": -1}, []string{"limit"}},
		{"help", map[string]any{"tool": 3}, []string{"tool"}},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			msg := m.callError(t, tt.tool, tt.args, tt.wants...)
			t.Logf("%s(%v): %s", tt.tool, tt.args, msg)
		})
	}
}

func TestMCP_JSONRPC(t *testing.T) {
	m := mustServeMCP(t)
	ctx := context.Background()
	if _, err := m.session.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}}); err == nil ||
		!strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("unknown tool: %v, want a JSON-RPC error naming it", err)
	}
	// Raw JSON-RPC over HTTP: initialize a session, then misbehave in it.
	status, body := rawMCP(m.harness, t, http.MethodPost, "/mcp/"+testToken, "{not json", nil)
	if status != http.StatusBadRequest || !strings.Contains(body, "-32700") {
		t.Errorf("malformed JSON: %d %s, want 400 with -32700", status, body)
	}
	sid := rawSession(t, m.harness, "2025-11-25")
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	status, body = rawMCP(m.harness, t, http.MethodPost, "/mcp/"+testToken, `{"jsonrpc":"2.0","id":7,"method":"no/such/method"}`, hdr)
	if status != http.StatusOK || !strings.Contains(body, "-32601") {
		t.Errorf("unknown method: %d %s, want -32601", status, body)
	}
	status, body = rawMCP(m.harness, t, http.MethodPost, "/mcp/"+testToken, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ping"`, hdr)
	if status != http.StatusBadRequest || !strings.Contains(body, "-32700") {
		t.Errorf("malformed JSON in a session: %d %s, want -32700", status, body)
	}
	// logging/setLevel is answered with {} (the conformance scenario logging-set-level).
	status, body = rawMCP(m.harness, t, http.MethodPost, "/mcp/"+testToken, `{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"info"}}`, hdr)
	if status != http.StatusOK || !strings.Contains(body, `"result":{}`) {
		t.Errorf("logging/setLevel: %d %s", status, body)
	}
}

// rawSession initializes a session with a raw POST and returns its ID.
func rawSession(t *testing.T, h *harness, version string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, mcpURL(h), strings.NewReader(initializeBody(version)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(b.String(), `"protocolVersion":"`+version+`"`) {
		t.Fatalf("initialize %s: %d %s", version, resp.StatusCode, b.String())
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	// The session is usable after notifications/initialized.
	req, _ = http.NewRequest(http.MethodPost, mcpURL(h), strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", version)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return sid
}

func TestMCP_ProtocolVersions(t *testing.T) {
	h := mustServe(t, nil)
	for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) { rawSession(t, h, v) })
	}
}

func TestMCP_Security(t *testing.T) {
	h := mustServe(t, &harnessOptions{API: api.Options{AllowOrigins: []string{"https://tool.example:8443"}}})
	u, _ := url.Parse(h.URL)
	port := u.Port()
	path := "/mcp/" + testToken
	init := initializeBody("2025-11-25")
	for _, tt := range []struct {
		name   string
		path   string
		header map[string]string
		body   string
		want   int
	}{
		{"OK", path, nil, init, http.StatusOK},
		{"WrongToken", "/mcp/" + strings.Repeat("f", 64), nil, init, http.StatusNotFound},
		{"ShortToken", "/mcp/abc", nil, init, http.StatusNotFound},
		{"NoToken", "/mcp/", nil, init, http.StatusNotFound},
		{"NoTokenNoSlash", "/mcp", nil, init, http.StatusNotFound},
		{"ForeignHost", path, map[string]string{"Host": "evil.example.com:" + port}, init, http.StatusForbidden},
		{"ForeignHostAndOrigin", path, map[string]string{"Host": "evil.example.com", "Origin": "http://evil.example.com"}, init, http.StatusForbidden},
		{"ForeignOrigin", path, map[string]string{"Origin": "http://evil.example.com"}, init, http.StatusForbidden},
		{"NullOrigin", path, map[string]string{"Origin": "null"}, init, http.StatusForbidden},
		{"OtherLocalPort", path, map[string]string{"Origin": "http://127.0.0.1:1"}, init, http.StatusForbidden},
		{"SameOrigin", path, map[string]string{"Origin": h.URL}, init, http.StatusOK},
		{"LocalhostSamePort", path, map[string]string{"Host": "localhost:" + port, "Origin": "http://localhost:" + port}, init, http.StatusOK},
		{"LoopbackOriginOnOurPort", path, map[string]string{"Origin": "http://localhost:" + port}, init, http.StatusOK},
		{"IPv6LoopbackHost", path, map[string]string{"Host": "[::1]:" + port}, init, http.StatusOK},
		{"AllowedOrigin", path, map[string]string{"Origin": "https://tool.example:8443"}, init, http.StatusOK},
		{"AllowedOriginsHost", path, map[string]string{"Host": "tool.example:8443", "Origin": "https://tool.example:8443"}, init, http.StatusOK},
		{"TooLarge", path, nil, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 1<<20) + `"}}`, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := rawMCP(h, t, http.MethodPost, tt.path, tt.body, tt.header)
			if status != tt.want {
				t.Errorf("status %d, want %d; body %.300s", status, tt.want, body)
			}
			if status == http.StatusNotFound && strings.Contains(strings.ToLower(body), "token") {
				t.Errorf("404 hints at the token: %s", body)
			}
		})
	}
	t.Run("ExactlyOneMiBPlusOne", func(t *testing.T) {
		body := strings.Repeat(" ", 1<<20+1)
		if status, _ := rawMCP(h, t, http.MethodPost, path, body, nil); status != http.StatusRequestEntityTooLarge {
			t.Errorf("1 MiB + 1: status %d, want 413", status)
		}
	})
	t.Run("Chunked", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			_, _ = pw.Write([]byte(strings.Repeat(" ", 1<<20+1)))
			pw.Close()
		}()
		req, _ := http.NewRequest(http.MethodPost, h.URL+path, pr)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("chunked 1 MiB + 1: status %d, want 413", resp.StatusCode)
		}
	})
	t.Run("RotatedToken", func(t *testing.T) {
		other := strings.Repeat("ab", 32)
		h.Srv.SetToken(other)
		defer h.Srv.SetToken(testToken)
		if status, _ := rawMCP(h, t, http.MethodPost, path, init, nil); status != http.StatusNotFound {
			t.Errorf("old token: status %d, want 404", status)
		}
		if status, _ := rawMCP(h, t, http.MethodPost, "/mcp/"+other, init, nil); status != http.StatusOK {
			t.Errorf("new token: status %d, want 200", status)
		}
	})
}

func TestMCP_Resources(t *testing.T) {
	updated := make(chan string, 16)
	h := mustServe(t, nil)
	m := mustConnect(t, h, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		updated <- r.Params.URI
	}})
	ctx := context.Background()
	recs := logtest.MustAppend(t, m.Log, oplog.Record{Level: oplog.LevelInfo, Name: "Physics", Text: "hello", Stack: "s"})

	res, err := m.session.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != "mcplogd://console" {
		t.Fatalf("resources/list = %+v, %v", res, err)
	}
	tmpl, err := m.session.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 2 {
		t.Fatalf("resources/templates/list = %+v, %v", tmpl, err)
	}
	read := func(uri string) string {
		t.Helper()
		r, err := m.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if len(r.Contents) != 1 || r.Contents[0].MIMEType != "application/json" {
			t.Fatalf("read %s: %+v", uri, r.Contents)
		}
		return r.Contents[0].Text
	}
	if s := read("mcplogd://console"); !strings.Contains(s, `"text":"hello"`) || !strings.Contains(s, `"lastId"`) {
		t.Errorf("console = %s", s)
	}
	if s := read(fmt.Sprintf("mcplogd://records/%d", recs[0].ID)); !strings.Contains(s, `"stack":"s"`) {
		t.Errorf("record = %s", s)
	}
	if s := read("mcplogd://names/Physics"); !strings.Contains(s, `"name":"Physics"`) || !strings.Contains(s, `"recent"`) {
		t.Errorf("name = %s", s)
	}
	for _, uri := range []string{"mcplogd://records/999", "mcplogd://records/abc", "mcplogd://names/nobody"} {
		if _, err := m.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s: no error", uri)
		}
	}

	// Subscribe: an append is announced.
	if err := m.session.Subscribe(ctx, &mcp.SubscribeParams{URI: "mcplogd://console"}); err != nil {
		t.Fatal(err)
	}
	if err := m.session.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Errorf("subscribing to another URI: %v", err)
	}
	logtest.MustAppend(t, m.Log, oplog.Record{Level: oplog.LevelInfo, Text: "news"})
	select {
	case uri := <-updated:
		if uri != "mcplogd://console" {
			t.Errorf("updated %s", uri)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no notifications/resources/updated after an append")
	}
	if err := m.session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "mcplogd://console"}); err != nil {
		t.Fatal(err)
	}
}

func TestMCP_PromptsAndCompletion(t *testing.T) {
	m := mustServeMCP(t)
	ctx := context.Background()
	logtest.MustAppend(t, m.Log,
		oplog.Record{Level: oplog.LevelInfo, Name: "Physics", Text: "1"},
		oplog.Record{Level: oplog.LevelInfo, Name: "Player", Source: "editor", Text: "2"},
		oplog.Record{Level: oplog.LevelInfo, Name: "Audio", Text: "3"},
	)
	p, err := m.session.ListPrompts(ctx, nil)
	if err != nil || len(p.Prompts) != 1 || p.Prompts[0].Name != "triage" {
		t.Fatalf("prompts/list = %+v, %v", p, err)
	}
	g, err := m.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "triage", Arguments: map[string]string{"log_name": "Physics", "since": "-1h"}})
	if err != nil || len(g.Messages) != 1 || !strings.Contains(g.Messages[0].Content.(*mcp.TextContent).Text, `name: "Physics"`) {
		t.Fatalf("prompts/get = %+v, %v", g, err)
	}
	complete := func(ref *mcp.CompleteReference, arg, value string) []string {
		t.Helper()
		r, err := m.session.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
		if err != nil {
			t.Fatalf("complete %s=%q: %v", arg, value, err)
		}
		return r.Completion.Values
	}
	if got := complete(&mcp.CompleteReference{Type: "ref/prompt", Name: "triage"}, "log_name", "p"); !slices.Equal(got, []string{"Physics", "Player"}) {
		t.Errorf("triage log_name p = %v", got)
	}
	if got := complete(&mcp.CompleteReference{Type: "ref/resource", URI: "mcplogd://names/{name}"}, "name", ""); !slices.Equal(got, []string{"Audio", "Physics", "Player"}) {
		t.Errorf("names template name = %v", got)
	}
	if got := complete(&mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"}, "arg1", "test"); got == nil || len(got) != 0 {
		t.Errorf("unknown prompt argument = %#v, want an empty list", got)
	}
}

// TestMCP_Shutdown: Shutdown ends a waiting console_tail, which answers
// with what there is.
func TestMCP_Shutdown(t *testing.T) {
	arrived := make(chan struct{}, 8)
	h := mustServe(t, &harnessOptions{Wrap: observe("/mcp/"+testToken, arrived, nil)})
	m := mustConnect(t, h, nil)
	for len(arrived) > 0 {
		<-arrived
	}
	got := make(chan tail, 1)
	go func() { got <- call[tail](t, m, "console_tail", map[string]any{"sinceId": 0, "waitMs": 30000}) }()
	within(t, arrived, 10*time.Second, "the tail call")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.Srv.Shutdown(ctx) }()
	select {
	case tl := <-got:
		if len(tl.Lines) != 0 {
			t.Errorf("tail = %+v", tl)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Shutdown did not end the long poll")
	}
	<-done
}

// TestMCP_ConsoleTail_Budget: 200 tail lines of the benchmark workload
// (internal/workload: ~120-byte messages, 10% with ~1 KB stacks, some data) stay small: no stacks,
// no data.
func TestMCP_ConsoleTail_Budget(t *testing.T) {
	m := mustServeMCP(t)
	recs := make([]oplog.Record, 2000)
	workload.New(1).Fill(recs)
	logtest.MustAppend(t, m.Log, recs...)
	_, b := m.callRaw(t, "console_tail", map[string]any{"limit": 200})
	t.Logf("200 tail lines: %d bytes of JSON (sent twice: structuredContent and text)", len(b))
	if len(b) > 48<<10 {
		t.Errorf("200 tail lines take %d bytes, want about 40 KB", len(b))
	}
	for _, r := range recs {
		if r.Stack != "" && strings.Contains(string(b), r.Stack[:40]) {
			t.Fatal("a stack trace is in the tail")
		}
	}
}

// TestMCP_NoArguments calls tools with arguments absent and null: the SDK's
// schema defaults once panicked on a nil map, which took the process down.
func TestMCP_NoArguments(t *testing.T) {
	m := mustServeMCP(t)
	for _, tool := range []string{"console_tail", "get_logs", "store_info", "list_log_names", "ping"} {
		res, err := m.session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool})
		if err != nil || res.IsError {
			t.Fatalf("%s without arguments: %+v, %v", tool, res, err)
		}
	}
	res, err := m.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "console_tail", Arguments: json.RawMessage("null")})
	if err != nil || res.IsError {
		t.Fatalf("console_tail with null arguments: %+v, %v", res, err)
	}
}

// TestMCP_SchemasAreObjects checks that no property schema is a bare
// boolean: the TypeScript SDK refuses the whole tool list when one is.
func TestMCP_SchemasAreObjects(t *testing.T) {
	m := mustServeMCP(t)
	var walk func(tool, path string, v any)
	walk = func(tool, path string, v any) {
		obj, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s: schema at %s is %v, not an object", tool, path, v)
			return
		}
		if props, ok := obj["properties"].(map[string]any); ok {
			for name, p := range props {
				walk(tool, path+"/properties/"+name, p)
			}
		}
		if items, ok := obj["items"]; ok {
			walk(tool, path+"/items", items)
		}
	}
	for name, tool := range m.tools {
		for what, schema := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
			b, _ := json.Marshal(schema)
			var v any
			json.Unmarshal(b, &v)
			walk(name, what, v)
		}
	}
}

// TestMCP_BearerAtSlashMCP: the endpoint also answers at /mcp/TOKEN/mcp, and
// at /mcp with the token as a bearer header, for clients that rewrite any
// path not ending in /mcp to /mcp.
func TestMCP_BearerAtSlashMCP(t *testing.T) {
	h := mustServe(t, nil)
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"OK", map[string]string{"Authorization": "Bearer " + testToken}, http.StatusOK},
		{"NoToken", nil, http.StatusNotFound},
		{"WrongToken", map[string]string{"Authorization": "Bearer " + strings.Repeat("f", 64)}, http.StatusNotFound},
		{"ForeignOrigin", map[string]string{"Authorization": "Bearer " + testToken, "Origin": "http://evil.example"}, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "OK" {
				status, body := rawMCP(h, t, http.MethodPost, "/mcp/"+testToken+"/mcp", initializeBody("2025-06-18"), nil)
				if status != http.StatusOK || !strings.Contains(body, `"serverInfo"`) {
					t.Fatalf("POST /mcp/TOKEN/mcp: %d %s", status, body)
				}
				if status, _ := rawMCP(h, t, http.MethodPost, "/mcp/"+strings.Repeat("f", 64)+"/mcp", initializeBody("2025-06-18"), nil); status != http.StatusNotFound {
					t.Fatalf("POST /mcp/WRONG/mcp: %d; want 404", status)
				}
			}
			status, body := rawMCP(h, t, http.MethodPost, "/mcp", initializeBody("2025-06-18"), tc.header)
			if status != tc.want {
				t.Fatalf("POST /mcp: %d %s; want %d", status, body, tc.want)
			}
			if tc.want == http.StatusOK && !strings.Contains(body, `"serverInfo"`) {
				t.Fatalf("initialize at /mcp: %s", body)
			}
		})
	}
}
