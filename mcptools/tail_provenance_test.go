package mcptools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestConsoleTail_CollapseWhateverTheProvenance: lines alike but for where
// or when each was read collapse into one entry in console_tail and
// get_logs, whichever way they arrived: the data of each line as the
// follower, an import, the gateway's console mirror and OTLP write it, and
// none (the ingest API). Data that says something else keeps them apart.
func TestConsoleTail_CollapseWhateverTheProvenance(t *testing.T) {
	ways := map[string]func(n int) string{
		"followed": func(n int) string {
			return fmt.Sprintf(`{"file":"/home/dev/.config/unity3d/Co/Game/Player.log","offset":%d,"fileId":"803:1234:9f2c"}`, 100+40*n)
		},
		"imported": func(n int) string { return fmt.Sprintf(`{"file":"Player.log","offset":%d}`, 100+40*n) },
		"mirrored": func(n int) string {
			return fmt.Sprintf(`{"upstreamId":%d,"upstreamRevision":7,"upstreamRun":1}`, 500+n)
		},
		"otlp": func(n int) string {
			return fmt.Sprintf(`{"observedTime":"2026-12-05T10:00:%02d.5Z","severityNumber":9,"resource":{"host.name":"dev"}}`, n)
		},
		"posted": func(int) string { return "" },
	}
	l, _ := logtest.MustOpenLog(t, nil)
	for way, data := range ways {
		var recs []oplog.Record
		for n := range 12 {
			r := oplog.Record{Source: way, Name: "World", Level: oplog.LevelInfo, Text: fmt.Sprintf("Chunk %d,%d streamed in %d ms", n, -n, 3+n%5)}
			if d := data(n); d != "" {
				r.Data = json.RawMessage(d)
			}
			recs = append(recs, r)
		}
		// A line whose data says something else is an entry of its own.
		recs = append(recs, oplog.Record{Source: way, Name: "World", Level: oplog.LevelInfo, Text: "Chunk 99,-99 streamed in 4 ms",
			Data: json.RawMessage(`{"chunkState":"failed"}`)})
		logtest.MustAppend(t, l, recs...)
	}
	cs := connect(t, l)
	for way := range ways {
		for _, tool := range []string{"console_tail", "get_logs"} {
			args := map[string]any{"source": way, "count": 50}
			if tool == "console_tail" {
				args = map[string]any{"source": way}
			}
			text, _, _ := callTool(t, cs, tool, args)
			if !strings.Contains(text, "×12 ") || !strings.Contains(text, "Chunk <N>,<N> streamed in <N> ms") {
				t.Errorf("%s of the %s lines: no ×12 entry\n%s", tool, way, text)
			}
			if !strings.Contains(text, "Chunk 99,-99 streamed in 4 ms") {
				t.Errorf("%s of the %s lines: the line with other data joined the run\n%s", tool, way, text)
			}
		}
	}
}

// TestConsoleTail_SinceIdCutByBudget: reading on from a sinceId, a page the
// byte budget cuts short says more=true and where to go on, and counts no
// line as skipped: the lines not sent are newer, the next page's. Without a
// sinceId, the older lines the budget left out are counted skipped.
func TestConsoleTail_SinceIdCutByBudget(t *testing.T) {
	l, _ := logtest.MustOpenLog(t, nil)
	var recs []oplog.Record
	for n := range 300 {
		recs = append(recs, oplog.Record{Source: "game", Level: oplog.LevelInfo, Text: fmt.Sprintf("line %d %s", n, strings.Repeat("x", 60))})
	}
	logtest.MustAppend(t, l, recs...)
	cs := connect(t, l)
	text, sc, _ := callTool(t, cs, "console_tail", map[string]any{"sinceId": "0", "maxBytes": 4096, "limit": 1000, "collapse": false})
	var out struct {
		More    bool `json:"more"`
		Skipped int  `json:"skipped"`
	}
	if err := json.Unmarshal(sc, &out); err != nil || !out.More || out.Skipped != 0 || strings.Contains(text, "skipped") {
		t.Errorf("from sinceId 0, cut by 4 KB: %v %+v\n%s", err, out, text)
	}
	text, sc, _ = callTool(t, cs, "console_tail", map[string]any{"maxBytes": 4096, "limit": 1000, "collapse": false})
	if err := json.Unmarshal(sc, &out); err != nil || out.Skipped == 0 || !strings.Contains(text, "older lines (maxBytes)") {
		t.Errorf("the newest, cut by 4 KB: %v %+v\n%s", err, out, text)
	}
}
