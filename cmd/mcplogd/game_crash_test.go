//go:build !windows

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// TestServe_GameCrashesInACall: a game that is its own MCP server over
// stdio (gateway/testdata/stdio_game.py), behind serve --upstream
// game=cmd:…, crashes in the middle of spawn_enemy in runs 1 and 3 and
// quits cleanly in run 2, as an agent drives it over stdio. The crashing
// call is answered with the crash, not a broken pipe; get_result says it
// crashed the game; store_info shows the game crashed, then running again;
// find_crashes {limit: 1} names the call in flight with its arguments and
// says that spawn_enemy {count} was in flight in 2 of 2 crashed runs and 0
// of 1 clean.
func TestServe_GameCrashesInACall(t *testing.T) {
	python, game := stdioGame(t)
	data := filepath.Join(t.TempDir(), "data")
	startServe(t, data, "--addr", "127.0.0.1:0", "--upstream", fmt.Sprintf("game=cmd:%q %q", python, game))
	gameCrashesInACall(t, data)
}

// TestServe_GameCrashesInACall_OneGame: the same game writes its lines
// and its crash to a log file instead of standard error, followed under
// another name (Game) than its upstream's (game), the two declared one
// game with --game: its calls and its crash share its runs all the same,
// and the crash its log holds lands in the run it ended.
func TestServe_GameCrashesInACall_OneGame(t *testing.T) {
	python, game := stdioGame(t)
	dir := t.TempDir()
	data, log := filepath.Join(dir, "data"), filepath.Join(dir, "game.log")
	startServe(t, data, "--addr", "127.0.0.1:0", "--upstream", fmt.Sprintf("game=cmd:%q %q --log %q", python, game, log),
		"--follow", "Game="+log, "--game", "game=Game")
	gameCrashesInACall(t, data)
	cs := startStdio(t, data)
	// The log's lines are the game's: read under either name.
	logs := callJSON(t, cs, "search_logs", map[string]any{"source": "Game", "query": "OverflowError", "format": "json"})
	if b, _ := json.Marshal(logs); strings.Contains(string(b), `"source":"Game"`) || !strings.Contains(string(b), `"source":"game"`) {
		t.Errorf("search_logs {source: Game, query: OverflowError}: want the crash, recorded as game: %s", b)
	}
	info, _ := json.Marshal(callJSON(t, cs, "store_info", nil)["games"])
	if strings.Contains(string(info), `"Game"`) {
		t.Errorf("store_info's games: Game is a game of its own: %s", info)
	}
}

