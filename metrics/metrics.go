package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcplogd/mcplogd/oplog"
)

// Source is what the metrics read of the log at each scrape: an *oplog.Log.
type Source interface {
	Stats() oplog.Stats
	IndexStatus() (oplog.IndexStatus, bool)
}

// Options configures New. A nil *Options means defaults; a nil field
// leaves its metrics out.
type Options struct {
	// Commits, fed by the store's commits (see NewCommits), adds the
	// records appended and the commits' latency. Nil: not reported.
	Commits *Commits

	// FileSize returns the data file's size. Nil: not reported.
	FileSize func() int64

	// Upstreams reports the gateway's upstreams. Nil: none.
	Upstreams func() []oplog.UpstreamStatus

	// Followers reports the followed log files. Nil: none.
	Followers func() []oplog.FollowerStatus

	// Studio reports the forwarding to the studio's VictoriaLogs
	// (mcplogd_studio_*). Nil: none.
	Studio func() oplog.StudioStatus

	// Logger receives the errors of collectors while a scrape is
	// answered; nil discards them.
	Logger *slog.Logger
}

// Metrics is what one server measures and reports at GET /metrics: the
// package documentation lists the families. It is safe for concurrent use.
type Metrics struct {
	src      Source
	opts     Options
	registry *prometheus.Registry
	handler  http.Handler
	http     *prometheus.HistogramVec
	tools    *prometheus.HistogramVec
	toolCap  labelCap

	mu          sync.Mutex // guards the two below
	lastIndexed uint64     // the watermark at the previous scrape
	indexed     uint64     // what mcplogd_index_records_indexed_total reports
}

// New returns the metrics of the log src.
func New(src Source, opts *Options) *Metrics {
	m := &Metrics{
		src:      src,
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
	if opts != nil {
		m.opts = *opts
	}
	logger := m.opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.http, m.tools, (*stateCollector)(m),
	)
	if c := m.opts.Commits; c != nil {
		m.registry.MustRegister(c.collectors()...)
	}
	if m.opts.Studio != nil {
		m.registry.MustRegister(studioCollector{m.opts.Studio})
	}
	m.handler = promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError, // a failing collector must not hide the others
	})
	return m
}

// Handler answers GET /metrics in the Prometheus text format. It checks
// no credential: the server that mounts it does.
func (m *Metrics) Handler() http.Handler { return m.handler }

// ObserveRequest records one HTTP request's duration, once its answer is
// written; pass it as api.Options.ObserveRequest. route must be a route
// template (or "unmatched"), never a URL, which may hold a token; methods
// other than the standard ones are counted as one.
func (m *Metrics) ObserveRequest(route, method string, code int, took time.Duration) {
	m.http.WithLabelValues(route, methodLabel(method), strconv.Itoa(code)).Observe(took.Seconds())
}

// TimeToolCalls is MCP middleware that observes tools/call by tool name;
// add it to mcptools.Options.Middleware. Names of tools that answered
// (mcplogd's own, the gateway's) are kept up to maxToolLabels; a failed
// request with a name never seen answer is unknownTool, so that made-up
// names do not become labels.
func (m *Metrics) TimeToolCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ctr, ok := req.(*mcp.CallToolRequest)
		if !ok || ctr.Params == nil {
			return next(ctx, method, req)
		}
		name := ctr.Params.Name // read before next: handlers may change the params
		start := time.Now()
		res, err := next(ctx, method, req)
		tool := m.toolCap.value(name, err == nil)
		if tool == "" {
			tool = unknownTool
		}
		m.tools.WithLabelValues(tool).Observe(time.Since(start).Seconds())
		return res, err
	}
}
