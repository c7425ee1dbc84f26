package mcptools

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestTexts_SmallTools: the text blocks of store_info, ping, append_log,
// clear_logs and replay_operation are short lines, not their JSON.
func TestTexts_SmallTools(t *testing.T) {
	lag, through := uint64(2), uint64(40)
	d := int64(12)
	tests := []struct {
		name string
		out  texter
		want []string
	}{
		{"store_info", storeInfoOut{Records: 42, Lines: 40, Ops: 2, Levels: map[string]uint64{"info": 40, "error": 2}, FirstID: 1, LastID: 42,
			Revision: 7, Bytes: 9000, FileBytes: 3 << 20, FileFreeBytes: 2 << 20, Version: "v1", MaxTextChars: 500, Retention: &retentionOut{MaxRecords: 100, MaxAge: "1h0m0s"},
			indexInfoOut: indexInfoOut{IndexedThrough: &through, IndexLag: &lag, Indexing: "indexing"},
			Upstreams:    []oplog.UpstreamStatus{{Name: "game", Transport: "http", Target: "http://127.0.0.1:9/mcp", State: "down", Error: "connection\nrefused", Since: time.Now()}},
			Followers:    []oplog.FollowerStatus{{Name: "editor", Path: "/tmp/Editor.log", Parser: "unity", State: "following", Offset: 10, Size: 20}},
			Studio: &oplog.StudioStatus{URL: "http://vl:9428", Project: "shooter", Machine: "ci-3", State: oplog.StudioUnreachable, Seq: 90,
				LagRecords: 12, LagSeconds: 3.25, LastError: "connection\nrefused"}},
			[]string{"store_info: mcplogd v1", "\n42 records (40 lines, 2 operations), IDs 1..42, revision=7\n", "\nlevels: info 40, error 2\n",
				"file 3145728 bytes (2097152 of them free pages the next records reuse)", "\nretention: 100 records, 0 bytes, 1h0m0s", "\nsearch index: indexing through #40 (lag 2)",
				"\nupstream game (http http://127.0.0.1:9/mcp): down, 0 tools, 0 pending: connection refused",
				"\nfollows /tmp/Editor.log as editor (unity): following, 10 of 20 bytes read",
				"\nstudio http://vl:9428 as shooter/ci-3: unreachable, seq 90, lag 12 records (3.2s), 0 resent, 0 lost, 0 too old: connection refused"}},
		{"ping", pingOut{Status: "ok", Version: "v1"}, []string{"ping: ok, mcplogd v1"}},
		{"append_log", appendOut{ID: 43, Time: "2026-03-14T10:26:53Z"}, []string{"append_log: wrote #43 at 2026-03-14T10:26:53Z"}},
		{"clear_logs", clearOut{Deleted: 42, Revision: 8, LastID: 42}, []string{"clear_logs: deleted 42 records", "revision=8", "after #42"}},
		{"replay_operation", replayOut{Original: resultOut{ID: 5, Tool: "run", Status: "success", Result: json.RawMessage(`{"out":1}`), DurationMs: &d},
			Replay: resultOut{ID: 9, Tool: "run", Status: "error", Error: strings.Repeat("boom ", 200)}, Diff: "status: success → error"},
			[]string{"replay_operation: the results differ: status: success → error\n", "\noriginal #5 run success 12ms: {\"out\":1}\n", "\nreplay #9 run error: boom boom", "…"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.out.text()
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			if strings.HasPrefix(text, "{") || len(text) > 1024 {
				t.Errorf("text is JSON or long (%d bytes):\n%s", len(text), text)
			}
		})
	}
}

// TestGameText: a game's line says its latest run and how long ago, how
// the run before ended while it runs, its newest record and its upstream,
// "restarting" while a crashed game's upstream is not up.
func TestGameText(t *testing.T) {
	now := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	tests := []struct {
		name string
		g    oplog.GameHealth
		want string
	}{
		{"NoRunYet", oplog.GameHealth{Name: "game", State: oplog.GameNoRun, Upstream: oplog.UpstreamDown},
			"game game: no run yet; upstream down, 0 pending"},
		{"CrashedRestarting", oplog.GameHealth{Name: "game", State: oplog.OutcomeCrashed, Run: 2, Since: ago(4 * time.Second), Newest: ago(4 * time.Second),
			End: "python3 killed by signal 11 (SIGSEGV)", Upstream: oplog.UpstreamConnecting},
			"game game: crashed 4.0s ago (python3 killed by signal 11 (SIGSEGV)), run 2; newest record 4.0s ago; upstream connecting, 0 pending: restarting"},
		{"RunningAgain", oplog.GameHealth{Name: "game", State: oplog.OutcomeRunning, Run: 3, Since: ago(75 * time.Second), Newest: ago(time.Second),
			End: "exited with status 1", EndRun: 2, EndOutcome: oplog.OutcomeCrashed, Upstream: oplog.UpstreamUp, Pending: 1},
			"game game: running, started 75s ago, run 3; run 2 crashed (exited with status 1); newest record 1.0s ago; upstream up, 1 pending"},
		{"ExitedLongAgo", oplog.GameHealth{Name: "editor", State: oplog.OutcomeExited, Run: 1, Since: ago(72 * time.Hour), Newest: ago(72 * time.Hour), End: "exited"},
			"game editor: exited 3 days ago (exited), run 1; newest record 3 days ago"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := GameText(&tc.g, now); got != tc.want {
				t.Errorf("GameText:\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
