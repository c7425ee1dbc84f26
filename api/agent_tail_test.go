package api_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/agentload"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// tailBudget is what the default console_tail may take on the agent store.
const tailBudget = 16 << 10

// entryIDs are the first IDs of the entries of a text block ("#12 …",
// "#12..#40 ×29 …"), in order.
var entryIDs = regexp.MustCompile(`(?m)^#(\d+)`)

// firstTextID is the first entry's ID in a text block, 0 without entries.
func firstTextID(t *testing.T, text string) uint64 {
	t.Helper()
	m := entryIDs.FindStringSubmatch(text)
	if m == nil {
		return 0
	}
	id, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// structured decodes a result's structuredContent.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	var v map[string]any
	remarshal(t, res.StructuredContent, &v)
	return v
}

// checkTailDefault: the default console_tail {} takes ≤ 16 KB and covers
// at least the lines (up to the same lastId) that the answer of before
// covered: every entry in the text block and again in structuredContent,
// nothing collapsed, 32 KB. Read on from before the flood, the flood is
// one ×600 line (limit counts records: 1000, past the default 200).
func checkTailDefault(t *testing.T, s *agentStore) {
	res, n := s.callSized(t, "console_tail", nil)
	lean := structured(t, res)
	if _, ok := lean["lines"]; ok {
		t.Errorf("console_tail {}: structuredContent holds the lines, want them in the text block alone")
	}
	if n > tailBudget {
		t.Errorf("console_tail {}: %d bytes, want ≤ %d", n, tailBudget)
	}
	before, m := s.callJSON(t, "console_tail", map[string]any{"format": "json", "collapse": false, "maxBytes": 32 << 10})
	old := entries(t, before, "lines")
	text := resultText(res)
	kept := len(entryIDs.FindAllString(text, -1))
	if len(old) == 0 || num(lean["lastId"]) != num(before["lastId"]) || firstTextID(t, text) > old[0].ID {
		t.Fatalf("console_tail {}: lines from #%d to %v, want at least from #%d to %v as before", firstTextID(t, text),
			lean["lastId"], old[0].ID, before["lastId"])
	}
	t.Logf("console_tail {}: %d bytes for %d entries (%d a line); before (each entry twice, 32 KB): %d bytes for %d (%d a line)",
		n, kept, n/max(kept, 1), m, len(old), m/len(old))

	f := s.facts
	since := f.Lines[slices.Index(f.Lines, f.FloodFirst)-1]
	res, n = s.callSized(t, "console_tail", map[string]any{"sinceId": since, "limit": 1000})
	flood := fmt.Sprintf("#%d..#%d ×%d ", f.FloodFirst, f.FloodLast, agentload.FloodLen)
	if text := resultText(res); !strings.Contains(text, flood) || n > tailBudget {
		t.Errorf("console_tail {sinceId: %d, limit: 1000}: %d bytes, want ≤ %d with the flood as %q:\n%.600s", since, n, tailBudget, flood, text)
	}
}

