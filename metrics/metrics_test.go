package metrics_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/api/apitest"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/metrics"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// statusGateway is a Gateway with no tools whose Status is fixed.
type statusGateway struct {
	status []oplog.UpstreamStatus
	done   chan struct{}
}

func (g *statusGateway) Tools() []*mcp.Tool             { return nil }
func (g *statusGateway) Changed() <-chan struct{}       { return make(chan struct{}) }
func (g *statusGateway) Status() []oplog.UpstreamStatus { return g.status }
func (g *statusGateway) Done() <-chan struct{}          { return g.done }
func (g *statusGateway) Call(context.Context, string, json.RawMessage) (*mcp.CallToolResult, error) {
	return nil, errors.New("no tools")
}
func (g *statusGateway) Replay(context.Context, uint64, bool) (oplog.Replay, error) {
	return oplog.Replay{}, errors.New("no replay")
}

// mustServeMetrics serves a store whose commits feed metrics.Commits, with a
// real bleve index, a gateway with two upstreams and one follower.
func mustServeMetrics(t *testing.T) *harness {
	t.Helper()
	commits := metrics.NewCommits()
	gw := &statusGateway{done: make(chan struct{}), status: []oplog.UpstreamStatus{
		{Name: "unity", State: "up", Pending: 2},
		{Name: "lua", State: "down"},
	}}
	t.Cleanup(func() { close(gw.done) })
	return apitest.MustServe(t, &apitest.Options{Store: &store.Options{OnCommit: commits.OnCommit},
		Setup: func(l *oplog.Log, db *store.DB, o *api.Options) {
			idx, err := search.Open(filepath.Join(t.TempDir(), "index"), db, &search.Options{Changed: l.Changed, Interval: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			l.SetIndex(idx)
			o.FileSize, o.Gateway = db.Size, gw
			o.Followers = func() []oplog.FollowerStatus {
				return []oplog.FollowerStatus{{Name: "Editor", Path: "/tmp/Editor.log", State: "following", Offset: 300, Size: 1000, Lines: 12, Stored: 10}}
			}
			mount(l, o, &metrics.Options{Commits: commits, FileSize: db.Size, Upstreams: gw.Status, Followers: o.Followers})
		}})
}

// mustServe serves a store with metrics and nothing they could report on
// but the log: no commits, no index, no gateway, no followers.
func mustServe(t *testing.T) *harness {
	return apitest.MustServe(t, &apitest.Options{Setup: func(l *oplog.Log, _ *store.DB, o *api.Options) { mount(l, o, nil) }})
}

// mount wires metrics into the server's options as cmd/mcplogd does.
func mount(l *oplog.Log, o *api.Options, mo *metrics.Options) {
	m := metrics.New(l, mo)
	o.Routes = append(o.Routes, api.Route{Method: http.MethodGet, Path: "/metrics", Handler: m.Handler()})
	o.ObserveRequest = m.ObserveRequest
	o.Middleware = append(o.Middleware, m.TimeToolCalls)
}

// connect connects a go-sdk client to h's MCP endpoint, closed at cleanup.
func connect(t *testing.T, h *harness) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "mcplogd-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.URL + "/mcp/" + testToken}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callTool calls a tool that must answer (with a result or a tool error),
// and checks the answer as every answer is checked (apitest.CheckToolResult).
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == name {
			apitest.CheckToolResult(t, name, res, tool.OutputSchema)
			return
		}
	}
	t.Fatalf("%s is not in tools/list", name)
}

type harness = apitest.Harness

var testToken = apitest.Token

// scrape gets /metrics and parses it with Prometheus' own text parser.
func scrape(h *harness) map[string]*dto.MetricFamily {
	h.T.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.T.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		h.T.Fatalf("GET /metrics: status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		h.T.Errorf("Content-Type %q, want text/plain", ct)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		h.T.Fatalf("parse /metrics: %v", err)
	}
	return families
}

