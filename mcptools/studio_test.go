package mcptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// studioSession serves the tools over an empty local log with a studio of
// impl of two machines: alice-pc crashed twice, ci-7 once with the same
// crash, and each printed lines; ci-7 has an operation, forwarded started
// then completed.
func studioSession(t *testing.T, impl studiotest.Impl, lines int) *mcp.ClientSession {
	t.Helper()
	var rows []oplogtest.StudioRow
	seq := map[string]uint64{}
	add := func(machine string, r oplog.Record) {
		seq[machine]++
		sig := ""
		if r.Stack != "" {
			sig = crash.Parse(r.Stack).WithHead(r.Text).Signature()
		}
		rows = append(rows, oplogtest.StudioRow{Machine: machine, Revision: 1, Seq: seq[machine], Record: r, Signature: sig})
	}
	for i, m := range []string{"alice-pc", "alice-pc", "ci-7"} {
		r := crashRecord(unityCrash, 40+i, i, "unity")
		r.ID, r.Kind = uint64(100+i), oplog.KindLine
		add(m, r)
	}
	for i := range lines {
		m := []string{"alice-pc", "ci-7"}[i%2]
		add(m, oplog.Record{ID: uint64(1000 + i), Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "unity", Name: "Loader",
			Time: crashT0.Add(time.Minute + time.Duration(i)*time.Millisecond), Text: fmt.Sprintf("loading chunk %d of the world %s", i, strings.Repeat("x", 80))})
	}
	op := oplog.Record{ID: 7, Kind: oplog.KindOp, Level: oplog.LevelInfo, Source: "agent", Name: "build", Tool: "build",
		Status: oplog.StatusPending, Time: crashT0.Add(time.Hour), Text: "build player"}
	add("ci-7", op)
	op.Status, op.Level, op.Stack = oplog.StatusError, oplog.LevelError, ""
	add("ci-7", op)
	l, _ := logtest.MustOpenLog(t, nil)
	return connectWith(t, l, &mcptools.Options{Version: "test", StudioScope: impl.Open(t, "game", rows)})
}

// forStudios runs test once over each implementation of the studio
// (studiotest.Impls), as a subtest named after it.
func forStudios(t *testing.T, test func(t *testing.T, impl studiotest.Impl)) {
	for _, impl := range studiotest.Impls {
		t.Run(impl.Name, func(t *testing.T) { test(t, impl) })
	}
}

