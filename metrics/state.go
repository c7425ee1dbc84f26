package metrics

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcplogd/mcplogd/oplog"
)

// stateCollector reports, at each scrape, what the Log, the gateway and
// the followers say of themselves.
type stateCollector Metrics

var (
	retainedDesc = prometheus.NewDesc("mcplogd_records_retained",
		"Records kept in the store now, by kind and level (an operation's current level).", []string{"kind", "level"}, nil)
	retainedBytesDesc = prometheus.NewDesc("mcplogd_records_retained_bytes",
		"Encoded size of the records kept, what retention's --max-bytes bounds.", nil, nil)
	trimmedDesc = prometheus.NewDesc("mcplogd_records_trimmed_total",
		"Records removed by retention in this generation of the store (clearing the store starts again from zero).", nil, nil)
	fileBytesDesc = prometheus.NewDesc("mcplogd_store_file_bytes",
		"Size of the bbolt data file, free pages included (bbolt reuses them; the store gives them back by compacting the file once they are at least half of it).", nil, nil)
	indexedThroughDesc = prometheus.NewDesc("mcplogd_index_indexed_through",
		"The full-text index's watermark: every record up to this ID is in it (in the term set of its chunk).", nil, nil)
	indexLagDesc = prometheus.NewDesc("mcplogd_index_lag_records",
		"Records appended above the index's watermark (searches scan them from the store).", nil, nil)
	segmentLagDesc = prometheus.NewDesc("mcplogd_index_segment_lag_records",
		"Records not yet in the index on disk (in term sets in memory only, or above the watermark).", nil, nil)
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

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{retainedDesc, retainedBytesDesc, trimmedDesc, fileBytesDesc,
		indexedThroughDesc, indexLagDesc, segmentLagDesc, indexedDesc, indexBytesDesc, upstreamStateDesc, upstreamPendingDesc,
		followerStateDesc, followerOffsetDesc, followerSizeDesc, followerLagDesc, followerLinesDesc, followerStoredDesc} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.Stats()
	for _, k := range oplog.Kinds {
		for _, l := range oplog.Levels {
			ch <- prometheus.MustNewConstMetric(retainedDesc, prometheus.GaugeValue, float64(st.Counts[k][l]), k.String(), l.String())
		}
	}
	ch <- prometheus.MustNewConstMetric(retainedBytesDesc, prometheus.GaugeValue, float64(st.Bytes))
	ch <- prometheus.MustNewConstMetric(trimmedDesc, prometheus.CounterValue, float64(st.Trimmed))
	if c.opts.FileSize != nil {
		ch <- prometheus.MustNewConstMetric(fileBytesDesc, prometheus.GaugeValue, float64(c.opts.FileSize()))
	}
	if is, ok := c.src.IndexStatus(); ok {
		ch <- prometheus.MustNewConstMetric(indexedThroughDesc, prometheus.GaugeValue, float64(is.IndexedThrough))
		ch <- prometheus.MustNewConstMetric(indexLagDesc, prometheus.GaugeValue, float64(is.Lag))
		ch <- prometheus.MustNewConstMetric(segmentLagDesc, prometheus.GaugeValue, float64(is.SegmentLag))
		ch <- prometheus.MustNewConstMetric(indexedDesc, prometheus.CounterValue, float64(c.indexedTotal(is.IndexedThrough)))
		ch <- prometheus.MustNewConstMetric(indexBytesDesc, prometheus.GaugeValue, float64(is.Bytes))
	}
	if c.opts.Upstreams != nil {
		seen := map[string]bool{}
		for _, u := range c.opts.Upstreams() {
			if seen[u.Name] {
				continue // a repeated label set would fail the whole scrape
			}
			seen[u.Name] = true
			stateGauges(ch, upstreamStateDesc, u.Name, u.State, oplog.UpstreamStates)
			ch <- prometheus.MustNewConstMetric(upstreamPendingDesc, prometheus.GaugeValue, float64(u.Pending), u.Name)
		}
	}
	if c.opts.Followers != nil {
		seen := map[string]bool{}
		for _, f := range c.opts.Followers() {
			if seen[f.Name] {
				continue
			}
			seen[f.Name] = true
			stateGauges(ch, followerStateDesc, f.Name, f.State, oplog.FollowerStates)
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
func stateGauges[S ~string](ch chan<- prometheus.Metric, d *prometheus.Desc, name string, state S, states []S) {
	for _, st := range states {
		v := 0.0
		if st == state {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, name, string(st))
	}
	if !slices.Contains(states, state) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, 1, name, string(state))
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
