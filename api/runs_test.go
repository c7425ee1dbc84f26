package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// Tests of runs and compile markers through MCP and the HTTP API. They need
// the store to keep runs (Record.Run, markers appendable): those marked
// "needs the store's runs" fail until it does.

// appendRuns appends two runs of "unity" (the second with a failed
// compile) and one of "godot", a second apart, and returns the records:
//
//	0 run marker   1 boot one   2 crash in Player.cs        (unity run 1)
//	3 run marker   4 boot two   5 crash in Enemy.cs         (unity run 2)
//	6 compile.start   7 CS0103 error   8 compile.failed   9 after compile
//	10 godot only                                           (godot run 1)
func appendRuns(t *testing.T, l *oplog.Log) []oplog.Record {
	t.Helper()
	at := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	marker := func(name, text string, level oplog.Level) oplog.Record {
		return oplog.Record{Kind: oplog.KindMarker, Level: level, Source: "unity", Name: name, Text: text}
	}
	line := func(level oplog.Level, text, stack string) oplog.Record {
		return oplog.Record{Level: level, Source: "unity", Name: "Player", Text: text, Stack: stack}
	}
	crash := func(file string) oplog.Record {
		return line(oplog.LevelError, "NullReferenceException: Object reference not set to an instance of an object",
			fmt.Sprintf("%s.Update () (at Assets/Scripts/%s.cs:40)\nGame.Loop:Tick (float) (at Assets/Scripts/Loop.cs:7)\n", file, file))
	}
	recs := []oplog.Record{
		marker(oplog.MarkerRun, "Unity Editor started", oplog.LevelInfo), line(oplog.LevelInfo, "boot one", ""), crash("Player"),
		marker(oplog.MarkerRun, "Unity Editor started", oplog.LevelInfo), line(oplog.LevelInfo, "boot two", ""), crash("Enemy"),
		marker(oplog.MarkerCompileStart, "script compilation started", oplog.LevelInfo),
		line(oplog.LevelError, "Assets/Scripts/Foo.cs(3,5): error CS0103: The name 'x' does not exist", ""),
		marker(oplog.MarkerCompileFailed, "script compilation failed", oplog.LevelError),
		line(oplog.LevelInfo, "after compile", ""),
		{Level: oplog.LevelInfo, Source: "godot", Name: "main", Text: "godot only"},
	}
	for i := range recs {
		recs[i].Time = at.Add(time.Duration(i) * time.Second)
	}
	return logtest.MustAppend(t, l, recs...)
}

// withID is an answer's record, line, hit or group, by ID (a crash
// group's is its newest occurrence).
type withID struct {
	ID uint64 `json:"id"`
}

type withLastID struct {
	LastID uint64 `json:"lastId"`
}

func (w withID) id() uint64     { return w.ID }
func (w withLastID) id() uint64 { return w.LastID }

// idsOf lists the IDs of an answer's items.
func idsOf[T interface{ id() uint64 }](items []T) []uint64 {
	out := make([]uint64, len(items))
	for i, it := range items {
		out[i] = it.id()
	}
	return out
}

// callText calls a tool that must succeed and returns its text block.
func (m *mcpHarness) callText(t *testing.T, name string, args any) string {
	t.Helper()
	res, b := m.callRaw(t, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): %s", name, args, b)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// want lists the IDs of recs[i] for each i, newest first when desc.
func want(recs []oplog.Record, desc bool, idx ...int) []uint64 {
	out := make([]uint64, len(idx))
	for i, j := range idx {
		out[i] = recs[j].ID
	}
	if desc {
		slices.Reverse(out)
	}
	return out
}

func checkIDs(t *testing.T, what string, got, want []uint64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: IDs %v, want %v", what, got, want)
	}
}

// TestMCP_Runs: run and since=last_compile on console_tail, get_logs,
// search_logs and find_crashes, over the go-sdk client (needs the store's runs).
// withIndex gives h's log a search index, as serve does.
func withIndex(t *testing.T, h *harness) *harness {
	t.Helper()
	idx, err := search.Open(filepath.Join(t.TempDir(), "index"), h.DB, &search.Options{Changed: h.Log.Changed})
	if err != nil {
		t.Fatal(err)
	}
	h.Log.SetIndex(idx)
	return h
}

