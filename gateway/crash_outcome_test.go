package gateway_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/gateway"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// ecsTraceback is what the Lua ECS engine's debug server answers its
// world-touching tools with once gameplay crashed: the stored error and
// its traceback.
const ecsTraceback = "game/systems/physics.lua:88: attempt to index a nil value\nstack traceback:\n\t[C]: in function 'error'\n\tgame/systems/physics.lua:88: in function <game/systems/physics.lua:80>"

// serveECS serves a debug server like the Lua ECS engine's on 127.0.0.1:0:
// its step tool advances the world until crashed is set, and from then on
// answers with the crash's traceback as a tool error.
func serveECS(t *testing.T, crashed *atomic.Bool) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "lua-ecs", Version: "1"}, nil)
	var ticks atomic.Int64
	mcp.AddTool(srv, &mcp.Tool{Name: "step", Description: "advances the world one tick"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, map[string]int64, error) {
			if crashed.Load() {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: ecsTraceback}}}, nil, nil
			}
			return nil, map[string]int64{"tick": ticks.Add(1)}, nil
		})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// TestGateway_Call_UpstreamCrashEndsRun: the traceback an upstream's
// world-touching tool answers with after gameplay crashed is recorded as
// one fatal line, which crashes the upstream's current run and is the
// crash that ended it in find_crashes; the same answer again adds no
// second line, and the run's crash stays the first.
func TestGateway_Call_UpstreamCrashEndsRun(t *testing.T) {
	const source = "ecs"
	var crashed atomic.Bool
	url := serveECS(t, &crashed)
	db, err := store.Open(filepath.Join(t.TempDir(), "log.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	x := crash.New(l, nil)
	l.SetCrashes(x)
	gw, err := gateway.New(l, []gateway.Upstream{{Name: source, URL: url}}, &gateway.Options{MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = gw.Close()
		_ = l.Close()
	})
	eventually(t, "the upstream's step tool", func() bool {
		return slices.ContainsFunc(gw.Tools(), func(tool *mcp.Tool) bool { return tool.Name == "step" })
	})
	step := func() *mcp.CallToolResult {
		t.Helper()
		res, err := gw.Call(ctxTimeout(t, 20*time.Second), "step", json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if id, ok := res.Meta["log_id"].(uint64); !ok || id == 0 {
			t.Fatalf("step answered without a log_id: %+v", res)
		} else if _, err := l.AwaitComplete(ctxTimeout(t, 10*time.Second), id); err != nil {
			t.Fatal(err)
		}
		return res
	}
	current := func() oplog.RunInfo {
		t.Helper()
		runs, err := l.Runs(context.Background(), source)
		if err != nil {
			t.Fatal(err)
		}
		i, ok := oplog.Latest(runs)[source]
		if !ok {
			t.Fatalf("%s has no run", source)
		}
		return runs[i[0]]
	}
	fatalLines := func() []oplog.Record {
		t.Helper()
		p, err := l.List(context.Background(), oplog.Query{Filter: oplog.Filter{Source: source, Kind: oplog.KindLine, MinLevel: oplog.LevelFatal}, Count: 10})
		if err != nil {
			t.Fatal(err)
		}
		return p.Records
	}

	if res := step(); res.IsError {
		t.Fatalf("step before the crash answered %+v", res)
	}
	if run := current(); run.Outcome != oplog.OutcomeRunning || run.CrashID != 0 {
		t.Fatalf("before the crash the run is %s (crash %d), want running", run.Outcome, run.CrashID)
	}

	crashed.Store(true)
	if res := step(); !res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != ecsTraceback {
		t.Fatalf("step after the crash answered %+v; want the upstream's traceback unchanged", res)
	}
	fatal := fatalLines()
	if len(fatal) != 1 || fatal[0].Text != "game/systems/physics.lua:88: attempt to index a nil value" || fatal[0].Stack != ecsTraceback {
		t.Fatalf("fatal lines of %s: %+v, want the traceback as one", source, fatal)
	}
	crashID := fatal[0].ID
	checkCrashedBy := func(when string) {
		t.Helper()
		if run := current(); run.Outcome != oplog.OutcomeCrashed || run.CrashID != crashID || run.EndID != crashID || run.Run != fatal[0].Run {
			t.Errorf("%s: the current run %d is %s, end %d, crash %d; want run %d crashed by line %d",
				when, run.Run, run.Outcome, run.EndID, run.CrashID, fatal[0].Run, crashID)
		}
		page, err := l.FindCrashes(context.Background(), oplog.CrashQuery{Source: source, Classes: oplog.CrashClasses})
		if err != nil {
			t.Fatal(err)
		}
		sig, ok := x.Occurrence(crashID)
		i := slices.IndexFunc(page.Groups, func(g oplog.CrashGroup) bool { return g.Signature == sig })
		if !ok || i < 0 {
			t.Fatalf("%s: the fatal line is in no crash group: %+v", when, page.Groups)
		}
		if g := page.Groups[i]; g.Class != oplog.ClassCrash || g.RunsEnded != 1 || !strings.HasPrefix(g.Title, "game/systems/physics.lua:88: attempt to index a nil value") ||
			!strings.Contains(g.Frame, "game/systems/physics.lua:88") {
			t.Errorf("%s: the crash's group: class %s, ended %d runs, title %q, frame %q", when, g.Class, g.RunsEnded, g.Title, g.Frame)
		}
	}
	checkCrashedBy("after the crash")

	if res := step(); !res.IsError {
		t.Fatalf("step again answered %+v", res)
	}
	if again := fatalLines(); len(again) != 1 || again[0].ID != crashID {
		t.Errorf("after the same traceback again, fatal lines %+v; want only line %d", again, crashID)
	}
	checkCrashedBy("after the same traceback again")
}
