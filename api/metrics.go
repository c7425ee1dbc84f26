package api

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcplogd/mcplogd/oplog"
)

// GET /metrics answers in the Prometheus text format, with the same token
// as /api/v1 ("Authorization: Bearer <token>"; a Prometheus scrape config
// sets it with authorization: {credentials_file: ...}). What it reports:
//
//	mcplogd_records_appended_total{kind,level}        counter: records appended since start (Metrics)
//	mcplogd_source_records_appended_total{source}     counter: the same by source (Metrics)
//	mcplogd_store_commit_duration_seconds             histogram: group commits, fsync included (Metrics)
//	mcplogd_store_commit_records                      histogram: records written per group commit (Metrics)
//	mcplogd_records_retained{kind,level}              gauge: records kept now
//	mcplogd_records_retained_bytes                    gauge: their encoded size
//	mcplogd_records_trimmed_total                     counter: records removed by retention (this generation)
//	mcplogd_store_file_bytes                          gauge: the bbolt file (Options.FileSize)
//	mcplogd_index_indexed_through                     gauge: the index's watermark, an ID
//	mcplogd_index_lag_records                         gauge: records appended above it
//	mcplogd_index_records_indexed_total               counter: how far the watermark moved; rate() is the indexing rate
//	mcplogd_index_disk_bytes                          gauge: the index on disk
//	mcplogd_http_request_duration_seconds{route,method,code}  histogram: the HTTP API (not /mcp)
//	mcplogd_mcp_tool_call_duration_seconds{tool}      histogram: MCP tools/call, by tool
//	mcplogd_upstream_state{upstream,state}            gauge: 1 for the gateway upstream's state, 0 for the others
//	mcplogd_upstream_pending_calls{upstream}          gauge
//	mcplogd_follower_state{follower,state}            gauge: 1 for the followed file's state, 0 for the others
//	mcplogd_follower_offset_bytes{follower}, _size_bytes, _lag_bytes  gauges: read, file size, size-offset
//	mcplogd_follower_lines_read_total{follower}, mcplogd_follower_records_stored_total{follower}  counters
//
// and the Go runtime's go_* and the process's process_* metrics.

// Label values beyond these many distinct ones are reported as otherLabel,
// so that a client sending made-up sources or tool names cannot make the
// metrics grow without bound.
const (
	maxSourceLabels = 200
	maxToolLabels   = 200
	otherLabel      = "_other"
	// unknownTool labels tools/call requests that failed as requests (an
	// unknown tool, bad params) with a name not seen succeed before.
	unknownTool = "_unknown"
)

var (
	// latencyBuckets span a cached read (100 µs) to the longest long poll
	// (oplog.MaxWait, 30 s).
	latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	// commitBuckets span one fsync (~0.3 ms here) to a large batch.
	commitBuckets = []float64{.00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}
	// commitSizeBuckets go up to store.Options.MaxCommitRecords' default, 20,000.
	commitSizeBuckets = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000}
)

// Metrics counts what the store's group commits wrote, for GET /metrics:
// the records appended by kind, level and source, and the commits' latency
// and size. The counters start at zero with the process, as Prometheus
// expects; the store's own counters cannot serve, since they count the
// records kept (retention trims them, and an operation changes level when
// it completes). Wire it up like this (cmd/mcplogd does):
//
//	m := api.NewMetrics()
//	db, err := store.Open(path, &store.Options{OnCommit: m.OnCommit})
//	...
//	srv, err := api.New(log, &api.Options{Token: token, Metrics: m})
//
// It is safe for concurrent use.
type Metrics struct {
	appended      *prometheus.CounterVec
	byKindLevel   [3][6]prometheus.Counter // resolved once: OnCommit runs on the committer
	bySource      *prometheus.CounterVec
	sources       labelCap
	commitSeconds prometheus.Histogram
	commitRecords prometheus.Histogram
}