func TestMCP_Runs(t *testing.T) {
	m := mustConnect(t, withIndex(t, withCrashes(mustServe(t, nil))), nil)
	recs := appendRuns(t, m.Log)
	tailIDs := func(args map[string]any) []uint64 {
		t.Helper()
		return idsOf(call[struct {
			Lines []withID `json:"lines"`
		}](t, m, "console_tail", args).Lines)
	}
	logIDs := func(args map[string]any) []uint64 {
		t.Helper()
		return idsOf(call[struct {
			Logs []withID `json:"logs"`
		}](t, m, "get_logs", args).Logs)
	}
	t.Run("console_tail", func(t *testing.T) {
		checkIDs(t, "markers by default", tailIDs(map[string]any{"source": "unity", "limit": 3}), want(recs, false, 7, 8, 9))
		checkIDs(t, "run current", tailIDs(map[string]any{"source": "unity", "run": "current"}), want(recs, false, 3, 4, 5, 6, 7, 8, 9))
		checkIDs(t, "run previous", tailIDs(map[string]any{"source": "unity", "run": "previous"}), want(recs, false, 0, 1, 2))
		checkIDs(t, "run 1 of every source", tailIDs(map[string]any{"run": "1"}), want(recs, false, 0, 1, 2, 10))
		checkIDs(t, "since last_compile", tailIDs(map[string]any{"since": "last_compile"}), want(recs, false, 6, 7, 8, 9, 10))
		txt := m.callText(t, "console_tail", map[string]any{"source": "unity", "run": "current"})
		for _, w := range []string{"compile.start", "compile.failed", "script compilation failed"} {
			if !strings.Contains(txt, w) {
				t.Errorf("console_tail's text does not show %q:\n%s", w, txt)
			}
		}
	})
	t.Run("get_logs", func(t *testing.T) {
		checkIDs(t, "run previous", logIDs(map[string]any{"source": "unity", "run": "previous"}), want(recs, true, 0, 1, 2))
		checkIDs(t, "lines of run 2", logIDs(map[string]any{"source": "unity", "run": "2", "kind": "line"}), want(recs, true, 4, 5, 7, 9))
		checkIDs(t, "since last_compile", logIDs(map[string]any{"source": "unity", "since": "last_compile"}), want(recs, true, 6, 7, 8, 9))
	})
	t.Run("search_logs", func(t *testing.T) {
		hits := func(args map[string]any) []uint64 {
			t.Helper()
			return idsOf(call[struct {
				Hits []withID `json:"hits"`
			}](t, m, "search_logs", args).Hits)
		}
		checkIDs(t, "boot, run current", hits(map[string]any{"query": "boot", "source": "unity", "run": "current"}), want(recs, true, 4))
		checkIDs(t, "boot, run previous", hits(map[string]any{"query": "boot", "run": "previous"}), want(recs, true, 1))
		checkIDs(t, "run: in the query", hits(map[string]any{"query": "run:1 AND source:unity"}), want(recs, true, 0, 1, 2))
		checkIDs(t, "since last_compile", hits(map[string]any{"query": "level:error", "since": "last_compile"}), want(recs, true, 7, 8))
		checkIDs(t, "kind marker", hits(map[string]any{"kind": "marker", "run": "current", "source": "unity"}), want(recs, true, 3, 6, 8))
	})
	t.Run("find_crashes", func(t *testing.T) {
		groups := func(args map[string]any) []uint64 {
			t.Helper()
			return idsOf(call[struct {
				Groups []withLastID `json:"groups"`
			}](t, m, "find_crashes", args).Groups)
		}
		// Run 1's last record is its exception, then the next run began
		// with no call in flight: Unity went on after it and the player
		// quit, so neither error ended a run, and the newest comes first.
		checkIDs(t, "every run", groups(map[string]any{}), want(recs, true, 2, 5))
		checkIDs(t, "run previous", groups(map[string]any{"source": "unity", "run": "previous"}), want(recs, true, 2))
		checkIDs(t, "run current", groups(map[string]any{"run": "current"}), want(recs, true, 5))
		checkIDs(t, "since last_compile", groups(map[string]any{"since": "last_compile"}), nil)
	})
}

// TestMCP_RunsBadSelectors: a bad run or a since=last_compile without a
// compile is a clear error on each tool.
func TestMCP_RunsBadSelectors(t *testing.T) {
	m := mustConnect(t, withCrashes(mustServe(t, nil)), nil)
	logtest.MustAppend(t, m.Log, oplog.Record{Level: oplog.LevelInfo, Source: "godot", Text: "hello"})
	for _, tool := range []string{"console_tail", "get_logs", "search_logs", "find_crashes"} {
		t.Run(tool, func(t *testing.T) {
			m.callError(t, tool, map[string]any{"run": "latest"}, "run: want current, previous or a run number", `"latest"`)
			m.callError(t, tool, map[string]any{"run": "1.5"}, "run: want current, previous or a run number")
			m.callError(t, tool, map[string]any{"since": "last_compile", "source": "godot"}, "last_compile", "godot", "no compile.start marker")
		})
	}
}

