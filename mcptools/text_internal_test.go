package mcptools

import (
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestEntryLine_SourceAndName: a line shows source/name, a line without a
// name its source alone (not "unity/"), an operation source/op and a
// marker source/marker.
func TestEntryLine_SourceAndName(t *testing.T) {
	at := time.Date(2026, 12, 2, 9, 26, 58, 0, time.UTC)
	for _, tc := range []struct {
		r    oplog.Record
		want string
	}{
		{oplog.Record{ID: 7, Time: at, Level: oplog.LevelInfo, Source: "unity", Name: "Player"}, "#7 09:26:58.000 INFO unity/Player frame"},
		{oplog.Record{ID: 8, Time: at, Level: oplog.LevelWarn, Source: "unity"}, "#8 09:26:58.000 WARN unity frame"},
		{oplog.Record{ID: 9, Time: at, Level: oplog.LevelInfo, Source: "agent", Kind: oplog.KindMarker, Name: "before"}, "#9 09:26:58.000 INFO agent/marker before frame"},
		{oplog.Record{ID: 10, Time: at, Level: oplog.LevelInfo, Source: "agent", Kind: oplog.KindOp, Tool: "run_code", Status: oplog.StatusPending}, "#10 09:26:58.000 INFO agent/op run_code pending: frame"},
	} {
		if got := entryLine(&tc.r, "frame", 0, 1, 0); got != tc.want {
			t.Errorf("entryLine(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}
