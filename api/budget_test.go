package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// budgetStore is what mustServeBudget seeded, oldest first.
type budgetStore struct {
	*mcpHarness
	ids   []uint64 // every record's ID
	long  []uint64 // the long lines' IDs (text "kaboom …", 3 KB, with a 3 KB stack)
	flood []uint64 // the 600 identical warnings
	names int      // distinct (source, name) pairs
}

// mustServeBudget serves a store with a full-text index and lines that
// make answers large: 100 short lines, a flood of 600 identical
// warnings, 200 long lines with long stacks, 300 lines of distinct names,
// and 50 short lines.
func mustServeBudget(t *testing.T) *budgetStore {
	t.Helper()
	h := mustServe(t, &harnessOptions{Setup: func(l *oplog.Log, db *store.DB, _ *api.Options) {
		idx, err := search.Open(filepath.Join(t.TempDir(), "index"), db, &search.Options{Changed: l.Changed, Interval: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		l.SetIndex(idx)
	}})
	var recs []oplog.Record
	short := func(n int, prefix string) {
		for i := range n {
			recs = append(recs, oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "Game", Text: fmt.Sprintf("%s %d", prefix, i)})
		}
	}
	short(100, "early")
	for range 600 {
		recs = append(recs, oplog.Record{Level: oplog.LevelWarn, Source: "unity", Name: "Shader", Text: "Shader warning: 'Hidden/Flood' uses a deprecated keyword"})
	}
	for i := range 200 {
		recs = append(recs, oplog.Record{Level: oplog.LevelError, Source: "unity", Name: "Long",
			Text:  fmt.Sprintf("kaboom %d é ", i) + strings.Repeat("long text é ", 250),
			Stack: strings.Repeat(fmt.Sprintf("at Game.Update () [0x%04x] in Assets/Game.cs:%d é\n", i, i), 60)})
	}
	for i := range 300 {
		recs = append(recs, oplog.Record{Level: oplog.LevelDebug, Source: "engine", Name: fmt.Sprintf("Subsystem%03d", i), Text: "up"})
	}
	short(50, "late")
	recs = logtest.MustAppend(t, h.Log, recs...)
	s := &budgetStore{mcpHarness: mustConnect(t, h, nil), names: 2 + 1 + 300}
	for i, r := range recs {
		s.ids = append(s.ids, r.ID)
		switch {
		case i >= 100 && i < 700:
			s.flood = append(s.flood, r.ID)
		case i >= 700 && i < 900:
			s.long = append(s.long, r.ID)
		}
	}
	return s
}

// listEntry is an entry of get_logs, search_logs or console_tail.
type listEntry struct {
	ID         uint64 `json:"id"`
	Text       string `json:"text"`
	TextChars  int    `json:"textChars"`
	HasStack   bool   `json:"hasStack"`
	Stack      string `json:"stack"`
	StackBytes int    `json:"stackBytes"`
	Repeat     int    `json:"repeat"`
	OldestID   uint64 `json:"oldestId"`
	LastID     uint64 `json:"lastId"`
}

type logsPage struct {
	Logs       []listEntry `json:"logs"`
	Count      int         `json:"count"`
	Offset     int         `json:"offset"`
	Total      int64       `json:"total"`
	More       bool        `json:"more"`
	NextOffset int         `json:"nextOffset"`
}

// covered counts, in seen, the records an entry of a newest-first list
// stands for: id alone, or every seeded ID from oldestId to id.
func (s *budgetStore) covered(t *testing.T, seen map[uint64]int, e listEntry) int {
	t.Helper()
	if e.Repeat == 0 {
		seen[e.ID]++
		return 1
	}
	n := 0
	for _, id := range s.ids {
		if id >= e.OldestID && id <= e.ID {
			seen[id]++
			n++
		}
	}
	if n != e.Repeat {
		t.Errorf("entry %d..%d: repeat %d, covers %d records", e.ID, e.OldestID, e.Repeat, n)
	}
	return n
}

// everyOnce checks that seen holds each of want exactly once, and no other.
func everyOnce(t *testing.T, what string, seen map[uint64]int, want []uint64) {
	t.Helper()
	for _, id := range want {
		if seen[id] != 1 {
			t.Errorf("%s: record %d seen %d times, want once", what, id, seen[id])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%s: %d records seen, want %d", what, len(seen), len(want))
	}
}

func TestMCP_GetLogs_Budget(t *testing.T) {
	s := mustServeBudget(t)
	for _, tt := range []struct {
		name   string
		args   map[string]any
		budget int
	}{
		{"Defaults", map[string]any{"count": 1000}, 32 << 10},
		{"Small", map[string]any{"count": 1000, "maxBytes": 8192}, 8192},
		{"NoCollapse", map[string]any{"count": 1000, "maxBytes": 16384, "collapse": false}, 16384},
		{"Stacks", map[string]any{"count": 1000, "stacks": true}, 32 << 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[uint64]int{}
			floods, pages := 0, 0
			for offset := 0; ; pages++ {
				tt.args["offset"] = offset
				p, text := callWithin[logsPage](t, s.mcpHarness, tt.budget, "get_logs", withEntries(tt.args))
				n := 0
				for _, e := range p.Logs {
					n += s.covered(t, seen, e)
					if e.Repeat == 600 {
						floods++
					}
					if !strings.Contains(text, fmt.Sprintf("#%d ", e.ID)) && !strings.Contains(text, fmt.Sprintf("#%d..", e.ID)) {
						t.Errorf("offset %d: entry %d not in the text block", offset, e.ID)
					}
				}
				if n != p.Count || p.Offset != offset || p.Total != int64(len(s.ids)) {
					t.Fatalf("offset %d: count %d offset %d total %d, entries cover %d of %d", offset, p.Count, p.Offset, p.Total, n, len(s.ids))
				}
				if !p.More {
					break
				}
				if p.NextOffset != offset+p.Count || !strings.Contains(text, fmt.Sprintf("more=true: call again with offset=%d", p.NextOffset)) {
					t.Fatalf("offset %d: nextOffset %d, count %d; text %.200q", offset, p.NextOffset, p.Count, text)
				}
				if pages == 0 && p.Count >= 1000 {
					t.Errorf("first page covers %d records: the budget did not stop it", p.Count)
				}
				offset = p.NextOffset
			}
			everyOnce(t, tt.name, seen, s.ids)
			if collapse := tt.args["collapse"] != false; collapse && floods != 1 {
				t.Errorf("%d entries with repeat 600, want the flood as one", floods)
			} else if !collapse && floods != 0 {
				t.Errorf("collapse false: %d entries with repeat 600", floods)
			}
			if pages < 2 {
				t.Errorf("%d pages: the budget never cut one", pages+1)
			}
		})
	}
}

func TestMCP_GetLogs_Stacks(t *testing.T) {
	s := mustServeBudget(t)
	long := s.long[len(s.long)-1]
	args := map[string]any{"name": "Long", "count": 3}
	p, text := callWithin[logsPage](t, s.mcpHarness, 32<<10, "get_logs", withEntries(args))
	if len(p.Logs) != 3 || p.Logs[0].ID != long || !p.Logs[0].HasStack || p.Logs[0].Stack != "" || strings.Contains(text, "\n    at Game") {
		t.Fatalf("without stacks: %+v\n%s", p.Logs, text)
	}
	if p.Logs[0].TextChars <= len([]rune(p.Logs[0].Text)) || !strings.Contains(text, fmt.Sprintf("… [%d chars]", p.Logs[0].TextChars)) {
		t.Errorf("a cut text: textChars %d, text %d characters; text block %.300q", p.Logs[0].TextChars, len([]rune(p.Logs[0].Text)), text)
	}
	args["stacks"] = true
	p, text = callWithin[logsPage](t, s.mcpHarness, 32<<10, "get_logs", withEntries(args))
	rec, err := s.Log.Get(context.Background(), long)
	if err != nil {
		t.Fatal(err)
	}
	e := p.Logs[0]
	if len(e.Stack) > 2048 || len(e.Stack) < 2040 || !strings.HasPrefix(rec.Stack, e.Stack) || e.StackBytes != len(rec.Stack) {
		t.Errorf("with stacks: stack %d bytes, stackBytes %d; the record's is %d", len(e.Stack), e.StackBytes, len(rec.Stack))
	}
	if !strings.Contains(text, "\n    at Game.Update ()") || !strings.Contains(text, fmt.Sprintf("… [%d bytes]", len(rec.Stack))) {
		t.Errorf("with stacks: the text block has no stack lines: %.600q", text)
	}
	tl, text := callWithin[struct {
		Lines []listEntry `json:"lines"`
	}](t, s.mcpHarness, 32<<10, "console_tail", map[string]any{"name": "Long", "limit": 2, "format": "json"})
	if len(tl.Lines) != 2 || tl.Lines[0].Stack != "" || strings.Contains(text, "\n    at Game") {
		t.Errorf("console_tail without stacks: %+v", tl.Lines)
	}
	tl, text = callWithin[struct {
		Lines []listEntry `json:"lines"`
	}](t, s.mcpHarness, 32<<10, "console_tail", map[string]any{"name": "Long", "limit": 2, "stacks": true, "format": "json"})
	if len(tl.Lines) != 2 || tl.Lines[1].ID != long || tl.Lines[1].Stack != e.Stack || tl.Lines[1].StackBytes != len(rec.Stack) ||
		!strings.Contains(text, "\n    at Game.Update ()") {
		t.Errorf("console_tail with stacks: %+v", tl.Lines)
	}
	for _, name := range []string{"get_logs_by_name", "get_log_by_name"} {
		_, text := callWithin[json.RawMessage](t, s.mcpHarness, 32<<10, name, map[string]any{"log_name": "Long", "limit": 2})
		_, stacked := callWithin[json.RawMessage](t, s.mcpHarness, 32<<10, name, map[string]any{"log_name": "Long", "limit": 2, "stacks": true})
		if strings.Contains(text, "\n    at Game") || !strings.Contains(stacked, "\n    at Game") {
			t.Errorf("%s: stacks shown %v without stacks, %v with", name, strings.Contains(text, "\n    at Game"), strings.Contains(stacked, "\n    at Game"))
		}
	}
}

type searchPage struct {
	Hits       []listEntry `json:"hits"`
	Total      int64       `json:"total"`
	More       bool        `json:"more"`
	NextCursor string      `json:"nextCursor"`
}

func TestMCP_SearchLogs_Budget(t *testing.T) {
	s := mustServeBudget(t)
	for _, tt := range []struct {
		name   string
		args   map[string]any
		budget int
	}{
		{"Defaults", map[string]any{"query": "kaboom", "limit": 500}, 32 << 10},
		{"Small", map[string]any{"query": "kaboom", "limit": 500, "maxBytes": 8192}, 8192},
		{"Stacks", map[string]any{"query": "kaboom", "limit": 500, "stacks": true, "maxBytes": 20000}, 20000},
		{"ByLimit", map[string]any{"query": "kaboom", "limit": 7}, 32 << 10},
		{"Filters", map[string]any{"level": "error", "limit": 500, "maxBytes": 10000}, 10000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[uint64]int{}
			pages := 0
			for {
				p, text := callWithin[searchPage](t, s.mcpHarness, tt.budget, "search_logs", withEntries(tt.args))
				pages++
				for _, h := range p.Hits {
					seen[h.ID]++
					if (h.Stack != "") != (tt.args["stacks"] == true) {
						t.Errorf("hit %d: stack %d bytes, stacks %v", h.ID, len(h.Stack), tt.args["stacks"])
					}
				}
				if p.More != (p.NextCursor != "") || p.Total == 0 { // total: an estimate while the index catches up
					t.Fatalf("more %v, nextCursor %q, total %d", p.More, p.NextCursor, p.Total)
				}
				if !p.More {
					break
				}
				if !strings.Contains(text, "more=true: call again with cursor="+p.NextCursor) {
					t.Errorf("text header without the cursor: %.200q", text)
				}
				if pages > len(s.long) {
					t.Fatal("paging does not end")
				}
				tt.args["cursor"] = p.NextCursor
			}
			everyOnce(t, tt.name, seen, s.long)
			if pages < 2 {
				t.Errorf("one page: neither the budget nor the limit cut it")
			}
		})
	}
}