// TestMCP_RunsNoSuchRun: a run no source has is ENOTFOUND on every tool
// that takes run, in the same words, saying which runs there are and
// where to see them (needs the store's runs).
func TestMCP_RunsNoSuchRun(t *testing.T) {
	m := mustConnect(t, withCrashes(mustServe(t, nil)), nil)
	logtest.MustAppend(t, m.Log, oplog.Record{Level: oplog.LevelInfo, Source: "godot", Text: "hello"})
	for _, tool := range []string{"console_tail", "get_logs", "search_logs", "find_crashes", "log_stats", "compare_runs"} {
		m.callError(t, tool, map[string]any{"run": "7", "source": "godot"}, "not found: ",
			`run 7: source "godot" has no run 7 (its only run is 1); store_info lists them`)
		m.callError(t, tool, map[string]any{"run": "previous", "source": "godot"}, `run previous: source "godot" has no previous run (its only run is 1)`)
	}
	m.callError(t, "compare_runs", map[string]any{"against": "7"}, "not found: ", `against 7: no source has a run 7 (the only run is 1); store_info lists them`)
}

// TestMCP_StoreInfoRuns: store_info lists each source's runs, newest first,
// and says them in its text (needs the store's runs).
func TestMCP_StoreInfoRuns(t *testing.T) {
	m := mustServeMCP(t)
	appendRuns(t, m.Log)
	type runOut struct {
		Run     uint64 `json:"run"`
		Start   string `json:"start"`
		Records uint64 `json:"records"`
		Errors  uint64 `json:"errors"`
	}
	info := call[struct {
		Runs []struct {
			Source  string   `json:"source"`
			Current uint64   `json:"current"`
			Runs    []runOut `json:"runs"`
		} `json:"runs"`
	}](t, m, "store_info", nil)
	got := fmt.Sprintf("%+v", info.Runs)
	if len(info.Runs) != 2 || info.Runs[0].Source != "godot" || info.Runs[0].Current != 1 ||
		info.Runs[1].Source != "unity" || info.Runs[1].Current != 2 || len(info.Runs[1].Runs) != 2 {
		t.Fatalf("store_info runs: %s", got)
	}
	if r := info.Runs[1].Runs; r[0].Run != 2 || r[0].Records != 7 || r[0].Errors != 3 || r[1].Run != 1 || r[1].Records != 3 || r[1].Errors != 1 {
		t.Errorf("unity's runs: %s", got)
	}
	if txt := m.callText(t, "store_info", nil); !strings.Contains(txt, "runs of unity (current 2): #2 from ") {
		t.Errorf("store_info's text does not say unity's runs:\n%s", txt)
	}
}