// NewMetrics returns Metrics with every counter at zero.
func NewMetrics() *Metrics {
	m := &Metrics{
		appended: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcplogd_records_appended_total",
			Help: "Records appended since the process started, by kind and level (an operation's level when appended).",
		}, []string{"kind", "level"}),
		bySource: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcplogd_source_records_appended_total",
			Help: "Records appended since the process started, by source (sources past the first " + strconv.Itoa(maxSourceLabels) + " count as " + otherLabel + ").",
		}, []string{"source"}),
		sources: labelCap{max: maxSourceLabels},
		commitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "mcplogd_store_commit_duration_seconds",
			Help:    "How long the store's group commits took, fsync included.",
			Buckets: commitBuckets,
		}),
		commitRecords: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "mcplogd_store_commit_records",
			Help:    "Records written per group commit: appended plus operations completed. Its count is the number of commits.",
			Buckets: commitSizeBuckets,
		}),
	}
	for _, k := range []oplog.Kind{oplog.KindLine, oplog.KindOp} {
		for _, l := range oplog.Levels {
			m.byKindLevel[k][l] = m.appended.WithLabelValues(k.String(), l.String())
		}
	}
	return m
}

// OnCommit counts one group commit; pass it as store.Options.OnCommit.
func (m *Metrics) OnCommit(c oplog.Commit) {
	m.commitSeconds.Observe(c.Took.Seconds())
	m.commitRecords.Observe(float64(c.Appended + c.Completed))
	for k := range c.Counts {
		for l, n := range c.Counts[k] {
			if n > 0 && m.byKindLevel[k][l] != nil {
				m.byKindLevel[k][l].Add(float64(n))
			}
		}
	}
	for source, n := range c.Sources {
		m.bySource.WithLabelValues(m.sources.value(source, true)).Add(float64(n))
	}
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.appended, m.bySource, m.commitSeconds, m.commitRecords}
}

// labelCap admits the first max distinct values of a label; later ones
// become otherLabel.
type labelCap struct {
	max  int
	mu   sync.Mutex
	seen map[string]bool
}

// value returns v if it is admitted, or if admit and there is room;
// otherwise otherLabel when admit, and "" when not.
func (c *labelCap) value(v string, admit bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[v] {
		return v
	}
	if !admit {
		return ""
	}
	if len(c.seen) >= c.max {
		return otherLabel
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[v] = true
	return v
}

// serverMetrics is what one Server measures and reports.
type serverMetrics struct {
	s        *Server
	registry *prometheus.Registry
	handler  http.Handler
	http     *prometheus.HistogramVec
	tools    *prometheus.HistogramVec
	toolCap  labelCap

	mu          sync.Mutex // guards the two below
	lastIndexed uint64     // the watermark at the previous scrape
	indexed     uint64     // what mcplogd_index_records_indexed_total reports
}

func newServerMetrics(s *Server) *serverMetrics {
	sm := &serverMetrics{
		s:        s,
		registry: prometheus.NewRegistry(),
		http: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mcplogd_http_request_duration_seconds",
			Help:    "HTTP API requests (not the MCP endpoint) by route template, method and status code.",
			Buckets: latencyBuckets,
		}, []string{"route", "method", "code"}),
		tools: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mcplogd_mcp_tool_call_duration_seconds",
			Help:    "MCP tools/call requests by tool (tools past the first " + strconv.Itoa(maxToolLabels) + " count as " + otherLabel + ", failed calls of unknown names as " + unknownTool + ").",
			Buckets: latencyBuckets,
		}, []string{"tool"}),
		toolCap: labelCap{max: maxToolLabels},
	}
	sm.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		sm.http, sm.tools, (*stateCollector)(sm),
	)
	if m := s.opts.Metrics; m != nil {
		sm.registry.MustRegister(m.collectors()...)
	}
	sm.handler = promhttp.HandlerFor(sm.registry, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError, // a failing collector must not hide the others
	})
	return sm
}

// serveMetrics answers GET /metrics.
func (s *Server) serveMetrics(c echo.Context) error {
	s.metrics.handler.ServeHTTP(c.Response(), c.Request())
	return nil
}

// timeRequests observes each HTTP request's duration once its answer
// (errors included) is written. The MCP endpoint and the page's event
// stream are left out: their streams last as long as a session, and
// tools/call is timed by tool.
func (s *Server) timeRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		route := c.Path() // the template, never the URL: a path may hold a token
		if route == "/mcp" || strings.HasPrefix(route, "/mcp/") || route == "/api/v1/stream" {
			return err
		}
		if err != nil {
			c.Error(err) // write the answer now, to know its status
			err = nil
		}
		code := c.Response().Status
		if code == http.StatusNotFound && !s.isRoute(route) {
			route = "unmatched" // a scanner's made-up paths must not become labels
		}
		s.metrics.http.WithLabelValues(route, methodLabel(c.Request().Method), strconv.Itoa(code)).Observe(time.Since(start).Seconds())
		return err
	}
}

