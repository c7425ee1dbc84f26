package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// luantiRun is a launch of Luanti as debug.txt gets it: the separator,
// then mins minutes of lines stamped by the game: chunks mapblock lines a
// minute, a player line every 10 s, and warns warnings.
func luantiRun(start time.Time, mins, chunks, warns int) string {
	var b strings.Builder
	b.WriteString("\n\n-------------\n  Separator\n-------------\n\n")
	line := func(at time.Time, level, text string) {
		fmt.Fprintf(&b, "%s: %s[Server]: %s\n", at.Format("2006-01-02 15:04:05"), level, text)
	}
	n := 0
	for m := range mins {
		for s := 0; s < 60; s++ {
			at := start.Add(time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
			if s%10 == 0 {
				line(at, "ACTION", fmt.Sprintf("[logtest] player moved to (%d, 4)", s))
			}
			if chunks > 0 && s%(60/chunks) == 0 {
				n++
				line(at, "ACTION", fmt.Sprintf("[logtest] mapblock %d generated in %d ms", n, 10+n%13))
			}
		}
	}
	for i := range warns {
		line(start.Add(time.Duration(mins)*time.Minute), "WARNING", fmt.Sprintf("[logtest] texture missing: tile_%d.png", i))
	}
	return b.String()
}

// TestServe_CompareRuns_Louder: a followed Luanti server whose second
// launch generates mapblocks ten times as often per minute and warns of a
// missing texture: compare_runs {} names both, the louder one with both
// rates, within 4 KB; log_stats {} marks it; mcplogd compare prints it.
func TestServe_CompareRuns_Louder(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(t.TempDir(), "debug.txt")
	t0 := time.Date(2026, 12, 2, 16, 0, 0, 0, time.Local)
	if err := os.WriteFile(path, []byte(luantiRun(t0, 10, 2, 0)), 0o600); err != nil {
		t.Fatal(err)
	}
	base, _, _ := startServe(t, data, "--addr", "127.0.0.1:0", "--follow", "luanti:Server="+path)
	token := readToken(t, data)
	waitLines(t, base, token, "Server", 10*6+20)
	appendFile(t, path, luantiRun(t0.Add(time.Hour), 10, 20, 1))
	waitLines(t, base, token, "Server", 2*10*6+20+200+1)

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp/" + token}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "compare_runs", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("compare_runs: %v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	whole, _ := json.Marshal(res)
	if len(whole) > 4<<10 {
		t.Errorf("compare_runs: %d bytes, want ≤ 4096", len(whole))
	}
	t.Logf("compare_runs, %d bytes:\n%s", len(whole), text)
	for _, want := range []string{
		"louder: info ×200 [logtest] mapblock <N> generated in <N> ms #", "(2.0/min → 20/min)",
		"new: warn ×1 [logtest] texture missing: tile_<N>.png",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("compare_runs lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "player moved") {
		t.Errorf("compare_runs calls the player lines, as frequent as before, louder:\n%s", text)
	}
	stats, _ := toolText(t, cs, "log_stats", map[string]any{})
	if !strings.Contains(stats, "top, louder: info ×200 [logtest] mapblock <N> generated in <N> ms #") || !strings.Contains(stats, "(2.0/min → 20/min)") {
		t.Errorf("log_stats does not mark the mapblock lines louder:\n%s", stats)
	}
	t.Logf("log_stats:\n%s", stats)
	out, err := run(t, data, "compare")
	t.Logf("mcplogd compare:\n%s", out)
	if err != nil || !strings.Contains(out, "louder  info  2.0/min → 20/min  [logtest] mapblock <N> generated in <N> ms") {
		t.Errorf("mcplogd compare: %v\n%s", err, out)
	}
}