// TestServer_Runs: run, since=last_compile and markers on the routes, and
// GET /api/v1/runs (needs the store's runs).
func TestServer_Runs(t *testing.T) {
	h := withIndex(t, withCrashes(mustServe(t, nil)))
	recs := appendRuns(t, h.Log)
	get := func(route string, v url.Values) []uint64 {
		t.Helper()
		path := route + "?" + v.Encode()
		switch route {
		case "/api/v1/tail":
			return idsOf(mustCall[struct {
				Lines []withID `json:"lines"`
			}](h, http.MethodGet, path, "", http.StatusOK).Lines)
		case "/api/v1/records":
			return idsOf(mustCall[struct {
				Records []withID `json:"records"`
			}](h, http.MethodGet, path, "", http.StatusOK).Records)
		case "/api/v1/search":
			a := mustCall[struct {
				Hits []struct {
					Record record `json:"record"`
				} `json:"hits"`
			}](h, http.MethodGet, path, "", http.StatusOK)
			out := make([]uint64, len(a.Hits))
			for i, hit := range a.Hits {
				out[i] = hit.Record.ID
			}
			return out
		case "/api/v1/crashes":
			return idsOf(mustCall[struct {
				Groups []withLastID `json:"groups"`
			}](h, http.MethodGet, path, "", http.StatusOK).Groups)
		}
		t.Fatalf("route %s", route)
		return nil
	}
	v := func(kv ...string) url.Values {
		out := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	checkIDs(t, "tail with markers", get("/api/v1/tail", v("source", "unity", "limit", "3")), want(recs, false, 7, 8, 9))
	checkIDs(t, "tail markers=false", get("/api/v1/tail", v("source", "unity", "limit", "3", "markers", "false")), want(recs, false, 5, 7, 9))
	checkIDs(t, "tail run previous", get("/api/v1/tail", v("source", "unity", "run", "previous")), want(recs, false, 0, 1, 2))
	checkIDs(t, "tail since last_compile", get("/api/v1/tail", v("since", "last_compile")), want(recs, false, 6, 7, 8, 9, 10))
	checkIDs(t, "records run 1", get("/api/v1/records", v("run", "1")), want(recs, true, 0, 1, 2, 10))
	checkIDs(t, "records runs pairs", get("/api/v1/records", url.Values{"runs": {"unity:2", "godot:1"}, "kind": {"line"}}), want(recs, true, 4, 5, 7, 9, 10))
	checkIDs(t, "records since last_compile", get("/api/v1/records", v("source", "unity", "since", "last_compile")), want(recs, true, 6, 7, 8, 9))
	checkIDs(t, "search run current", get("/api/v1/search", v("query", "boot", "run", "current")), want(recs, true, 4))
	checkIDs(t, "crashes run previous", get("/api/v1/crashes", v("run", "previous")), want(recs, true, 2))
	checkIDs(t, "crashes since last_compile", get("/api/v1/crashes", v("since", "last_compile")), nil)

	ev := openStream(t, h, "/api/v1/stream?source=unity&run=current", "")
	_, lines := nextLines(t, ev)
	got := make([]uint64, len(lines.Lines))
	for i, l := range lines.Lines {
		got[i] = l.ID
	}
	checkIDs(t, "stream run current", got, want(recs, false, 3, 4, 5, 6, 7, 8, 9))

	runs := mustCall[struct {
		Runs []oplog.RunInfo `json:"runs"`
	}](h, http.MethodGet, "/api/v1/runs?source=unity", "", http.StatusOK).Runs
	if len(runs) != 2 || runs[0].Run != 1 || runs[0].FirstID != recs[0].ID || runs[1].Run != 2 || runs[1].FirstID != recs[3].ID ||
		runs[1].LastID != recs[9].ID || runs[1].Records != 7 {
		t.Errorf("GET /api/v1/runs?source=unity: %+v", runs)
	}
	cur := mustCall[struct {
		Runs []oplog.RunInfo `json:"runs"`
	}](h, http.MethodGet, "/api/v1/runs?run=current", "", http.StatusOK).Runs
	if len(cur) != 2 || cur[0].Source != "godot" || cur[0].Run != 1 || cur[1].Source != "unity" || cur[1].Run != 2 {
		t.Errorf("GET /api/v1/runs?run=current: %+v", cur)
	}
	status, b := h.Call(http.MethodGet, "/api/v1/tail?run=7&source=godot", "")
	checkError(t, status, b, http.StatusNotFound, "not_found", `run 7: source "godot" has no run 7 (its only run is 1)`)
}

// TestServer_RunsBadSelectors: bad run selectors and a since=last_compile
// without a compile are clear errors on every route.
func TestServer_RunsBadSelectors(t *testing.T) {
	h := withCrashes(mustServe(t, nil))
	logtest.MustAppend(t, h.Log, oplog.Record{Level: oplog.LevelInfo, Source: "godot", Text: "hello"})
	for _, route := range []string{"/api/v1/tail", "/api/v1/records", "/api/v1/search", "/api/v1/crashes", "/api/v1/stream", "/api/v1/runs"} {
		status, b := h.Call(http.MethodGet, route+"?run=latest", "")
		checkError(t, status, b, http.StatusBadRequest, "invalid", "run: want current, previous or a run number", `"latest"`)
		if route == "/api/v1/runs" {
			continue
		}
		status, b = h.Call(http.MethodGet, route+"?since=last_compile&source=godot", "")
		checkError(t, status, b, http.StatusNotFound, "not_found", "since: last_compile: source godot has no compile.start marker")
	}
	status, b := h.Call(http.MethodGet, "/api/v1/records?runs=unity", "")
	checkError(t, status, b, http.StatusBadRequest, "invalid", "runs: want SOURCE:RUN")
	status, b = h.Call(http.MethodGet, "/api/v1/tail?markers=maybe", "")
	checkError(t, status, b, http.StatusBadRequest, "invalid", "markers: must be true or false")
}