// TestMCP_ConsoleTail_TemplateRun: 168 lines in a row that differ only in
// their numbers and addresses are one entry ×168 in console_tail and
// get_logs, with their IDs, template and the first text; polled with
// sinceId in pages of 50 records, every line is covered once.
func TestMCP_ConsoleTail_TemplateRun(t *testing.T) {
	m := mustServeMCP(t)
	logtest.MustAppend(t, m.Log, oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "Net", Text: "connected"})
	var flood []oplog.Record
	for i := range 168 {
		flood = append(flood, oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "Net",
			Text: fmt.Sprintf("Snapshot %d sent to peer 10.0.0.%d:7777", 1000+i, i%7)})
	}
	got := logtest.MustAppend(t, m.Log, flood...)
	first, last := got[0].ID, got[len(got)-1].ID
	logtest.MustAppend(t, m.Log, oplog.Record{Level: oplog.LevelWarn, Source: "unity", Name: "Net", Text: "peer 10.0.0.3:7777 timed out"})

	const tmpl = "Snapshot <N> sent to peer <IP>"
	text := m.callText(t, "console_tail", map[string]any{})
	want := fmt.Sprintf("#%d..#%d ×168 ", first, last)
	if !strings.Contains(text, want) || !strings.Contains(text, tmpl+" | first: Snapshot 1000 sent to peer 10.0.0.0:7777") ||
		strings.Count(text, "\n#") != 3 {
		t.Errorf("console_tail {}: want 3 entries, the run as %q with its template and first text:\n%s", want, text)
	}
	var tl struct {
		Lines []struct {
			ID       uint64 `json:"id"`
			Repeat   int    `json:"repeat"`
			LastID   uint64 `json:"lastId"`
			Template string `json:"template"`
			Text     string `json:"text"`
		} `json:"lines"`
	}
	res, b := m.callRaw(t, "console_tail", map[string]any{"format": "json"})
	if err := json.Unmarshal(b, &tl); err != nil || res.IsError || len(tl.Lines) != 3 {
		t.Fatalf("console_tail {format: json}: %v %s", err, b)
	}
	if e := tl.Lines[1]; e.ID != first || e.LastID != last || e.Repeat != 168 || e.Template != tmpl || e.Text != flood[0].Text {
		t.Errorf("the run's entry = %+v, want #%d..#%d ×168 %q", e, first, last, tmpl)
	}
	if text := m.callText(t, "get_logs", map[string]any{"count": 200}); !strings.Contains(text, fmt.Sprintf("#%d..#%d ×168 ", last, first)) ||
		!strings.Contains(text, tmpl+" | first: "+flood[167].Text) {
		t.Errorf("get_logs {count: 200}: the run not as one entry, newest first:\n%s", text)
	}

	covered := map[uint64]int{}
	since := first - 1
	for page := 0; since < last; page++ {
		if page > 10 {
			t.Fatalf("no end after 10 pages (at sinceId %d)", since)
		}
		res, b := m.callRaw(t, "console_tail", map[string]any{"sinceId": since, "limit": 50, "format": "json"})
		if err := json.Unmarshal(b, &tl); err != nil || res.IsError || len(tl.Lines) == 0 {
			t.Fatalf("sinceId %d: %v %s", since, err, b)
		}
		for _, e := range tl.Lines {
			for id := e.ID; id <= max(e.ID, e.LastID); id++ {
				covered[id]++
			}
		}
		var v struct {
			LastID uint64 `json:"lastId"`
		}
		_ = json.Unmarshal(b, &v)
		since = v.LastID
	}
	for id := first; id <= last; id++ {
		if covered[id] != 1 {
			t.Errorf("line %d covered %d times, want once", id, covered[id])
		}
	}
}

// checkEachRecordOnce: console_tail, get_logs and search_logs send each
// entry once by default (its line in the text block), about half the
// bytes an entry took with format json (the text block and
// structuredContent both carrying it, as every answer did before).
func checkEachRecordOnce(t *testing.T, s *agentStore) {
	for _, c := range []struct {
		tool, key string
		args      map[string]any
	}{
		{"console_tail", "lines", map[string]any{"sinceId": 0, "limit": 1000, "maxBytes": 32 << 10}},
		{"get_logs", "logs", map[string]any{"count": 1000}},
		{"search_logs", "hits", map[string]any{"query": "level:info", "limit": 500}},
	} {
		res, n := s.callSized(t, c.tool, c.args)
		once := len(entryIDs.FindAllString(resultText(res), -1))
		if _, ok := structured(t, res)[c.key]; ok || once == 0 {
			t.Errorf("%s %v: %d entries in the text block, %s in structuredContent: want them in the text block alone", c.tool, c.args, once, c.key)
			continue
		}
		args := map[string]any{"format": "json"}
		for k, v := range c.args {
			args[k] = v
		}
		twice, m := s.callJSON(t, c.tool, args)
		es := len(entries(t, twice, c.key))
		if es == 0 {
			t.Fatalf("%s %v: no entries", c.tool, args)
		}
		t.Logf("%s %v: %d bytes for %d entries (%d an entry); with format json %d bytes for %d (%d an entry)",
			c.tool, c.args, n, once, n/once, m, es, m/es)
		if n/once > m/es*6/10 {
			t.Errorf("%s: %d bytes an entry, want at most 60%% of the %d of format json", c.tool, n/once, m/es)
		}
	}
}
