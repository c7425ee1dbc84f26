package api_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/agentload"
)

// The checks of the agent budgets (answer sizes and counts), on the store of TestAgentBudgets.

// checkToolsList: tools/list ≤ 16 KB.
func checkToolsList(t *testing.T, s *agentStore) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	list, err := s.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := jsonSize(t, list); n > toolsListBudget {
		t.Errorf("tools/list (%d tools) is %d bytes, want ≤ %d", len(list.Tools), n, toolsListBudget)
	}
}

// readToolArgs are the arguments a read tool needs (its required ones); the others take none.
func readToolArgs(s *agentStore) map[string]map[string]any {
	return map[string]map[string]any{
		"get_logs_by_name": {"log_name": "Inventory"},
		"get_log_by_name":  {"log_name": "Inventory"},
		"get_log_details":  {"log_id": s.facts.LongLast},
		"get_result":       {"log_id": s.facts.OpID},
	}
}

// checkReadToolsDefault: every read tool with default arguments ≤ 32 KB.
func checkReadToolsDefault(t *testing.T, s *agentStore) {
	args := readToolArgs(s)
	names := make([]string, 0, len(s.tools))
	for name, tool := range s.tools {
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) < 10 {
		t.Fatalf("only %d read tools: %v", len(names), names)
	}
	for _, name := range names {
		res, n := s.callSized(t, name, args[name])
		if res.IsError {
			t.Errorf("%s %v: error %s (readToolArgs lists the arguments a read tool needs)", name, args[name], resultText(res))
			continue
		}
		if n > defaultBudget {
			t.Errorf("%s %v with default arguments: %d bytes, want ≤ %d", name, args[name], n, defaultBudget)
		}
	}
}

// checkNoAnswerOver64KB: no answer > 64 KB unless the budget was raised;
// a raised budget is kept, up to the documented maximum.
func checkNoAnswerOver64KB(t *testing.T, s *agentStore) {
	f := s.facts
	calls := []struct {
		name string
		args map[string]any
	}{
		{"console_tail", map[string]any{"limit": 1000, "sinceId": 0}},
		{"console_tail", map[string]any{"limit": 1000}},
		{"console_tail", map[string]any{"limit": 1000, "sinceId": f.FloodFirst - 1, "collapse": false, "stacks": true}},
		{"get_logs", map[string]any{"count": 1000}},
		{"get_logs", map[string]any{"count": 1000, "collapse": false, "stacks": true}},
		{"get_logs_by_name", map[string]any{"log_name": "Inventory", "limit": 1000}},
		{"get_log_by_name", map[string]any{"log_name": "Inventory", "limit": 1000}},
		{"search_logs", map[string]any{"query": "level:info", "limit": 500}},
		{"search_logs", map[string]any{"query": "Inventory", "limit": 500}},
		{"find_crashes", map[string]any{"limit": 1000}},
		{"list_log_names", map[string]any{"limit": 1000}},
		{"get_log_details", map[string]any{"log_id": f.HugeCrashID}},
		{"help", nil},
		{"help", map[string]any{"tool": "search_logs"}},
	}
	for _, c := range calls {
		res, n := s.callSized(t, c.name, c.args)
		if res.IsError {
			t.Errorf("%s %v: error %s", c.name, c.args, resultText(res))
		} else if n > hardBudget {
			t.Errorf("%s %v: %d bytes, want ≤ %d", c.name, c.args, n, hardBudget)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	console, err := s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcplogd://console"})
	if err != nil {
		t.Fatal(err)
	}
	if n := jsonSize(t, console); n > defaultBudget {
		t.Errorf("resources/read mcplogd://console: %d bytes, want ≤ %d", n, defaultBudget)
	}
	prompt, err := s.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "triage"})
	if err != nil {
		t.Fatal(err)
	}
	if n := jsonSize(t, prompt); n > defaultBudget {
		t.Errorf("prompts/get triage: %d bytes, want ≤ %d", n, defaultBudget)
	}
	const maxBudget = 256 << 10
	for _, raised := range []int{128 << 10, 10 << 20} {
		args := map[string]any{"limit": 1000, "sinceId": 0, "maxBytes": raised}
		res, n := s.callSized(t, "console_tail", args)
		if want := min(raised, maxBudget); res.IsError || n > want || n <= hardBudget {
			t.Errorf("console_tail %v: %d bytes (error %v), want in (%d, %d]", args, n, res.IsError, hardBudget, want)
		}
	}
}