// methodLabel keeps the standard methods; a client may send any word.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return otherLabel
}

// isRoute reports whether path is a registered route template.
func (s *Server) isRoute(path string) bool {
	return slices.ContainsFunc(s.echo.Routes(), func(r *echo.Route) bool { return r.Path == path })
}

// timeToolCalls is MCP middleware that observes tools/call by tool name.
// Names of tools that answered (mcplogd's own, the gateway's) are kept up
// to maxToolLabels; a failed request with a name never seen answer is
// unknownTool, so that made-up names do not become labels.
func (sm *serverMetrics) timeToolCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ctr, ok := req.(*mcp.CallToolRequest)
		if !ok || ctr.Params == nil {
			return next(ctx, method, req)
		}
		name := ctr.Params.Name // read before next: handlers may change the params
		start := time.Now()
		res, err := next(ctx, method, req)
		tool := sm.toolCap.value(name, err == nil)
		if tool == "" {
			tool = unknownTool
		}
		sm.tools.WithLabelValues(tool).Observe(time.Since(start).Seconds())
		return res, err
	}
}

// stateCollector reports, at each scrape, what the Log, the gateway and
// the followers say of themselves.
type stateCollector serverMetrics

var (
	retainedDesc = prometheus.NewDesc("mcplogd_records_retained",
		"Records kept in the store now, by kind and level (an operation's current level).", []string{"kind", "level"}, nil)
	retainedBytesDesc = prometheus.NewDesc("mcplogd_records_retained_bytes",
		"Encoded size of the records kept, what retention's --max-bytes bounds.", nil, nil)
	trimmedDesc = prometheus.NewDesc("mcplogd_records_trimmed_total",
		"Records removed by retention in this generation of the store (clearing the store starts again from zero).", nil, nil)
	fileBytesDesc = prometheus.NewDesc("mcplogd_store_file_bytes",
		"Size of the bbolt data file; it does not shrink when records are trimmed.", nil, nil)
	indexedThroughDesc = prometheus.NewDesc("mcplogd_index_indexed_through",
		"The full-text index's watermark: the highest record ID indexed.", nil, nil)
	indexLagDesc = prometheus.NewDesc("mcplogd_index_lag_records",
		"Records appended above the index's watermark (searches scan them from the store).", nil, nil)
	indexedDesc = prometheus.NewDesc("mcplogd_index_records_indexed_total",
		"How far the index's watermark advanced, from 0 at the first scrape and again from where a rebuild restarts it; rate() of it is the indexing rate.", nil, nil)
	indexBytesDesc = prometheus.NewDesc("mcplogd_index_disk_bytes",
		"Size of the full-text index on disk.", nil, nil)
	upstreamStateDesc = prometheus.NewDesc("mcplogd_upstream_state",
		"1 for the state each gateway upstream is in, 0 for the others.", []string{"upstream", "state"}, nil)
	upstreamPendingDesc = prometheus.NewDesc("mcplogd_upstream_pending_calls",
		"Calls to the upstream still running.", []string{"upstream"}, nil)
	followerStateDesc = prometheus.NewDesc("mcplogd_follower_state",
		"1 for the state each followed file is in, 0 for the others.", []string{"follower", "state"}, nil)
	followerOffsetDesc = prometheus.NewDesc("mcplogd_follower_offset_bytes",
		"Bytes of the current file read and stored.", []string{"follower"}, nil)
	followerSizeDesc = prometheus.NewDesc("mcplogd_follower_size_bytes",
		"The current file's size when last looked at.", []string{"follower"}, nil)
	followerLagDesc = prometheus.NewDesc("mcplogd_follower_lag_bytes",
		"Bytes of the current file not read yet: size minus offset.", []string{"follower"}, nil)
	followerLinesDesc = prometheus.NewDesc("mcplogd_follower_lines_read_total",
		"Lines read since the process started.", []string{"follower"}, nil)
	followerStoredDesc = prometheus.NewDesc("mcplogd_follower_records_stored_total",
		"Records appended from the file since the process started.", []string{"follower"}, nil)
)

