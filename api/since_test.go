package api_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestServer_SinceWords: since and until take journalctl's words over HTTP
// and MCP as the CLI's flags do. The records are three days old and a
// minute old, on either side of yesterday's midnight whenever the test
// runs.
func TestServer_SinceWords(t *testing.T) {
	m := mustServeMCP(t)
	now := time.Now()
	logtest.MustAppend(t, m.Log,
		oplog.Record{Level: oplog.LevelInfo, Text: "old", Time: now.Add(-72 * time.Hour)},
		oplog.Record{Level: oplog.LevelInfo, Text: "new", Time: now.Add(-time.Minute)},
	)
	for _, tt := range []struct{ query, want string }{
		{"since=yesterday", "new"},
		{"until=yesterday", "old"},
		{"since=-2d&until=-1h", ""},
		{"since=" + url.QueryEscape("2 days ago"), "new"},
		{"since=" + url.QueryEscape(now.Add(-80*time.Hour).Format("2006-01-02 15:04")), "new,old"},
	} {
		t.Run("HTTP/"+tt.query, func(t *testing.T) {
			p := mustCall[pageAnswer](m.harness, http.MethodGet, "/api/v1/records?"+tt.query, "", http.StatusOK)
			if got := texts(p.Records); got != tt.want {
				t.Errorf("records?%s = %q, want %q", tt.query, got, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"since": "yesterday"}, "new"},
		{map[string]any{"until": "yesterday"}, "old"},
		{map[string]any{"since": "-2d", "until": "+1h"}, "new"},
	} {
		l := call[logs](t, m, "get_logs", tt.args)
		if got := summaryTexts(l.Logs); got != tt.want {
			t.Errorf("get_logs(%v) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