func connectWith(t *testing.T, l *oplog.Log, opts *mcptools.Options) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcptools.New(l, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestStudioScope_FindCrashes: one group seen on both machines, with
// counts, and the newest occurrence's stack with limit 1.
func TestStudioScope_FindCrashes(t *testing.T) {
	forStudios(t, func(t *testing.T, impl studiotest.Impl) {
		cs := studioSession(t, impl, 0)
		text, sc, _ := callTool(t, cs, "find_crashes", map[string]any{"scope": "studio", "limit": 1})
		var a struct {
			Scope  string `json:"scope"`
			Groups []struct {
				Count       int                  `json:"count"`
				LastMachine string               `json:"lastMachine"`
				LastID      uint64               `json:"lastId"`
				Machines    []oplog.MachineCount `json:"machines"`
				Stack       string               `json:"stack"`
			} `json:"groups"`
		}
		if err := json.Unmarshal(sc, &a); err != nil {
			t.Fatal(err)
		}
		if a.Scope != "studio" || len(a.Groups) != 1 {
			t.Fatalf("got %s", sc)
		}
		g := a.Groups[0]
		if g.Count != 3 || !slices.Equal(g.Machines, []oplog.MachineCount{{Machine: "alice-pc", Count: 2}, {Machine: "ci-7", Count: 1}}) ||
			g.LastMachine != "ci-7" || g.LastID != 102 || !strings.Contains(g.Stack, "Spawner.cs:42") {
			t.Errorf("group: %+v", g)
		}
		for _, want := range []string{"on alice-pc ×2, ci-7 ×1", "newest ci-7 #102", "(first alice-pc #100)"} {
			if !strings.Contains(text, want) {
				t.Errorf("text lacks %q:\n%s", want, text)
			}
		}
	})
}

// TestStudioScope_Tools: search, get_logs, get_log_details and
// list_log_names name each record's machine; an operation shows once, as
// completed.
func TestStudioScope_Tools(t *testing.T) {
	forStudios(t, func(t *testing.T, impl studiotest.Impl) {
		cs := studioSession(t, impl, 4)
		text, sc, _ := callTool(t, cs, "search_logs", map[string]any{"scope": "studio", "query": "NullReferenceException", "machine": "alice-pc"})
		var hits struct {
			Hits []struct {
				Machine string `json:"machine"`
				ID      uint64 `json:"id"`
			} `json:"hits"`
		}
		_ = json.Unmarshal(sc, &hits)
		if len(hits.Hits) != 2 || hits.Hits[0].Machine != "alice-pc" || hits.Hits[0].ID != 101 || !strings.Contains(text, "alice-pc #101") {
			t.Errorf("search on alice-pc: %s\n%s", sc, text)
		}
		_, sc, _ = callTool(t, cs, "search_logs", map[string]any{"scope": "studio", "status": "pending"})
		if strings.Contains(string(sc), `"id":7`) {
			t.Errorf("status pending finds the completed operation: %s", sc)
		}
		text, sc, _ = callTool(t, cs, "get_log_details", map[string]any{"scope": "studio", "machine": "ci-7", "log_id": 7})
		if !strings.Contains(string(sc), `"status":"error"`) || !strings.Contains(string(sc), `"machine":"ci-7"`) || !strings.HasPrefix(text, "get_log_details: ci-7 #7") {
			t.Errorf("details of ci-7 #7: %s\n%s", sc, text)
		}
		text, _, _ = callTool(t, cs, "list_log_names", map[string]any{"scope": "studio"})
		for _, want := range []string{"alice-pc unity/Loader 2", "ci-7 agent/build 1 (error 1)"} {
			if !strings.Contains(text, want) {
				t.Errorf("list_log_names lacks %q:\n%s", want, text)
			}
		}
	})
}

// TestStudioScope_GetLogsPages: get_logs pages newest first with a cursor
// within the byte budget, every record once.
func TestStudioScope_GetLogsPages(t *testing.T) {
	forStudios(t, func(t *testing.T, impl studiotest.Impl) {
		cs := studioSession(t, impl, 150)
		seen := map[string]bool{}
		args := map[string]any{"scope": "studio", "count": 100, "maxBytes": 8192}
		var last time.Time
		for pages := 0; ; pages++ {
			if pages > 100 {
				t.Fatal("get_logs never ends")
			}
			_, sc, size := callTool(t, cs, "get_logs", args)
			if size > 8192 {
				t.Errorf("answer of %d bytes for maxBytes 8192", size)
			}
			var a struct {
				Logs []struct {
					Machine string `json:"machine"`
					ID      uint64 `json:"id"`
					Time    string `json:"time"`
				} `json:"logs"`
				NextCursor string `json:"nextCursor"`
			}
			if err := json.Unmarshal(sc, &a); err != nil {
				t.Fatal(err)
			}
			for _, e := range a.Logs {
				k := fmt.Sprintf("%s/%d", e.Machine, e.ID)
				tm, _ := time.Parse(time.RFC3339Nano, e.Time)
				if seen[k] || (!last.IsZero() && tm.After(last)) {
					t.Errorf("%s again or out of order", k)
				}
				seen[k], last = true, tm
			}
			if a.NextCursor == "" {
				break
			}
			args["cursor"] = a.NextCursor
		}
		if len(seen) != 3+150+1 {
			t.Errorf("saw %d records, want %d", len(seen), 3+150+1)
		}
	})
}

// TestStudioScope_Errors: scope studio without a studio, machine without
// scope studio, a local-only argument in studio scope and an untranslatable
// query each say what is wrong.
func TestStudioScope_Errors(t *testing.T) {
	forStudios(t, func(t *testing.T, impl studiotest.Impl) {
		l, _ := logtest.MustOpenLog(t, nil)
		local := connectWith(t, l, nil)
		cs := studioSession(t, impl, 0)
		for _, c := range []struct {
			cs   *mcp.ClientSession
			tool string
			args map[string]any
			want string
		}{
			{local, "search_logs", map[string]any{"scope": "studio"}, "has no studio"},
			{local, "find_crashes", map[string]any{"scope": "studio", "run": "current", "since": "soon"}, "has no studio"},
			{local, "get_logs", map[string]any{"machine": "ci-7"}, "machine: only with scope studio"},
			{local, "find_crashes", map[string]any{"scope": "world"}, "scope"},
			{cs, "find_crashes", map[string]any{"scope": "studio", "run": "current"}, "runs are one machine's"},
			{cs, "search_logs", map[string]any{"scope": "studio", "query": "nul~1"}, "fuzzy"},
			{cs, "get_log_details", map[string]any{"scope": "studio", "log_id": 7}, "machine: missing"},
			{cs, "get_logs", map[string]any{"cursor": "v3"}, "cursor: only with scope studio"},
		} {
			res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatalf("%s %v: %v", c.tool, c.args, err)
			}
			msg := res.Content[0].(*mcp.TextContent).Text
			if !res.IsError || !strings.Contains(msg, c.want) {
				t.Errorf("%s %v: %q, want an error saying %q", c.tool, c.args, msg, c.want)
			}
		}
	})
}