// TestServe_GameCrashesInACall_HTTP: the same game serving MCP over
// Streamable HTTP, each answer plain JSON (no event stream), launched by
// serve --run under another name declared one game. The call it dies
// under is answered with the crash, not the POST that broke under it, and
// recorded crashed.
func TestServe_GameCrashesInACall_HTTP(t *testing.T) {
	python, game := stdioGame(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	data := filepath.Join(t.TempDir(), "data")
	startServe(t, data, "--addr", "127.0.0.1:0", "--upstream", fmt.Sprintf("game=http://127.0.0.1:%d/mcp", port),
		"--run", fmt.Sprintf("Game=%s %s --http %d", python, game, port), "--game", "game=Game")
	cs := startStdio(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logtest.Eventually(t, time.Minute, "a clean spawn_enemy", func() bool {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spawn_enemy", Arguments: map[string]any{"count": 5}})
		return err == nil && !res.IsError && strings.Contains(resultText(res), "spawned 5 enemies")
	})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spawn_enemy", Arguments: map[string]any{"count": 500}})
	if err != nil {
		t.Fatal(err)
	}
	answer := resultText(res)
	if !res.IsError || !strings.Contains(answer, "the game crashed during this call: OverflowError") || strings.Contains(answer, "EOF") {
		t.Fatalf("spawn_enemy {count: 500} answered %v: %s; want the crash", res.IsError, answer)
	}
	id, _ := res.Meta["log_id"].(float64)
	if r := callJSON(t, cs, "get_result", map[string]any{"log_id": id}); r["status"] != "crashed" {
		t.Fatalf("get_result of the crashing call: %v", r)
	}
}

// resultText is the text of a tool's answer.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func stdioGame(t *testing.T) (python, game string) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	game, err = filepath.Abs("../../gateway/testdata/stdio_game.py")
	if err != nil {
		t.Fatal(err)
	}
	return python, game
}

// gameCrashesInACall drives the game behind the server of data through
// three runs over stdio and checks what the agent is told.
func gameCrashesInACall(t *testing.T, data string) {
	cs := startStdio(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	call := func(tool string, args map[string]any) (*mcp.CallToolResult, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		return res, resultText(res)
	}
	spawned := func(run int) {
		t.Helper()
		// Until the game is up (again), its tool is unknown or unreachable.
		logtest.Eventually(t, time.Minute, fmt.Sprintf("a clean spawn_enemy in run %d", run), func() bool {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spawn_enemy", Arguments: map[string]any{"count": 5}})
			return err == nil && !res.IsError && len(res.Content) > 0 && strings.Contains(res.Content[0].(*mcp.TextContent).Text, "spawned 5 enemies")
		})
	}
	crashes := func(count int) {
		t.Helper()
		res, text := call("spawn_enemy", map[string]any{"count": count})
		if !res.IsError || !strings.Contains(text, "crashed") || !strings.Contains(text, "OverflowError") || strings.Contains(text, "EOF") {
			t.Fatalf("spawn_enemy {count: %d} answered %v: %s; want the crash", count, res.IsError, text)
		}
		id, _ := res.Meta["log_id"].(float64)
		if r := callJSON(t, cs, "get_result", map[string]any{"log_id": id}); r["status"] != "crashed" {
			t.Fatalf("get_result of the crashing call: %v", r)
		}
	}
	gameHealth := func() map[string]any {
		for _, g := range callJSON(t, cs, "store_info", nil)["games"].([]any) {
			if g := g.(map[string]any); g["name"] == "game" {
				return g
			}
		}
		return nil
	}

	spawned(1)
	crashes(500)
	logtest.Eventually(t, time.Minute, "the game running again as run 2", func() bool {
		g := gameHealth()
		return g != nil && g["state"] == "running" && g["run"] == float64(2) && strings.Contains(fmt.Sprint(g["end"]), "exited with status 1")
	})
	spawned(2)
	if res, text := call("quit", nil); res.IsError {
		t.Fatalf("quit: %s", text)
	}
	logtest.Eventually(t, time.Minute, "run 2 exited and run 3 running", func() bool {
		g := gameHealth()
		return g != nil && g["state"] == "running" && g["run"] == float64(3)
	})
	spawned(3)
	crashes(250)

	res, text := call("find_crashes", map[string]any{"limit": 1, "source": "game"})
	if res.IsError || len(text) > 4<<10 {
		t.Fatalf("find_crashes {limit: 1}: %d bytes, error %v:\n%s", len(text), res.IsError, text)
	}
	var out struct {
		Groups []struct {
			InFlight   []string `json:"inFlight"`
			Recurrence []string `json:"recurrence"`
		} `json:"groups"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || len(out.Groups) != 1 {
		t.Fatalf("find_crashes {limit: 1}: %v\n%s", err, text)
	}
	g := out.Groups[0]
	if len(g.InFlight) == 0 || !strings.Contains(g.InFlight[len(g.InFlight)-1], `spawn_enemy {"count":250}`) {
		t.Errorf("in flight: %q, want spawn_enemy {\"count\":250}\n%s", g.InFlight, text)
	}
	if len(g.Recurrence) == 0 || !strings.HasPrefix(g.Recurrence[0], "spawn_enemy {count} in flight in 2 of 2 crashed runs, 0 of 1 clean") {
		t.Errorf("recurrence: %q\n%s", g.Recurrence, text)
	}
	// mcplogd compare names the call shape over-represented in the crashed runs.
	cmp, err := run(t, data, "compare", "--source", "game", "--run", "3", "--against", "2")
	if err != nil || !strings.Contains(cmp, "calls   spawn_enemy {count} in flight in 2 of 2 crashed runs, 0 of 1 clean") {
		t.Errorf("mcplogd compare: %v\n%s", err, cmp)
	}
	// mcplogd crashes --limit 1 tells the same story as find_crashes {limit: 1}.
	story, err := run(t, data, "crashes", "--limit", "1", "--source", "game", "--no-pager")
	if len(g.InFlight) == 0 || len(g.Recurrence) == 0 {
		return // said above
	}
	if err != nil || !strings.Contains(story, "in flight: "+g.InFlight[len(g.InFlight)-1]) ||
		!strings.Contains(story, "across runs: "+g.Recurrence[0]) {
		t.Errorf("mcplogd crashes --limit 1: %v\n%s", err, story)
	}
}
