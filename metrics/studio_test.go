package metrics_test

import (
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/api/apitest"
	"github.com/mcplogd/mcplogd/metrics"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// TestServer_Metrics_Studio: the forwarder's status as mcplogd_studio_*.
func TestServer_Metrics_Studio(t *testing.T) {
	st := oplog.StudioStatus{State: oplog.StudioUnreachable, Seq: 900, Reconciled: 800, ForwardedID: 950, LagRecords: 50,
		LagSeconds: 2.5, PendingOps: 3, Resent: 7, Lost: 2, TooOld: 1, LastError: "refused", LastErrorAt: time.Unix(1700000000, 0)}
	h := apitest.MustServe(t, &apitest.Options{Setup: func(l *oplog.Log, _ *store.DB, o *api.Options) {
		mount(l, o, &metrics.Options{Studio: func() oplog.StudioStatus { return st }})
	}})
	f := scrape(h)
	for name, want := range map[string]float64{
		"mcplogd_studio_rows_acknowledged_total": 900, "mcplogd_studio_rows_reconciled": 800, "mcplogd_studio_forwarded_id": 950,
		"mcplogd_studio_lag_records": 50, "mcplogd_studio_lag_seconds": 2.5, "mcplogd_studio_pending_operations": 3,
		"mcplogd_studio_rows_resent_total": 7, "mcplogd_studio_records_lost_total": 2, "mcplogd_studio_records_too_old_total": 1,
		"mcplogd_studio_last_error_timestamp_seconds": 1700000000,
	} {
		if got := value(f, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for _, s := range oplog.StudioStates {
		want := 0.0
		if s == oplog.StudioUnreachable {
			want = 1
		}
		if got := value(f, "mcplogd_studio_state", "state="+string(s)); got != want || sample(f, "mcplogd_studio_state", "state="+string(s)) == nil {
			t.Errorf("mcplogd_studio_state{state=%q} = %v, want %v", s, got, want)
		}
	}
	if f := scrape(mustServe(t)); f["mcplogd_studio_state"] != nil {
		t.Error("mcplogd_studio_state without a studio")
	}
}