// sample finds the sample of family name whose labels include want
// ("k=v" pairs); nil when there is none.
func sample(families map[string]*dto.MetricFamily, name string, want ...string) *dto.Metric {
	mf := families[name]
	if mf == nil {
		return nil
	}
next:
	for _, m := range mf.Metric {
		labels := map[string]string{}
		for _, lp := range m.Label {
			labels[lp.GetName()] = lp.GetValue()
		}
		for _, w := range want {
			k, v, _ := strings.Cut(w, "=")
			if labels[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

// value returns a counter's or gauge's value, or a histogram's sample
// count; 0 when the sample is missing.
func value(families map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	m := sample(families, name, labels...)
	switch {
	case m == nil:
		return 0
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}

func TestServer_Metrics_Families(t *testing.T) {
	h := mustServeMetrics(t)
	// A source's counter appears with its first record, a route's histogram with its first request.
	logtest.MustAppend(t, h.Log, logtest.Lines(1, "x")...)
	h.Call(http.MethodGet, "/api/v1/tail", "")
	families := scrape(h)
	want := map[string]dto.MetricType{
		"mcplogd_records_appended_total":        dto.MetricType_COUNTER,
		"mcplogd_source_records_appended_total": dto.MetricType_COUNTER,
		"mcplogd_store_commit_duration_seconds": dto.MetricType_HISTOGRAM,
		"mcplogd_store_commit_records":          dto.MetricType_HISTOGRAM,
		"mcplogd_records_retained":              dto.MetricType_GAUGE,
		"mcplogd_records_retained_bytes":        dto.MetricType_GAUGE,
		"mcplogd_records_trimmed_total":         dto.MetricType_COUNTER,
		"mcplogd_store_file_bytes":              dto.MetricType_GAUGE,
		"mcplogd_index_indexed_through":         dto.MetricType_GAUGE,
		"mcplogd_index_lag_records":             dto.MetricType_GAUGE,
		"mcplogd_index_records_indexed_total":   dto.MetricType_COUNTER,
		"mcplogd_index_disk_bytes":              dto.MetricType_GAUGE,
		"mcplogd_http_request_duration_seconds": dto.MetricType_HISTOGRAM,
		"mcplogd_upstream_state":                dto.MetricType_GAUGE,
		"mcplogd_upstream_pending_calls":        dto.MetricType_GAUGE,
		"mcplogd_follower_state":                dto.MetricType_GAUGE,
		"mcplogd_follower_offset_bytes":         dto.MetricType_GAUGE,
		"mcplogd_follower_size_bytes":           dto.MetricType_GAUGE,
		"mcplogd_follower_lag_bytes":            dto.MetricType_GAUGE,
		"mcplogd_follower_lines_read_total":     dto.MetricType_COUNTER,
		"mcplogd_follower_records_stored_total": dto.MetricType_COUNTER,
		"go_goroutines":                         dto.MetricType_GAUGE,
		"process_cpu_seconds_total":             dto.MetricType_COUNTER,
	}
	for name, typ := range want {
		mf := families[name]
		if mf == nil {
			t.Errorf("%s: missing", name)
			continue
		}
		if mf.GetType() != typ {
			t.Errorf("%s: type %v, want %v", name, mf.GetType(), typ)
		}
	}
	// Every counter of appended records exists from the start, at zero.
	for _, kind := range []string{"line", "op"} {
		for _, level := range []string{"debug", "info", "warn", "error", "fatal"} {
			if sample(families, "mcplogd_records_appended_total", "kind="+kind, "level="+level) == nil {
				t.Errorf("mcplogd_records_appended_total{kind=%q,level=%q}: missing", kind, level)
			}
		}
	}
	for name, mf := range families {
		if !strings.HasPrefix(name, "mcplogd_") && !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") {
			t.Errorf("%s: an unexpected family", name)
		}
		if mf.GetType() == dto.MetricType_COUNTER && !strings.HasSuffix(name, "_total") {
			t.Errorf("%s: a counter without _total", name)
		}
	}

	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"mcplogd_upstream_state", []string{"upstream=unity", "state=up"}, 1},
		{"mcplogd_upstream_state", []string{"upstream=unity", "state=down"}, 0},
		{"mcplogd_upstream_state", []string{"upstream=lua", "state=down"}, 1},
		{"mcplogd_upstream_pending_calls", []string{"upstream=unity"}, 2},
		{"mcplogd_follower_state", []string{"follower=Editor", "state=following"}, 1},
		{"mcplogd_follower_state", []string{"follower=Editor", "state=failing"}, 0},
		{"mcplogd_follower_lag_bytes", []string{"follower=Editor"}, 700},
		{"mcplogd_follower_lines_read_total", []string{"follower=Editor"}, 12},
		{"mcplogd_follower_records_stored_total", []string{"follower=Editor"}, 10},
	}
	for _, c := range checks {
		if sample(families, c.name, c.labels...) == nil {
			t.Errorf("%s%v: missing", c.name, c.labels)
		} else if got := value(families, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if got := value(families, "mcplogd_store_file_bytes"); got <= 0 {
		t.Errorf("mcplogd_store_file_bytes = %v, want > 0", got)
	}
}

func TestServer_Metrics_AppendedCountersMove(t *testing.T) {
	h := mustServeMetrics(t)
	before := scrape(h)

	body := `{"level":"info","source":"unity","text":"a"}
{"level":"info","source":"unity","text":"b"}
{"level":"info","source":"unity","text":"c"}
{"level":"error","source":"godot","text":"d"}
{"level":"error","source":"godot","text":"e"}
{"level":"warn","text":"f"}`
	apitest.MustCall[client.AppendAnswer](h, http.MethodPost, "/api/v1/logs", body, http.StatusOK)
	op := apitest.MustCall[record](h, http.MethodPost, "/api/v1/operations", `{"tool":"run_lua","source":"godot"}`, http.StatusCreated)
	apitest.MustCall[record](h, http.MethodPost, fmt.Sprintf("/api/v1/operations/%d/complete", op.ID), `{"error":"boom"}`, http.StatusOK)
	after := scrape(h)

	delta := func(name string, labels ...string) float64 {
		return value(after, name, labels...) - value(before, name, labels...)
	}
	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"kind=line", "level=info"}, 3},
		{[]string{"kind=line", "level=error"}, 2},
		{[]string{"kind=line", "level=warn"}, 1},
		{[]string{"kind=line", "level=debug"}, 0},
		{[]string{"kind=op", "level=" + op.Level}, 1}, // the level it started with; completing is no append
		{[]string{"kind=op", "level=error"}, 0},
	} {
		if got := delta("mcplogd_records_appended_total", c.labels...); got != c.want {
			t.Errorf("mcplogd_records_appended_total%v moved by %v, want %v", c.labels, got, c.want)
		}
	}
	for source, want := range map[string]float64{"unity": 3, "godot": 3, "default": 1} {
		if got := delta("mcplogd_source_records_appended_total", "source="+source); got != want {
			t.Errorf("mcplogd_source_records_appended_total{source=%q} moved by %v, want %v", source, got, want)
		}
	}
	// Three commits (lines, the op, its completion) writing 8 records.
	if got := delta("mcplogd_store_commit_duration_seconds"); got != 3 {
		t.Errorf("commits observed: %v, want 3", got)
	}
	if got := sample(after, "mcplogd_store_commit_records").Histogram.GetSampleSum(); got != 8 {
		t.Errorf("records per commit sum to %v, want 8", got)
	}
	if got := value(after, "mcplogd_records_retained", "kind=op", "level=error"); got != 1 {
		t.Errorf("mcplogd_records_retained{kind=op,level=error} = %v, want 1", got)
	}
	if got := delta("mcplogd_http_request_duration_seconds", "route=/api/v1/logs", "method=POST", "code=200"); got != 1 {
		t.Errorf("POST /api/v1/logs observed %v times, want 1", got)
	}

	// The index catches up: no lag, its watermark the newest ID.
	logtest.Eventually(t, 10*time.Second, "the index", func() bool {
		f := scrape(h)
		return value(f, "mcplogd_index_lag_records") == 0 && value(f, "mcplogd_index_indexed_through") == float64(h.Log.Stats().LastID)
	})
	if got := value(scrape(h), "mcplogd_index_records_indexed_total"); got != float64(h.Log.Stats().LastID) {
		t.Errorf("mcplogd_index_records_indexed_total = %v, want %d", got, h.Log.Stats().LastID)
	}
}

func TestServer_Metrics_RequestLatency(t *testing.T) {
	h := mustServeMetrics(t)
	logtest.MustAppend(t, h.Log, logtest.Lines(5, "frame")...)
	before := scrape(h)
	for range 3 {
		apitest.MustCall[client.TailAnswer](h, http.MethodGet, "/api/v1/tail?sinceId=0", "", http.StatusOK)
	}
	for range 2 {
		h.Call(http.MethodGet, "/api/v1/search?query=frame", "")
	}
	apitest.MustCall[record](h, http.MethodGet, "/api/v1/records/1", "", http.StatusOK)
	h.Call(http.MethodGet, "/api/v1/records/999", "")
	h.Call(http.MethodGet, "/no/such/path/"+testToken, "")
	h.Call("BREW", "/api/v1/tail", "")
	after := scrape(h)

	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"route=/api/v1/tail", "method=GET", "code=200"}, 3},
		{[]string{"route=/api/v1/search", "method=GET", "code=200"}, 2},
		{[]string{"route=/api/v1/records/:id", "method=GET", "code=200"}, 1},
		{[]string{"route=/api/v1/records/:id", "method=GET", "code=404"}, 1},
		{[]string{"route=unmatched", "method=GET", "code=404"}, 1},
		{[]string{"method=_other"}, 1},
	} {
		if got := value(after, "mcplogd_http_request_duration_seconds", c.labels...) - value(before, "mcplogd_http_request_duration_seconds", c.labels...); got != c.want {
			t.Errorf("mcplogd_http_request_duration_seconds%v moved by %v, want %v", c.labels, got, c.want)
		}
	}
	for _, m := range after["mcplogd_http_request_duration_seconds"].Metric {
		for _, lp := range m.Label {
			if strings.Contains(lp.GetValue(), testToken) || strings.Contains(lp.GetValue(), "/no/such") {
				t.Errorf("label %s=%q: a URL, not a route", lp.GetName(), lp.GetValue())
			}
		}
	}
}

