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
	"github.com/mcplogd/mcplogd/api/apitest"
	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/agentload"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// The answers' byte budgets, in bytes of a whole answer serialized as JSON.
const (
	toolsListBudget = 16 << 10 // tools/list
	defaultBudget   = 32 << 10 // a read tool with default arguments
	hardBudget      = 64 << 10 // any answer, unless maxBytes was raised
	crashBudget     = 4 << 10  // the newest crash with its whole stack, from a cold start
)

// agentStore is the realistic store of an agent's day served over HTTP, with a
// go-sdk client connected to its MCP endpoint.
type agentStore struct {
	*mcpHarness
	facts *agentload.Facts
}

// mustServeAgentStore fills a store with agentload's seeded records, attaches
// a search index and a crash index as cmd does, waits until the index has
// read everything (answers are exact either way; waiting makes the sizes
// the same from run to run) and connects a client.
func mustServeAgentStore(t *testing.T) *agentStore {
	t.Helper()
	var facts *agentload.Facts
	h := mustServe(t, &harnessOptions{Setup: func(l *oplog.Log, db *store.DB, _ *api.Options) {
		var err error
		if facts, err = agentload.Fill(t.Context(), l, agentload.Seed); err != nil {
			t.Fatalf("fill: %v", err)
		}
		idx, err := search.Open(filepath.Join(t.TempDir(), "index"), db, &search.Options{Changed: l.Changed})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = idx.Close() })
		l.SetIndex(idx)
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		if err := idx.WaitIndexed(ctx, l.Stats().LastID, nil); err != nil {
			t.Fatal(err)
		}
		cr := crash.New(l, nil)
		t.Cleanup(func() { _ = cr.Close() })
		l.SetCrashes(cr)
	}})
	return &agentStore{mcpHarness: mustConnect(t, h, nil), facts: facts}
}

// callSized calls a tool and returns its result (success or tool error)
// and its size: the whole tools/call result as JSON, as an agent receives it.
func (s *agentStore) callSized(t *testing.T, name string, args map[string]any) (*mcp.CallToolResult, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	return res, jsonSize(t, res)
}

// callJSON calls a tool that must succeed and returns its structuredContent
// decoded into a generic value, and the answer's size.
func (s *agentStore) callJSON(t *testing.T, name string, args map[string]any) (map[string]any, int) {
	t.Helper()
	res, n := s.callSized(t, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): tool error %s", name, args, resultText(res))
	}
	var v map[string]any
	if err := json.Unmarshal(apitest.CheckToolResult(t, name, res, s.tools[name].OutputSchema), &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v, n
}