// entry is a list entry as the tools write it: a record, or with repeat
// the identical records id to lastId.
type entry struct {
	ID     uint64 `json:"id"`
	Repeat int    `json:"repeat"`
	LastID uint64 `json:"lastId"`
}

// entries decodes the list under key of an answer.
func entries(t *testing.T, v map[string]any, key string) []entry {
	t.Helper()
	var es []entry
	remarshal(t, v[key], &es)
	return es
}

// records counts the records entries stand for.
func records(es []entry) int {
	n := 0
	for _, e := range es {
		n += max(e.Repeat, 1)
	}
	return n
}

// checkSaysMore: each answer says when more exists.
func checkSaysMore(t *testing.T, s *agentStore) {
	tail, _ := s.callJSON(t, "console_tail", map[string]any{"format": "json"})
	if n, skipped := records(entries(t, tail, "lines")), num(tail["skipped"]); n+int(skipped) != 200 {
		t.Errorf("console_tail {}: %d lines + skipped %v, want the default 200", n, skipped)
	}
	tail, _ = s.callJSON(t, "console_tail", map[string]any{"limit": 1000, "sinceId": 0, "format": "json"})
	if es := entries(t, tail, "lines"); tail["more"] != true || len(es) == 0 || num(tail["lastId"]) != float64(max(es[len(es)-1].LastID, es[len(es)-1].ID)) {
		t.Errorf("console_tail {limit:1000, sinceId:0}: more %v lastId %v after %d entries, want more and the last entry's ID", tail["more"], tail["lastId"], len(es))
	}
	logs, _ := s.callJSON(t, "get_logs", map[string]any{"count": 1000, "format": "json"})
	if n := records(entries(t, logs, "logs")); logs["more"] != true || num(logs["nextOffset"]) != float64(n) || num(logs["total"]) != float64(s.facts.LastID) {
		t.Errorf("get_logs {count:1000}: %d records, more %v nextOffset %v total %v; want more, nextOffset %d, total %d",
			n, logs["more"], logs["nextOffset"], logs["total"], n, s.facts.LastID)
	}
	hits, _ := s.callJSON(t, "search_logs", map[string]any{"query": "level:info", "limit": 500})
	if hits["more"] != true || hits["nextCursor"] == nil || hits["nextCursor"] == "" {
		t.Errorf("search_logs level:info: more %v nextCursor %v, want both", hits["more"], hits["nextCursor"])
	}
	crashes, _ := s.callJSON(t, "find_crashes", map[string]any{"limit": 1})
	if crashes["more"] != true {
		t.Errorf("find_crashes {limit:1} of %v groups: more %v, want true", crashes["total"], crashes["more"])
	}
	byName, _ := s.callJSON(t, "get_logs_by_name", map[string]any{"log_name": "Inventory", "limit": 1000})
	if byName["more"] != true {
		t.Errorf("get_logs_by_name Inventory: more %v, want true", byName["more"])
	}
}