type namesPage struct {
	Names []struct {
		Name   string `json:"name"`
		Source string `json:"source"`
	} `json:"names"`
	Total      int  `json:"total"`
	More       bool `json:"more"`
	NextOffset int  `json:"nextOffset"`
}

func TestMCP_ListLogNames_Budget(t *testing.T) {
	s := mustServeBudget(t)
	for _, budget := range []int{0, 8192} {
		seen := map[string]int{}
		pages := 0
		for offset := 0; ; pages++ {
			args := map[string]any{"offset": offset, "limit": 1000}
			if budget > 0 {
				args["maxBytes"] = budget
			}
			p, text := callWithin[namesPage](t, s.mcpHarness, max(budget, 32<<10), "list_log_names", args)
			for _, n := range p.Names {
				seen[n.Source+"/"+n.Name]++
				if !strings.Contains(text, "\n"+n.Source+"/"+n.Name+" ") {
					t.Errorf("name %s/%s not in the text block", n.Source, n.Name)
				}
			}
			if p.Total != s.names {
				t.Fatalf("total %d, want %d", p.Total, s.names)
			}
			if !p.More {
				break
			}
			if p.NextOffset != offset+len(p.Names) {
				t.Fatalf("offset %d: nextOffset %d after %d names", offset, p.NextOffset, len(p.Names))
			}
			offset = p.NextOffset
		}
		if len(seen) != s.names || pages < 1 {
			t.Errorf("maxBytes %d: %d names seen in %d pages, want %d in more than one", budget, len(seen), pages+1, s.names)
		}
		for n, c := range seen {
			if c != 1 {
				t.Errorf("maxBytes %d: %s seen %d times", budget, n, c)
			}
		}
	}
}

func TestMCP_Resources_Budget(t *testing.T) {
	s := mustServeBudget(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, uri := range []string{"mcplogd://console", "mcplogd://names/Long", "mcplogd://names/Shader"} {
		res, err := s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		b, _ := json.Marshal(res)
		if len(b) > 32<<10 {
			t.Errorf("%s: %d bytes, over the default budget", uri, len(b))
		}
		if len(res.Contents) != 1 || !json.Valid([]byte(res.Contents[0].Text)) || !strings.Contains(res.Contents[0].Text, `"id":`) {
			t.Errorf("%s: %.300s", uri, b)
		}
	}
}

// withEntries is args with format json: the entries in structuredContent,
// which these tests read (by default the text block alone holds them).
func withEntries(args map[string]any) map[string]any {
	out := map[string]any{"format": "json"}
	for k, v := range args {
		out[k] = v
	}
	return out
}
