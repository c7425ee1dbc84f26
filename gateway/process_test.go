package gateway_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/follow"
	"github.com/mcplogd/mcplogd/gateway"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// stdioGame is a gateway in front of testdata/stdio_game.py, a game that
// is its own MCP server over stdio, with its runs recorded as serve
// records them (follow.StartOutput).
type stdioGame struct {
	t   *testing.T
	log *oplog.Log
	gw  *gateway.Gateway
}

const stdioSource = "game"

func newStdioGame(t *testing.T, args ...string) *stdioGame {
	t.Helper()
	return newStdioGameSlowEnd(t, 0, args...)
}

// slowEnd is a process's run whose output and end are stored late, as on
// a machine whose disk is busy: what it printed is held and stored with
// its end, delay after it exited.
type slowEnd struct {
	gateway.ProcessRun
	delay time.Duration
	mu    sync.Mutex
	held  []byte
}

func (s *slowEnd) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = append(s.held, p...)
	return len(p), nil
}

func (s *slowEnd) End(ps *os.ProcessState, stopped string) (oplog.Record, error) {
	time.Sleep(s.delay)
	s.mu.Lock()
	held := s.held
	s.mu.Unlock()
	if _, err := s.ProcessRun.Write(held); err != nil {
		return oplog.Record{}, err
	}
	return s.ProcessRun.End(ps, stopped)
}

// newStdioGameSlowEnd is newStdioGame whose process's end is stored delay
// after it exited.
func newStdioGameSlowEnd(t *testing.T, delay time.Duration, args ...string) *stdioGame {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "log.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	l.SetCrashes(crash.New(l, nil))
	opts := &gateway.Options{MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond,
		Runs: func(source string, command []string, pid int) (gateway.ProcessRun, error) {
			run, err := follow.StartOutput(l, follow.CommandOptions{Name: source, Args: command}, pid)
			if err != nil || delay == 0 {
				return run, err
			}
			return &slowEnd{ProcessRun: run, delay: delay}, nil
		}}
	gw, err := gateway.New(l, []gateway.Upstream{{Name: stdioSource, Command: append([]string{python, "testdata/stdio_game.py"}, args...)}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = gw.Close()
		_ = l.Close()
	})
	eventually(t, "the game's spawn_enemy tool", func() bool {
		return slices.ContainsFunc(gw.Tools(), func(tool *mcp.Tool) bool { return tool.Name == "spawn_enemy" })
	})
	return &stdioGame{t: t, log: l, gw: gw}
}

