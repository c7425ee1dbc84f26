package gateway_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/oplog"
)

// TestGateway_Call_CrashedInFlight: a game that is its own MCP server over
// stdio dies of an uncaught exception in the middle of spawn_enemy. The
// agent is answered within 2 s with the crash, never an EOF: the
// traceback's title and record, how the process ended, within 1 KB; the
// recorded call is crashed with the same text. Then a native abort
// (SIGABRT) in run 2 says the signal.
func TestGateway_Call_CrashedInFlight(t *testing.T) {
	g := newStdioGame(t)
	call := func(count int) (*mcp.CallToolResult, oplog.Record, time.Duration) {
		t.Helper()
		start := time.Now()
		res, err := g.gw.Call(ctxTimeout(t, 20*time.Second), "spawn_enemy", json.RawMessage(`{"count":`+strconv.Itoa(count)+`}`))
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.Meta["log_id"].(uint64)
		r, err := g.log.AwaitComplete(ctxTimeout(t, 10*time.Second), id)
		if err != nil {
			t.Fatal(err)
		}
		return res, r, took
	}

	res, r, took := call(500)
	answer := resultText(res)
	t.Logf("answered in %s: %s", took, answer)
	run := g.run(1)
	for _, w := range []string{"the game crashed during this call: OverflowError: enemy pool overflow",
		"(record #" + strconv.FormatUint(run.CrashID, 10) + ")", "exited with status 1"} {
		if !res.IsError || !strings.Contains(answer, w) {
			t.Fatalf("the crashing call answered %q (isError %v); want %q", answer, res.IsError, w)
		}
	}
	if strings.Contains(answer, "EOF") || len(answer) > oplog.MaxCrashedErrorBytes {
		t.Errorf("the answer: %d bytes after %s, %q; want the crash within 1 KB", len(answer), took, answer)
	}
	if r.Status != oplog.StatusCrashed || r.Error != answer {
		t.Errorf("the recorded call: %s %q; want crashed with the answer's text", r.Status, r.Error)
	}

	g.awaitRun(2)
	if _, r, _ := call(7); r.Status != oplog.StatusSuccess {
		t.Fatalf("a clean call in run 2: %s %q", r.Status, r.Error)
	}
	res, r, took = call(5000)
	t.Logf("the abort answered in %s", took)
	if answer := resultText(res); r.Status != oplog.StatusCrashed || !strings.Contains(answer, "SIGABRT") {
		t.Errorf("the abort in run 2: %s after %s, %q; want crashed, naming SIGABRT", r.Status, took, answer)
	}
}

// TestGateway_Call_CrashedInFlight_SlowEnd: a game whose exit is stored
// later than the call's answer waits for (a busy disk) is answered with its
// crash once it is, not with the broken connection: the wait goes on while
// the process has exited and its end is being recorded.
func TestGateway_Call_CrashedInFlight_SlowEnd(t *testing.T) {
	g := newStdioGameSlowEnd(t, 2*time.Second)
	res, err := g.gw.Call(ctxTimeout(t, 30*time.Second), "spawn_enemy", json.RawMessage(`{"count":5000}`))
	if err != nil {
		t.Fatal(err)
	}
	answer := resultText(res)
	id, _ := res.Meta["log_id"].(uint64)
	r, err := g.log.AwaitComplete(ctxTimeout(t, 10*time.Second), id)
	if err != nil || r.Status != oplog.StatusCrashed || !strings.Contains(answer, "the game crashed during this call") || strings.Contains(answer, "EOF") {
		t.Fatalf("the call: %s %v, answered %q; want crashed, its answer the crash", r.Status, err, answer)
	}
}

// TestGateway_Call_CrashedInFlight_ExitMessage: a game that quits in the
// middle of a call with a message of its own and a failing status
// (Python's sys.exit("…"), no traceback): the agent is answered with that
// message beside the status, which the run's crash is titled by.
func TestGateway_Call_CrashedInFlight_ExitMessage(t *testing.T) {
	g := newStdioGame(t)
	res, err := g.gw.Call(ctxTimeout(t, 20*time.Second), "spawn_enemy", json.RawMessage(`{"count":-3}`))
	if err != nil {
		t.Fatal(err)
	}
	answer := resultText(res)
	want := "the game crashed during this call: spawn_enemy: the count is -3, below zero; quitting (python3 exited with status 1)"
	if !res.IsError || !strings.Contains(answer, want) {
		t.Errorf("the call answered %q; want %q", answer, want)
	}
}

// resultText is the text of a tool's result.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
