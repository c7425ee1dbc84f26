package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcplogd/mcplogd/oplog"
)

// Commits counts what the store's group commits wrote, for GET /metrics:
// the records appended by kind, level and source, and the commits' latency
// and size. The counters start at zero with the process, as Prometheus
// expects; the store's own counters cannot serve, since they count the
// records kept (retention trims them, and an operation changes level when
// it completes). Wire it up like this (cmd/mcplogd does):
//
//	commits := metrics.NewCommits()
//	db, err := store.Open(path, &store.Options{OnCommit: commits.OnCommit})
//	...
//	m := metrics.New(log, &metrics.Options{Commits: commits})
//
// It is safe for concurrent use.
type Commits struct {
	appended      *prometheus.CounterVec
	byKindLevel   [len(oplog.Counts{})][6]prometheus.Counter // resolved once: OnCommit runs on the committer
	bySource      *prometheus.CounterVec
	sources       labelCap
	commitSeconds prometheus.Histogram
	commitRecords prometheus.Histogram
}

// NewCommits returns Commits with every counter at zero.
func NewCommits() *Commits {
	m := &Commits{
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
	for _, k := range oplog.Kinds {
		for _, l := range oplog.Levels {
			m.byKindLevel[k][l] = m.appended.WithLabelValues(k.String(), l.String())
		}
	}
	return m
}

// OnCommit counts one group commit; pass it as store.Options.OnCommit.
func (m *Commits) OnCommit(c oplog.Commit) {
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

func (m *Commits) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.appended, m.bySource, m.commitSeconds, m.commitRecords}
}