// checkTailPaging: paging console_tail with sinceId over the flood and the
// long lines accounts for every line exactly once, collapsed entries
// counting their repeats.
func checkTailPaging(t *testing.T, s *agentStore) {
	f := s.facts
	start := slices.Index(f.Lines, f.FloodFirst) - 50
	want := f.Lines[start+1:]
	covered := map[uint64]bool{}
	since, flood := f.Lines[start], false
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatalf("no end after 100 pages (at sinceId %d)", since)
		}
		tail, n := s.callJSON(t, "console_tail", map[string]any{"sinceId": since, "limit": 1000, "format": "json"})
		if n > defaultBudget {
			t.Errorf("page %d: %d bytes, want ≤ %d", page, n, defaultBudget)
		}
		es := entries(t, tail, "lines")
		for _, e := range es {
			ids := []uint64{e.ID}
			if e.Repeat > 1 {
				lo, hi := slices.Index(f.Lines, e.ID), slices.Index(f.Lines, e.LastID)
				if lo < 0 || hi < lo || hi-lo+1 != e.Repeat {
					t.Fatalf("entry %d repeat %d lastId %d: not %d lines in a row", e.ID, e.Repeat, e.LastID, e.Repeat)
				}
				ids = f.Lines[lo : hi+1]
			}
			flood = flood || e.ID == f.FloodFirst && e.LastID == f.FloodLast && e.Repeat == agentload.FloodLen
			for _, id := range ids {
				if covered[id] || id <= since {
					t.Fatalf("page %d (sinceId %d): line %d again", page, since, id)
				}
				covered[id] = true
			}
		}
		last := uint64(num(tail["lastId"]))
		if len(es) == 0 || last <= since {
			t.Fatalf("page %d (sinceId %d): no progress (lastId %d, %d entries)", page, since, last, len(es))
		}
		since = last
		if tail["more"] != true {
			break
		}
	}
	if !flood {
		t.Errorf("the flood (lines %d to %d) did not come as one entry with repeat %d", f.FloodFirst, f.FloodLast, agentload.FloodLen)
	}
	for _, id := range want {
		if !covered[id] {
			t.Fatalf("line %d never came (%d of %d lines did)", id, len(covered), len(want))
		}
	}
	if len(covered) != len(want) {
		t.Errorf("%d lines came, want %d", len(covered), len(want))
	}
}

// checkNewestCrash: the newest crash with its whole stack in ≤ 2 calls and
// ≤ 4 KB from a cold start: find_crashes {limit:1}, then get_log_details
// of its newest occurrence unless the first answer holds the stack.
func checkNewestCrash(t *testing.T, s *agentStore) {
	f := s.facts
	crashes, n := s.callJSON(t, "find_crashes", map[string]any{"limit": 1})
	calls, total := 1, n
	if id := newestOccurrence(t, crashes); id != f.NewestCrashID {
		t.Errorf("find_crashes {limit:1}: newest occurrence %d, want %d", id, f.NewestCrashID)
	}
	if !hasString(crashes, f.NewestCrashStack) {
		details, m := s.callJSON(t, "get_log_details", map[string]any{"log_id": newestOccurrence(t, crashes)})
		calls, total = 2, total+m
		if details["stack"] != f.NewestCrashStack {
			t.Errorf("get_log_details %d: stack %q, want the whole stack", f.NewestCrashID, details["stack"])
		}
	}
	if total > crashBudget {
		t.Errorf("the newest crash took %d calls and %d bytes, want ≤ %d bytes", calls, total, crashBudget)
	}
}

// checkWildcardCase: bossfi* and BossFi* find the same records (the lines with BossFight).
func checkWildcardCase(t *testing.T, s *agentStore) {
	lower, upper := searchIDs(t, s, "bossfi*"), searchIDs(t, s, "BossFi*")
	want := slices.Clone(s.facts.BossFight)
	slices.Sort(want)
	if !slices.Equal(lower, want) || !slices.Equal(upper, want) {
		t.Errorf("bossfi* found %d records, BossFi* %d; want the %d lines with BossFight", len(lower), len(upper), len(want))
	}
}

// searchIDs pages through search_logs with query and returns the hits' IDs, sorted.
func searchIDs(t *testing.T, s *agentStore, query string) []uint64 {
	var ids []uint64
	args := map[string]any{"query": query, "limit": 500, "format": "json"}
	for page := 0; ; page++ {
		if page > 50 {
			t.Fatalf("search %q: no end after 50 pages", query)
		}
		v, _ := s.callJSON(t, "search_logs", args)
		for _, e := range entries(t, v, "hits") {
			ids = append(ids, e.ID)
		}
		c, _ := v["nextCursor"].(string)
		if c == "" {
			break
		}
		args["cursor"] = c
	}
	slices.Sort(ids)
	return ids
}

