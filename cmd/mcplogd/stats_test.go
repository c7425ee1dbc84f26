package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestStatsCompare: mcplogd stats and compare on logtest's two runs,
// directly on the file and then through a running server.
func TestStatsCompare(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	dir, err := datadir.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	o, err := openLog(dir, openOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := logtest.AppendTwoRuns(t, o.log)
	logtest.MustCheck(t, o.db)
	o.Close()

	check := func(how string) {
		t.Helper()
		out, err := run(t, data, "stats")
		if err != nil || !strings.Contains(out, "game run 2 (running): 26 records") || !strings.Contains(out, want.Noisy) ||
			!strings.Contains(out, "crash group NEW: error ×3 Texture missing for Tree_5") {
			t.Errorf("stats %s: %v\n%s", how, err, out)
		}
		// Each template's line ends with its ID as search takes it, which
		// finds its 25 records.
		noisy := "template:" + oplog.TextTemplateID("Loaded scene Main in 100 ms")
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, want.Noisy) && !strings.HasSuffix(line, "  "+noisy) {
				t.Errorf("stats %s: the line of %q does not end with %s: %q", how, want.Noisy, noisy, line)
			}
		}
		if out, err := run(t, data, "search", noisy, "--limit", "100"); err != nil || !strings.Contains(out, "25 shown, 25 matching") {
			t.Errorf("search %s %s: %v\n%s", noisy, how, err, out)
		}
		out, err = run(t, data, "compare", "--json")
		var c oplog.Comparison
		if err != nil || json.Unmarshal([]byte(out), &c) != nil || len(c.Sources) != 1 {
			t.Fatalf("compare --json %s: %v\n%s", how, err, out)
		}
		out, err = run(t, data, "compare")
		for _, line := range []string{"gone    error 4 → 0  " + want.A, "new     error 0 → 3  " + want.B, "without crashing"} {
			if err != nil || !strings.Contains(out, line) {
				t.Errorf("compare %s: no %q: %v\n%s", how, line, err, out)
			}
		}
		if _, err := run(t, data, "compare", "--against", "bogus"); err == nil || !strings.HasPrefix(err.Error(), "--against:") {
			t.Errorf("compare --against bogus %s: %v, want an error naming --against", how, err)
		}
	}
	check("on the file")
	_, _, stop := startServe(t, data, "--addr", "127.0.0.1:0")
	check("through the server")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// toolText calls an MCP tool and returns its text and whether it is a
// tool error.
func toolText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// TestStats_UnnamedLines: the lines of a source without a name are
// counted as "Game (no name)" beside the source's named records (the end
// marker of an import), by mcplogd stats, log_stats and list_log_names;
// never "Game/".
func TestStats_UnnamedLines(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	file := filepath.Join(t.TempDir(), "game.log")
	if err := os.WriteFile(file, []byte("Player spawned at 0,0\nLevel loaded in 120 ms\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "import", "--create", "--source", "Game", file); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, data, "stats")
	if err != nil || !strings.Contains(out, "\n       2  Game (no name)\n       1  Game/end\n") || strings.Contains(out, "Game/\n") {
		t.Errorf("stats:\n%s (%v)", out, err)
	}
	cs := startStdio(t, data, "--in-process")
	stats := callJSON(t, cs, "log_stats", nil)
	if names := fmt.Sprint(stats["names"]); names != "[Game (no name) ×2 Game/end ×1]" {
		t.Errorf("log_stats names: %s", names)
	}
	if text, isErr := toolText(t, cs, "list_log_names", nil); isErr || !strings.Contains(text, "\nGame (no name) 2 (info 2)") || strings.Contains(text, "Game/ ") {
		t.Errorf("list_log_names:\n%s", text)
	}
}
