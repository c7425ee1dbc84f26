package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// pastedLines are error lines as a game prints them, each with what a
// parser keeps apart from its text before it (a level, a date and time,
// a level and logger), and the text stored.
var pastedLines = []struct{ printed, stored string }{
	{`[ERROR] Failed to load texture "sprites/hero@2x.png": file not found (errno=2)`,
		`Failed to load texture "sprites/hero@2x.png": file not found (errno=2)`},
	{`ERROR: Condition "!is_inside_tree()" is true. Returned: Transform()`,
		`Condition "!is_inside_tree()" is true. Returned: Transform()`},
	{`2026-12-05 10:00:00.123 ERROR [Physics] body 7 fell through the floor at y=-300`,
		`body 7 fell through the floor at y=-300`},
	{`[ERROR] net: peer -1 refused: bad handshake (code -32600)`, `net: peer -1 refused: bad handshake (code -32600)`},
	{`[ERROR] vector::_M_range_check: __n (which is 7) >= this->size() (which is 3)`,
		`vector::_M_range_check: __n (which is 7) >= this->size() (which is 3)`},
	{`ERROR: ObjectDB instances leaked at exit (run with --verbose for details).`,
		`ObjectDB instances leaked at exit (run with --verbose for details).`},
}

// TestSearch_PastedLine: an error line pasted whole, as the game printed
// it, finds its record however it arrived (a followed file, mcplogd run,
// import), though the log keeps the line's level, time and name apart from
// its text: the answer says what it left out, and its pages (through the
// cursor) go on without it. A query whose first words are a message's
// (not a line's beginning) is not answered so: it gets the same request as
// a hint.
func TestSearch_PastedLine(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	data, dir := filepath.Join(t.TempDir(), "data"), t.TempDir()
	var printed strings.Builder
	printed.WriteString("[INFO] level loaded\n")
	for _, l := range pastedLines {
		printed.WriteString(l.printed + "\n[INFO] still running\n")
	}
	logFile, followed, game := filepath.Join(dir, "game.log"), filepath.Join(dir, "followed.log"), filepath.Join(dir, "game.py")
	for f, b := range map[string]string{logFile: printed.String(), game: "import sys\nsys.stdout.write(open(sys.argv[1]).read())\n"} {
		if err := os.WriteFile(f, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := run(t, data, "import", "--parser", "generic", "--source", "Imported", logFile); err != nil {
		t.Fatalf("import: %s %v", out, err)
	}
	base, _, _ := startServe(t, data, "--addr", "127.0.0.1:0", "--follow", "generic:Followed="+followed)
	if err := os.WriteFile(followed, []byte(printed.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, data, "run", "--name", "Ran", "--parser", "generic", "--", "python3", game, logFile); err != nil {
		t.Fatalf("run: %s %v", out, err)
	}
	token := readToken(t, data)
	logtest.Eventually(t, 30*time.Second, "the followed lines stored", func() bool {
		_, body := get(t, base+"/api/v1/records?count=100&source=Followed", token)
		return strings.Count(body, "still running") == len(pastedLines)
	})

	sources := []string{"Imported", "Followed", "Ran"}
	for _, l := range pastedLines {
		for _, source := range sources {
			out, err := run(t, data, "search", "--json", "--source", source, l.printed)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var hit struct {
				Record struct{ Text, Level string } `json:"record"`
			}
			var hint struct {
				Hint struct {
					Text string            `json:"text"`
					Args map[string]string `json:"args"`
				} `json:"hint"`
			}
			if err != nil || len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &hit) != nil || json.Unmarshal([]byte(lines[1]), &hint) != nil ||
				hit.Record.Text != l.stored || hit.Record.Level != "error" {
				t.Fatalf("search --source %s %q: %q, %v; want its record, then what was left out", source, l.printed, out, err)
			}
			lead := strings.TrimSpace(strings.TrimSuffix(l.printed, l.stored))
			if !strings.Contains(hint.Hint.Text, "shown without "+strconv.Quote(lead)) || hint.Hint.Args["query"] != l.stored {
				t.Errorf("search %q: hint %+v; want it to say it left out %q", l.printed, hint.Hint, lead)
			}
		}
	}

	// A word that begins with a minus sign is the query, not a flag, after
	// flags and before them: its number, not NOT it.
	for _, args := range [][]string{{"search", "--source", "Ran", "-32600"}, {"search", "-32600", "--source", "Ran", "--limit", "5"}} {
		if out, err := run(t, data, args...); err != nil || !strings.Contains(out, "(code -32600)") || !strings.Contains(out, "1 shown") {
			t.Errorf("mcplogd %q: %v\n%s", args, err, out)
		}
	}

	// MCP: a page at a time, the cursor leaving the line's beginning out.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp/" + token}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	seen := map[string]bool{}
	args := map[string]any{"query": pastedLines[0].printed, "limit": 1, "format": "json"}
	for page := 0; ; page++ {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_logs", Arguments: args})
		if err != nil || res.IsError || page > len(sources) {
			t.Fatalf("search_logs page %d: %+v, %v", page, res, err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var a struct {
			Hits []struct {
				Source string `json:"source"`
				Text   string `json:"text"`
			} `json:"hits"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if page == 0 && !strings.Contains(text, `shown without "[ERROR]"`) {
			t.Errorf("search_logs' text does not say what it left out:\n%s", text)
		}
		for _, h := range a.Hits {
			if h.Text != pastedLines[0].stored || seen[h.Source] {
				t.Fatalf("page %d: hit %+v (seen %v)", page, h, seen)
			}
			seen[h.Source] = true
		}
		if a.NextCursor == "" {
			break
		}
		args["cursor"] = a.NextCursor
	}
	if len(seen) != len(sources) {
		t.Fatalf("the pages held %v; want one hit of each of %v", seen, sources)
	}

	// Words of a message first: a hint, not an answer.
	out, err := run(t, data, "search", "--source", "Ran", "spawn fell through the floor")
	if err != nil || !strings.Contains(out, `0 hits; without "spawn": query="fell through the floor"`) || strings.Contains(out, "#") {
		t.Fatalf("search spawn fell through the floor: %q, %v; want a hint only", out, err)
	}
}