// The states reported as 0 besides the current one, so that a state that
// ends shows as 0 rather than vanishing.
var (
	upstreamStates = []string{"connecting", "up", "down", "stopped"}
	followerStates = []string{"waiting", "following", "failing"}
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{retainedDesc, retainedBytesDesc, trimmedDesc, fileBytesDesc,
		indexedThroughDesc, indexLagDesc, indexedDesc, indexBytesDesc, upstreamStateDesc, upstreamPendingDesc,
		followerStateDesc, followerOffsetDesc, followerSizeDesc, followerLagDesc, followerLinesDesc, followerStoredDesc} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	st := s.log.Stats()
	for _, k := range []oplog.Kind{oplog.KindLine, oplog.KindOp} {
		for _, l := range oplog.Levels {
			ch <- prometheus.MustNewConstMetric(retainedDesc, prometheus.GaugeValue, float64(st.Counts[k][l]), k.String(), l.String())
		}
	}
	ch <- prometheus.MustNewConstMetric(retainedBytesDesc, prometheus.GaugeValue, float64(st.Bytes))
	ch <- prometheus.MustNewConstMetric(trimmedDesc, prometheus.CounterValue, float64(st.Trimmed))
	if s.opts.FileSize != nil {
		ch <- prometheus.MustNewConstMetric(fileBytesDesc, prometheus.GaugeValue, float64(s.opts.FileSize()))
	}
	if is, ok := s.log.IndexStatus(); ok {
		ch <- prometheus.MustNewConstMetric(indexedThroughDesc, prometheus.GaugeValue, float64(is.IndexedThrough))
		ch <- prometheus.MustNewConstMetric(indexLagDesc, prometheus.GaugeValue, float64(is.Lag))
		ch <- prometheus.MustNewConstMetric(indexedDesc, prometheus.CounterValue, float64(c.indexedTotal(is.IndexedThrough)))
		ch <- prometheus.MustNewConstMetric(indexBytesDesc, prometheus.GaugeValue, float64(is.Bytes))
	}
	if gw := s.opts.Gateway; gw != nil {
		seen := map[string]bool{}
		for _, u := range gw.Status() {
			if seen[u.Name] {
				continue // a repeated label set would fail the whole scrape
			}
			seen[u.Name] = true
			stateGauges(ch, upstreamStateDesc, u.Name, string(u.State), upstreamStates)
			ch <- prometheus.MustNewConstMetric(upstreamPendingDesc, prometheus.GaugeValue, float64(u.Pending), u.Name)
		}
	}
	if s.opts.Followers != nil {
		seen := map[string]bool{}
		for _, f := range s.opts.Followers() {
			if seen[f.Name] {
				continue
			}
			seen[f.Name] = true
			stateGauges(ch, followerStateDesc, f.Name, string(f.State), followerStates)
			ch <- prometheus.MustNewConstMetric(followerOffsetDesc, prometheus.GaugeValue, float64(f.Offset), f.Name)
			ch <- prometheus.MustNewConstMetric(followerSizeDesc, prometheus.GaugeValue, float64(f.Size), f.Name)
			ch <- prometheus.MustNewConstMetric(followerLagDesc, prometheus.GaugeValue, float64(max(f.Size-f.Offset, 0)), f.Name)
			ch <- prometheus.MustNewConstMetric(followerLinesDesc, prometheus.CounterValue, float64(f.Lines), f.Name)
			ch <- prometheus.MustNewConstMetric(followerStoredDesc, prometheus.CounterValue, float64(f.Stored), f.Name)
		}
	}
}

// stateGauges sends 1 for state and 0 for each other of states; a state
// not among them is sent too.
func stateGauges(ch chan<- prometheus.Metric, d *prometheus.Desc, name, state string, states []string) {
	for _, st := range states {
		v := 0.0
		if st == state {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, name, st)
	}
	if !slices.Contains(states, state) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, 1, name, state)
	}
}

// indexedTotal adds how far the watermark moved since the previous scrape.
// A watermark that went back means a rebuild started over from nothing, so
// all of it is new work.
func (c *stateCollector) indexedTotal(w uint64) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w >= c.lastIndexed {
		c.indexed += w - c.lastIndexed
	} else {
		c.indexed += w
	}
	c.lastIndexed = w
	return c.indexed
}