// checkLevelBogus: level:bogus in a query is an error that lists the levels.
func checkLevelBogus(t *testing.T, s *agentStore) {
	res, _ := s.callSized(t, "search_logs", map[string]any{"query": "level:bogus"})
	if !res.IsError {
		t.Fatalf("search_logs level:bogus: %s, want an error", oneLine(resultText(res), 200))
	}
	msg := resultText(res)
	for _, w := range []string{"bogus", "debug", "info", "warn", "error", "fatal"} {
		if !strings.Contains(msg, w) {
			t.Errorf("search_logs level:bogus: message %q does not say %q", msg, w)
		}
	}
	if v, _ := s.callJSON(t, "search_logs", map[string]any{"query": "level:fatal", "format": "json"}); len(entries(t, v, "hits")) != 1 {
		t.Errorf("search_logs level:fatal: %v hits, want the newest crash", v["total"])
	}
}

// checkDetailsAround: get_log_details {around: 3} of a crash shows the
// three records of its source before and after it.
func checkDetailsAround(t *testing.T, s *agentStore) {
	f := s.facts
	v, _ := s.callJSON(t, "get_log_details", map[string]any{"log_id": f.AroundCrashID, "around": 3})
	if stack, _ := v["stack"].(string); uint64(num(v["id"])) != f.AroundCrashID || !strings.Contains(stack, "EnemyAI.UpdateTarget") {
		t.Errorf("get_log_details %d: id %v, stack %v", f.AroundCrashID, v["id"], v["stack"])
	}
	got := arrayIDs(v)
	got = slices.DeleteFunc(got, func(id uint64) bool { return id == f.AroundCrashID })
	want := append(slices.Clone(f.Before), f.After...)
	if !slices.Equal(got, want) {
		t.Errorf("get_log_details %d around 3: records %v, want %v (before) and %v (after)", f.AroundCrashID, got, f.Before, f.After)
	}
}

// checkOperationLines: get_result and get_log_details of an operation show
// the lines its source wrote while it ran (the first of them at least; a
// count and a way to page the rest may stand for others), not other sources' lines.
func checkOperationLines(t *testing.T, s *agentStore) {
	f := s.facts
	for _, name := range []string{"get_result", "get_log_details"} {
		v, _ := s.callJSON(t, name, map[string]any{"log_id": f.OpID})
		got := arrayIDs(v)
		if len(got) == 0 || got[0] != f.OpLines[0] {
			t.Errorf("%s %d: lines %v, want the operation's lines from %d (%v)", name, f.OpID, got, f.OpLines[0], f.OpLines)
		}
		for _, id := range got {
			if !slices.Contains(f.OpLines, id) {
				t.Errorf("%s %d: line %d is not one its source wrote while it ran (%v; others %v)", name, f.OpID, id, f.OpLines, f.OpOthers)
			}
		}
	}
}

// arrayIDs are the IDs of every object in an array anywhere in v, sorted, without duplicates.
func arrayIDs(v any) []uint64 {
	var ids []uint64
	var walk func(v any, inArray bool)
	walk = func(v any, inArray bool) {
		switch x := v.(type) {
		case map[string]any:
			if id, ok := x["id"].(float64); ok && inArray {
				ids = append(ids, uint64(id))
			}
			for _, e := range x {
				walk(e, false)
			}
		case []any:
			for _, e := range x {
				walk(e, true)
			}
		}
	}
	walk(v, false)
	slices.Sort(ids)
	return slices.Compact(ids)
}

// hasString reports whether v holds a string containing s anywhere.
func hasString(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, s)
	case map[string]any:
		for _, e := range x {
			if hasString(e, s) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasString(e, s) {
				return true
			}
		}
	}
	return false
}

// num is a JSON number, or 0.
func num(v any) float64 {
	f, _ := v.(float64)
	return f
}

// remarshal decodes the generic JSON value v into into.
func remarshal(t *testing.T, v, into any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, into)
	}
	if err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}