// spawn calls spawn_enemy and waits for its outcome to be recorded.
func (g *stdioGame) spawn(count int) oplog.Record {
	g.t.Helper()
	res, err := g.gw.Call(ctxTimeout(g.t, 20*time.Second), "spawn_enemy", json.RawMessage(`{"count":`+itoa(count)+`}`))
	if err != nil {
		g.t.Fatal(err)
	}
	id, ok := res.Meta["log_id"].(uint64)
	if !ok || id == 0 {
		g.t.Fatalf("spawn_enemy answered without a log_id: %+v", res)
	}
	r, err := g.log.AwaitComplete(ctxTimeout(g.t, 10*time.Second), id)
	if err != nil {
		g.t.Fatal(err)
	}
	return r
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// records returns the game's records, oldest first.
func (g *stdioGame) records() []oplog.Record {
	g.t.Helper()
	p, err := g.log.List(context.Background(), oplog.Query{Filter: oplog.Filter{Source: stdioSource}, Count: 1000})
	if err != nil {
		g.t.Fatal(err)
	}
	recs := p.Records
	slices.SortFunc(recs, func(a, b oplog.Record) int { return int(a.ID) - int(b.ID) })
	return recs
}

// run returns the game's run n.
func (g *stdioGame) run(n uint64) oplog.RunInfo {
	g.t.Helper()
	runs, err := g.log.Runs(context.Background(), stdioSource)
	if err != nil {
		g.t.Fatal(err)
	}
	for _, r := range runs {
		if r.Run == n {
			return r
		}
	}
	g.t.Fatalf("the game has no run %d: %+v", n, runs)
	return oplog.RunInfo{}
}

// awaitEnd waits for the end of the game's process start.
func (g *stdioGame) awaitEnd(start int) gateway.ProcessEnd {
	g.t.Helper()
	var end gateway.ProcessEnd
	eventually(g.t, "the end of the game's process", func() bool {
		var ok bool
		end, ok = g.gw.ProcessEnd(stdioSource)
		return ok && end.Start >= start
	})
	if end.Start != start {
		g.t.Fatalf("the last end is of start %d, want %d", end.Start, start)
	}
	return end
}

// awaitRun waits for the game's run n to start and its upstream to be up.
func (g *stdioGame) awaitRun(n uint64) {
	g.t.Helper()
	eventually(g.t, "the game to be up in run "+itoa(int(n)), func() bool {
		if g.gw.Status()[0].State != oplog.UpstreamUp {
			return false
		}
		return slices.ContainsFunc(g.records(), func(r oplog.Record) bool {
			return r.Kind == oplog.KindMarker && r.Name == oplog.MarkerRun && r.Run == n
		})
	})
}

// inRun returns the records of run n.
func inRun(recs []oplog.Record, n uint64) []oplog.Record {
	var out []oplog.Record
	for _, r := range recs {
		if r.Run == n {
			out = append(out, r)
		}
	}
	return out
}

// TestGateway_CmdUpstream_RunsAndStderr: a game that is its own MCP server
// over stdio crashes in the middle of a call, twice: its uncaught
// exception's traceback on standard error is one error record of the
// upstream's source with its stack, and the process's end an exit marker
// with its status, so the run reads as crashed by that traceback; the
// gateway starts it again as run 2, which a clean call leaves running;
// a native abort (faulthandler's report, SIGABRT) ends run 2 with the
// signal, and run 3 runs clean.
func TestGateway_CmdUpstream_RunsAndStderr(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no signals by number")
	}
	g := newStdioGame(t)
	if r := g.spawn(5); r.Status != oplog.StatusSuccess {
		t.Fatalf("spawn_enemy 5: %+v", r)
	}
	crashed := g.spawn(500)
	if crashed.Status == oplog.StatusSuccess {
		t.Fatalf("spawn_enemy 500 answered %+v; want a failure", crashed)
	}
	end := g.awaitEnd(1)
	if end.Code != 1 || end.Signal != "" || !end.Crashed || end.Stopped != "" || end.ExitID == 0 || end.Run != 1 ||
		end.Text != "python3 exited with status 1" {
		t.Errorf("the first end: %+v", end)
	}

	run1 := inRun(g.records(), 1)
	if len(run1) == 0 || run1[0].Kind != oplog.KindMarker || run1[0].Name != oplog.MarkerRun ||
		run1[0].Text != "run started: "+g.gw.Status()[0].Target {
		t.Fatalf("run 1 does not start with a run marker: %+v", run1)
	}
	if last := run1[len(run1)-1]; last.Kind != oplog.KindMarker || last.Name != oplog.MarkerExit || last.ID != end.ExitID ||
		last.Level != oplog.LevelError || !strings.Contains(string(last.Data), `"exitCode":1`) {
		t.Errorf("run 1 ends with %+v; want the exit marker %d with status 1", last, end.ExitID)
	}
	var tracebacks []oplog.Record
	for _, r := range run1 {
		if strings.Contains(r.Text+r.Stack, "Traceback") || strings.Contains(r.Text+r.Stack, "OverflowError") {
			tracebacks = append(tracebacks, r)
		}
	}
	if len(tracebacks) != 1 {
		t.Fatalf("the traceback is %d records, want 1: %+v", len(tracebacks), tracebacks)
	}
	tb := tracebacks[0]
	if tb.Kind != oplog.KindLine || tb.Level < oplog.LevelError || !strings.Contains(tb.Text, "OverflowError: enemy pool overflow: 500 enemies") ||
		!strings.Contains(tb.Stack, "in grow") || !strings.Contains(tb.Stack, "in spawn_enemy") {
		t.Errorf("the traceback's record: %+v", tb)
	}
	if tb.ID < crashed.ID || tb.ID > end.ExitID {
		t.Errorf("the traceback %d is not between the call %d and the exit %d", tb.ID, crashed.ID, end.ExitID)
	}
	if !slices.ContainsFunc(run1, func(r oplog.Record) bool { return strings.HasPrefix(r.Text, "stdio game ") }) {
		t.Errorf("the game's first line on standard error is not in run 1: %+v", run1)
	}
	if crashed.Run != 1 {
		t.Errorf("the crashing call is in run %d, want 1", crashed.Run)
	}
	if r := g.run(1); r.Outcome != oplog.OutcomeCrashed || r.CrashID != tb.ID || r.EndID != end.ExitID {
		t.Errorf("run 1: %s, crash %d, end %d; want crashed by %d, ended by %d", r.Outcome, r.CrashID, r.EndID, tb.ID, end.ExitID)
	}

	g.awaitRun(2)
	if r := g.spawn(7); r.Status != oplog.StatusSuccess || r.Run != 2 {
		t.Fatalf("spawn_enemy 7 after the restart: %+v", r)
	}
	if r := g.run(2); r.Outcome != oplog.OutcomeRunning || r.CrashID != 0 {
		t.Errorf("run 2 after a clean call: %s (crash %d), want running", r.Outcome, r.CrashID)
	}
	if _, ok := g.gw.ProcessEnd(stdioSource); !ok {
		t.Error("ProcessEnd forgot the first end")
	}

	g.spawn(5000)
	end = g.awaitEnd(2)
	if end.Signal != "SIGABRT" || end.Code != -1 || !end.Crashed || end.Run != 2 ||
		!strings.HasPrefix(end.Text, "python3 killed by signal 6 (SIGABRT") {
		t.Errorf("the second end: %+v", end)
	}
	run2 := inRun(g.records(), 2)
	var fatal []oplog.Record
	for _, r := range run2 {
		if strings.Contains(r.Text+r.Stack, "Fatal Python error") {
			fatal = append(fatal, r)
		}
	}
	if len(fatal) != 1 || !strings.Contains(fatal[0].Stack, "grow") {
		t.Errorf("faulthandler's report: %+v; want one record with its stack", fatal)
	}
	if last := run2[len(run2)-1]; last.ID != end.ExitID || last.Level != oplog.LevelFatal || !strings.Contains(string(last.Data), `"signal":"SIGABRT"`) {
		t.Errorf("run 2 ends with %+v; want the exit marker %d of SIGABRT", last, end.ExitID)
	}
	// The first fatal record is the crash (and the run's end), as under
	// mcplogd run: faulthandler's report, before the signal's marker.
	if r := g.run(2); len(fatal) == 1 && (r.Outcome != oplog.OutcomeCrashed || r.CrashID != fatal[0].ID) {
		t.Errorf("run 2: %s, crash %d; want crashed by %d", r.Outcome, r.CrashID, fatal[0].ID)
	}

	g.awaitRun(3)
	if r := g.spawn(1); r.Status != oplog.StatusSuccess || r.Run != 3 {
		t.Fatalf("spawn_enemy 1 in run 3: %+v", r)
	}
	if r := g.run(3); r.Outcome != oplog.OutcomeRunning {
		t.Errorf("run 3 after a clean call: %s, want running", r.Outcome)
	}
}