func TestServer_Metrics_ToolCalls(t *testing.T) {
	h := mustServeMetrics(t)
	cs := connect(t, h)
	before := scrape(h)
	callTool(t, cs, "console_tail", map[string]any{})
	callTool(t, cs, "console_tail", map[string]any{"limit": 5})
	callTool(t, cs, "ping", map[string]any{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool_" + testToken, Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Fatalf("an unknown tool answered: %+v", res)
	}
	after := scrape(h)
	for tool, want := range map[string]float64{"console_tail": 2, "ping": 1, "_unknown": 1} {
		if got := value(after, "mcplogd_mcp_tool_call_duration_seconds", "tool="+tool) - value(before, "mcplogd_mcp_tool_call_duration_seconds", "tool="+tool); got != want {
			t.Errorf("mcplogd_mcp_tool_call_duration_seconds{tool=%q} moved by %v, want %v", tool, got, want)
		}
	}
	for _, s := range after["mcplogd_mcp_tool_call_duration_seconds"].Metric {
		if v := s.Label[0].GetValue(); strings.Contains(v, "no_such_tool") {
			t.Errorf("tool=%q: a made-up name became a label", v)
		}
	}
	// The MCP endpoint itself is timed by tool, not as an HTTP route.
	if mf := after["mcplogd_http_request_duration_seconds"]; mf != nil {
		for _, s := range mf.Metric {
			for _, lp := range s.Label {
				if lp.GetName() == "route" && strings.HasPrefix(lp.GetValue(), "/mcp") {
					t.Errorf("route %q observed", lp.GetValue())
				}
			}
		}
	}
}

func TestServer_Metrics_NeedsToken(t *testing.T) {
	h := mustServeMetrics(t)
	for _, auth := range []string{"", "Bearer wrong", "Basic " + testToken, testToken} {
		status, b, err := h.Send(context.Background(), http.MethodGet, "/metrics", auth, nil)
		if err != nil {
			t.Fatal(err)
		}
		apitest.CheckError(t, status, b, http.StatusUnauthorized, "unauthorized")
	}
	// A rotated token stops working here too.
	h.Srv.SetToken(strings.Repeat("f", 64))
	status, b, err := h.Send(context.Background(), http.MethodGet, "/metrics", "Bearer "+testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	apitest.CheckError(t, status, b, http.StatusUnauthorized, "unauthorized")
}

func TestServer_Metrics_WithoutCommits(t *testing.T) {
	h := mustServe(t) // no Commits, no index, no gateway, no followers
	logtest.MustAppend(t, h.Log, logtest.Lines(2, "x")...)
	families := scrape(h)
	for _, name := range []string{"mcplogd_records_appended_total", "mcplogd_store_commit_duration_seconds", "mcplogd_index_lag_records", "mcplogd_upstream_state", "mcplogd_follower_state"} {
		if families[name] != nil {
			t.Errorf("%s: reported without its source", name)
		}
	}
	if got := value(families, "mcplogd_records_retained", "kind=line", "level=info"); got != 2 {
		t.Errorf("mcplogd_records_retained{kind=line,level=info} = %v, want 2", got)
	}
}

// record is the part of a record as the API returns it that the tests read.
type record struct {
	ID    uint64 `json:"id"`
	Level string `json:"level"`
}
