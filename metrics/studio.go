package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcplogd/mcplogd/oplog"
)

// studioCollector reports the forwarding to the studio's VictoriaLogs at
// each scrape.
type studioCollector struct{ status func() oplog.StudioStatus }

var (
	studioStateDesc = prometheus.NewDesc("mcplogd_studio_state",
		"1 for the state the forwarding to the studio's VictoriaLogs is in, 0 for the others.", []string{"state"}, nil)
	studioSeqDesc = prometheus.NewDesc("mcplogd_studio_rows_acknowledged_total",
		"Rows VictoriaLogs acknowledged: the forwarding sequence (seq) of this machine.", nil, nil)
	studioReconciledDesc = prometheus.NewDesc("mcplogd_studio_rows_reconciled",
		"The seq through which every row was found in VictoriaLogs (reconciliation).", nil, nil)
	studioForwardedDesc = prometheus.NewDesc("mcplogd_studio_forwarded_id",
		"The highest record ID forwarded and acknowledged.", nil, nil)
	studioLagDesc = prometheus.NewDesc("mcplogd_studio_lag_records",
		"Records appended locally and not acknowledged by VictoriaLogs yet.", nil, nil)
	studioLagSecondsDesc = prometheus.NewDesc("mcplogd_studio_lag_seconds",
		"How long the oldest record not acknowledged yet has waited; 0 when none waits.", nil, nil)
	studioPendingDesc = prometheus.NewDesc("mcplogd_studio_pending_operations",
		"Operations forwarded while pending whose completion row is still to send.", nil, nil)
	studioResentDesc = prometheus.NewDesc("mcplogd_studio_rows_resent_total",
		"Rows sent again because reconciliation found them missing in VictoriaLogs.", nil, nil)
	studioLostDesc = prometheus.NewDesc("mcplogd_studio_records_lost_total",
		"Records that never reached the studio: retention removed them first (the --max-bytes disk limit), or VictoriaLogs refused them again and again.", nil, nil)
	studioTooOldDesc = prometheus.NewDesc("mcplogd_studio_records_too_old_total",
		"Records not sent because their time is outside VictoriaLogs' retention (it would drop them).", nil, nil)
	studioErrorDesc = prometheus.NewDesc("mcplogd_studio_last_error_timestamp_seconds",
		"When the forwarding last failed (Unix time); the error is in store_info.", nil, nil)
)

func (c studioCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{studioStateDesc, studioSeqDesc, studioReconciledDesc, studioForwardedDesc, studioLagDesc, studioLagSecondsDesc,
		studioPendingDesc, studioResentDesc, studioLostDesc, studioTooOldDesc, studioErrorDesc} {
		ch <- d
	}
}

func (c studioCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.status()
	for _, st := range oplog.StudioStates {
		v := 0.0
		if st == s.State {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(studioStateDesc, prometheus.GaugeValue, v, string(st))
	}
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	counter(studioSeqDesc, float64(s.Seq))
	gauge(studioReconciledDesc, float64(s.Reconciled))
	gauge(studioForwardedDesc, float64(s.ForwardedID))
	gauge(studioLagDesc, float64(s.LagRecords))
	gauge(studioLagSecondsDesc, s.LagSeconds)
	gauge(studioPendingDesc, float64(s.PendingOps))
	counter(studioResentDesc, float64(s.Resent))
	counter(studioLostDesc, float64(s.Lost))
	counter(studioTooOldDesc, float64(s.TooOld))
	if !s.LastErrorAt.IsZero() {
		gauge(studioErrorDesc, float64(s.LastErrorAt.UnixNano())/1e9)
	}
}