// TestGateway_CmdUpstream_StopEndsRunExited: a gateway that closes ends
// its cmd: upstream's process through its standard input, and the run is
// exited (status 0), not crashed.
func TestGateway_CmdUpstream_StopEndsRunExited(t *testing.T) {
	g := newStdioGame(t)
	if r := g.spawn(3); r.Status != oplog.StatusSuccess {
		t.Fatalf("spawn_enemy 3: %+v", r)
	}
	if err := g.gw.Close(); err != nil {
		t.Fatal(err)
	}
	end, ok := g.gw.ProcessEnd(stdioSource)
	if !ok || end.Code != 0 || end.Crashed || end.Text != "python3 exited with status 0" {
		t.Errorf("the end after Close: %+v, %v", end, ok)
	}
	if r := g.run(1); r.Outcome != oplog.OutcomeExited || r.EndID != end.ExitID {
		t.Errorf("run 1: %s, end %d; want exited by %d", r.Outcome, r.EndID, end.ExitID)
	}
}

// TestGateway_CmdUpstream_StopLingering: a game that does not exit when
// its standard input closes is sent SIGTERM when the gateway closes; the
// exit marker says mcplogd stopped it, and the run is exited, not crashed.
func TestGateway_CmdUpstream_StopLingering(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no signals by number")
	}
	g := newStdioGame(t, "--linger")
	if r := g.spawn(3); r.Status != oplog.StatusSuccess {
		t.Fatalf("spawn_enemy 3: %+v", r)
	}
	if err := g.gw.Close(); err != nil {
		t.Fatal(err)
	}
	end, ok := g.gw.ProcessEnd(stdioSource)
	if !ok || end.Stopped != "SIGTERM" || end.Crashed || end.ExitID == 0 {
		t.Fatalf("the end after Close: %+v, %v", end, ok)
	}
	recs := g.records()
	if last := recs[len(recs)-1]; last.ID != end.ExitID || last.Level != oplog.LevelInfo || !strings.Contains(string(last.Data), `"stoppedBy":"SIGTERM"`) {
		t.Errorf("the exit marker: %+v", last)
	}
	if r := g.run(1); r.Outcome != oplog.OutcomeExited {
		t.Errorf("run 1: %s, want exited", r.Outcome)
	}
}