func jsonSize(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// resultText is the text of a result's first text block.
func resultText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// budgetRow is one row of the table: a call and its size.
type budgetRow struct {
	call  string
	bytes int
	note  string
}

// budgetTable measures the budget table (and a few more calls) on s.
func budgetTable(t *testing.T, s *agentStore) []budgetRow {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	list, err := s.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := []budgetRow{{call: fmt.Sprintf("`tools/list` (%d tools)", len(list.Tools)), bytes: jsonSize(t, list)}}
	row := func(call, name string, args map[string]any) {
		res, n := s.callSized(t, name, args)
		r := budgetRow{call: call, bytes: n}
		if res.IsError {
			r.note = "error: " + oneLine(resultText(res), 80)
		}
		rows = append(rows, r)
	}
	row("`console_tail {}`", "console_tail", nil)
	row(`console_tail {source:"`+s.facts.ShortSource+`"} (short lines only)`, "console_tail", map[string]any{"source": s.facts.ShortSource})
	row("`console_tail {limit:1000, sinceId:0}`", "console_tail", map[string]any{"limit": 1000, "sinceId": 0})
	row("`get_logs {count:1000}`", "get_logs", map[string]any{"count": 1000})
	row("`search_logs {query:\"level:info\", limit:500}`", "search_logs", map[string]any{"query": "level:info", "limit": 500})
	row("`search_logs {query:\"NullReferenceException\"}`", "search_logs", map[string]any{"query": "NullReferenceException"})
	row("`help {}`", "help", nil)
	crashes, n := s.callJSON(t, "find_crashes", map[string]any{"limit": 1})
	_, m := s.callSized(t, "get_log_details", map[string]any{"log_id": newestOccurrence(t, crashes)})
	rows = append(rows, budgetRow{call: "`find_crashes {limit:1}` + `get_log_details` of its newest", bytes: n + m,
		note: fmt.Sprintf("%d + %d", n, m)})
	// Beyond the first table's rows.
	row("`get_logs {}`", "get_logs", nil)
	row("`find_crashes {}`", "find_crashes", nil)
	row("`get_logs_by_name {log_name:\"Inventory\", limit:1000}`", "get_logs_by_name", map[string]any{"log_name": "Inventory", "limit": 1000})
	row("`get_log_details` of a crash with a 200 KB stack", "get_log_details", map[string]any{"log_id": s.facts.HugeCrashID})
	row("`get_result` of an operation", "get_result", map[string]any{"log_id": s.facts.OpID})
	res, err := s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcplogd://console"})
	if err != nil {
		t.Fatal(err)
	}
	return append(rows, budgetRow{call: "resources/read `mcplogd://console`", bytes: jsonSize(t, res)})
}

// newestOccurrence is the newest occurrence's ID in find_crashes' first group.
func newestOccurrence(t *testing.T, crashes map[string]any) uint64 {
	t.Helper()
	groups, _ := crashes["groups"].([]any)
	if len(groups) == 0 {
		t.Fatalf("find_crashes: no group in %v", crashes)
	}
	g, _ := groups[0].(map[string]any)
	for _, k := range []string{"newestId", "lastId"} {
		if id, ok := g[k].(float64); ok && id > 0 {
			return uint64(id)
		}
	}
	t.Fatalf("find_crashes: no newest occurrence's ID (newestId or lastId) in %v", g)
	return 0
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// TestAgentBudgets measures and checks, on the realistic store
// (internal/harness/agentload) through the go-sdk client over HTTP, what an
// agent's calls cost: `go test ./api -run TestAgentBudgets -v` prints the
// table (docs/benchmarks.md, "What it costs, before and after"), and the
// subtests check each budget that docs/mcp.md promises.
func TestAgentBudgets(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a store of 20,000 records")
	}
	s := mustServeAgentStore(t)
	t.Run("Table", func(t *testing.T) {
		var b strings.Builder
		fmt.Fprintf(&b, "\n| call | bytes | |\n|---|---:|---|\n")
		for _, r := range budgetTable(t, s) {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", r.call, thousands(r.bytes), r.note)
		}
		t.Logf("store: %d records (%d lines, %d crashes, %d operations)%s", s.facts.LastID, len(s.facts.Lines),
			s.facts.Crashes, s.facts.Ops, b.String())
	})
	t.Run("ToolsList", func(t *testing.T) { checkToolsList(t, s) })
	t.Run("ReadToolsDefault", func(t *testing.T) { checkReadToolsDefault(t, s) })
	t.Run("NoAnswerOver64KB", func(t *testing.T) { checkNoAnswerOver64KB(t, s) })
	t.Run("SaysWhenMoreExists", func(t *testing.T) { checkSaysMore(t, s) })
	t.Run("TailPagingLossless", func(t *testing.T) { checkTailPaging(t, s) })
	t.Run("NewestCrashColdStart", func(t *testing.T) { checkNewestCrash(t, s) })
	t.Run("WildcardCase", func(t *testing.T) { checkWildcardCase(t, s) })
	t.Run("LevelBogus", func(t *testing.T) { checkLevelBogus(t, s) })
	t.Run("DetailsAround", func(t *testing.T) { checkDetailsAround(t, s) })
	t.Run("OperationLines", func(t *testing.T) { checkOperationLines(t, s) })
	t.Run("TailDefault", func(t *testing.T) { checkTailDefault(t, s) })
	t.Run("EachRecordOnce", func(t *testing.T) { checkEachRecordOnce(t, s) })
}

// thousands writes n with commas, as the docs' tables do.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
