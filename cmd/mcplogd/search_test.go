package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

func TestSearch_DirectAndServed(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	file := filepath.Join(t.TempDir(), "lines.ndjson")
	var b strings.Builder
	for i := range 300 {
		level := "info"
		if i%10 == 0 {
			level = "error"
		}
		fmt.Fprintf(&b, `{"level":%q,"name":"Physics","text":"body %d hit the wall"}`+"\n", level, i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "import", "--create", file); err != nil {
		t.Fatal(err)
	}
	// No server: the store and index are opened here (the index starts empty and matches anyway).
	out, err := run(t, data, "search", "--level", "error", "--limit", "2", "wall")
	// Above the watermark the walk stops at the page, so the total may be an estimate.
	// Not a terminal: the highlight's ** marks are dropped (--json keeps them).
	if err != nil || !strings.Contains(out, "#291 ERROR default/Physics body 290 hit the wall\n") || !regexp.MustCompile(`2 shown, (30|about \d+) matching; more with --cursor`).MatchString(out) {
		t.Fatalf("search: %q, %v", out, err)
	}
	out, err = run(t, data, "search", "--json", "--limit", "1", "wall")
	if err != nil || !strings.Contains(out, `"fragment":"body 299 hit the **wall**"`) {
		t.Fatalf("search --json: %q, %v", out, err)
	}
	// The next page's cursor is a JSON line of its own, and reads on.
	var next struct {
		NextCursor string `json:"nextCursor"`
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &next); err != nil || next.NextCursor == "" {
		t.Fatalf("search --json: no nextCursor line: %q, %v", out, err)
	}
	if out, err := run(t, data, "search", "--json", "--limit", "1", "--cursor", next.NextCursor, "wall"); err != nil || !strings.Contains(out, `"fragment":"body 298 hit the **wall**"`) {
		t.Fatalf("search --json --cursor: %q, %v", out, err)
	}
	// The newest lines past what one page holds: -n 1000000 prints all
	// 300, -n 250 the newest 250, oldest first.
	if out, err := run(t, data, "tail", "-n", "1000000", "--json"); err != nil || strings.Count(out, "body ") != 300 || !strings.Contains(out, `"text":"body 0 hit the wall"`) {
		t.Fatalf("tail -n 1000000: %d lines, %v", strings.Count(out, "\n"), err)
	}
	if out, err := run(t, data, "tail", "-n", "250"); err != nil || strings.Count(out, "\n") != 250 || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "body 50 hit") {
		t.Fatalf("tail -n 250: %d lines, the first %q, %v", strings.Count(out, "\n"), strings.SplitN(out, "\n", 2)[0], err)
	}
	if _, err := run(t, data, "search", "name:Physics AND ("); err == nil || !strings.Contains(err.Error(), "never closed") {
		t.Fatalf("bad query: %v", err)
	}
	out, err = run(t, data, "reindex")
	if err != nil || !strings.Contains(out, "reindexed 300 records") {
		t.Fatalf("reindex: %q, %v", out, err)
	}
	// A server holds the data: search asks it, reindex refuses.
	startServe(t, data, "--addr", "127.0.0.1:0")
	out, err = run(t, data, "search", "--json", "--limit", "1", "level:error")
	if err != nil || !strings.HasPrefix(out, `{"record":{"id":291,`) {
		t.Fatalf("search through the server: %q, %v", out, err)
	}
	if _, err := run(t, data, "reindex"); err == nil || !strings.Contains(err.Error(), "stop it") {
		t.Fatalf("reindex while serving: %v", err)
	}
}

// loveLog is what a LÖVE game prints when a Lua error ends it, and a line
// of its own with "attempt index" but no word between.
const loveLog = "[INFO] love.load called\n" +
	"[INFO] first frame update\n" +
	"Error: main.lua:5: attempt to index a nil value (global 'player')\n" +
	"stack traceback:\n" +
	"\t[love \"boot.lua\"]:345: in function '__index'\n" +
	"\tmain.lua:5: in function 'update'\n" +
	"\t[C]: in function 'xpcall'\n" +
	"[INFO] save attempt index 3 written\n" +
	"[INFO] quit\n"

// loveError is the text the error line is stored with, and "attempt
// index" the other line's.
const (
	loveError    = "main.lua:5: attempt to index a nil value (global 'player')"
	loveAdjacent = "save attempt index 3 written"
)

// TestSearch_StopWords: the words of an error as an agent pastes them
// ("attempt to index": to is a stop word, left out of the index) find the
// LÖVE error line, imported or followed, on every surface: the CLI (on
// its own, right after the import, and through a server), MCP search_logs
// and the HTTP API the web page asks; a phrase keeps the stop word's place.
// A query of only stop words, or a field without a value, is an error that
// says what to write.
func TestSearch_StopWords(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	logs := t.TempDir()
	imported, followed := filepath.Join(logs, "imported.log"), filepath.Join(logs, "followed.log")
	for _, f := range []string{imported, followed} {
		if err := os.WriteFile(f, []byte(loveLog), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := run(t, data, "import", "--parser", "love", "--source", "Imported", imported); err != nil {
		t.Fatal(err)
	}
	// texts returns the texts of search --json's hits, newest first.
	texts := func(out string) []string {
		t.Helper()
		var ts []string
		for line := range strings.Lines(out) {
			var h struct {
				Record   struct{ Text string } `json:"record"`
				Fragment string                `json:"fragment"`
			}
			if err := json.Unmarshal([]byte(line), &h); err != nil {
				t.Fatalf("search --json: %q: %v", line, err)
			}
			if h.Record.Text == loveError && h.Fragment != "main.lua:5: **attempt** to index a nil value (global 'player')" {
				t.Errorf("fragment %q", h.Fragment)
			}
			ts = append(ts, h.Record.Text)
		}
		return ts
	}
	both, errorOnly := []string{loveAdjacent, loveError}, []string{loveError}
	cli := func(source string) {
		t.Helper()
		for q, want := range map[string][]string{
			"attempt to index":   both, // as "attempt index": to is left out
			`"attempt to index"`: errorOnly,
			`"attempt index"`:    {loveAdjacent},
			"attempt to index a nil value (global 'player')": errorOnly,
		} {
			out, err := run(t, data, "search", "--json", "--source", source, q)
			if got := texts(out); err != nil || !slices.Equal(got, want) {
				t.Fatalf("search --source %s %q: %q (%v), want %q", source, q, got, err, want)
			}
		}
		tooCommon := "query: `to` is too common to search (it is left out of the index, so alone it matches nothing); add a rarer word or a phrase around it"
		if out, err := run(t, data, "search", "to"); err == nil || out != "" || !strings.Contains(err.Error(), tooCommon) {
			t.Fatalf("search to: %q, %v; want the error %q", out, err, tooCommon)
		}
		if _, err := run(t, data, "search", "name:"); err == nil ||
			!strings.Contains(err.Error(), "name: has no value; write one right after the colon, such as name:Physics") {
			t.Fatalf("search name: %v", err)
		}
	}
	// No server: the store and an index that holds nothing yet.
	cli("Imported")

	base, _, _ := startServe(t, data, "--addr", "127.0.0.1:0", "--follow", "love:Game="+followed)
	token := readToken(t, data)
	logtest.Eventually(t, 30*time.Second, "the followed lines stored", func() bool {
		_, body := get(t, base+"/api/v1/records?count=100&source=Game", token)
		return strings.Contains(body, loveAdjacent)
	})
	cli("Game")

	// The HTTP API, as the web page asks it.
	search := func(q string) (int, []string, string) {
		t.Helper()
		status, body := get(t, base+"/api/v1/search?"+url.Values{"query": {q}, "source": {"Game"}}.Encode(), token)
		var a struct {
			Hits []struct {
				Record struct{ Text string } `json:"record"`
			} `json:"hits"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(body), &a); err != nil {
			t.Fatalf("search %q: %d %q: %v", q, status, body, err)
		}
		var ts []string
		for _, h := range a.Hits {
			ts = append(ts, h.Record.Text)
		}
		return status, ts, a.Message
	}
	if status, got, _ := search("attempt to index"); status != http.StatusOK || !slices.Equal(got, both) {
		t.Fatalf("GET /api/v1/search attempt to index: %d %q", status, got)
	}
	if status, got, _ := search(`"attempt to index"`); status != http.StatusOK || !slices.Equal(got, errorOnly) {
		t.Fatalf(`GET /api/v1/search "attempt to index": %d %q`, status, got)
	}
	for q, want := range map[string]string{
		"to":    "query: `to` is too common to search",
		"the a": "query: `the` and `a` are too common to search",
		"name:": "name: has no value; write one right after the colon, such as name:Physics",
	} {
		if status, _, msg := search(q); status != http.StatusBadRequest || !strings.Contains(msg, want) {
			t.Fatalf("GET /api/v1/search %q: %d %q, want 400 saying %q", q, status, msg, want)
		}
	}

	// MCP: search_logs.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp/" + token}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(args map[string]any) (*mcp.CallToolResult, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_logs", Arguments: args})
		if err != nil {
			t.Fatalf("search_logs %v: %v", args, err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		return res, text.String()
	}
	res, text := call(map[string]any{"query": "attempt to index", "source": "Game"})
	if res.IsError || !strings.Contains(text, "search_logs: 2 hits of 2") || !strings.Contains(text, "**attempt** to index a nil value") {
		t.Fatalf("search_logs attempt to index: %s", text)
	}
	res, text = call(map[string]any{"query": `"attempt to index"`, "source": "Game"})
	if res.IsError || !strings.Contains(text, "search_logs: 1 hits of 1") || !strings.Contains(text, "**attempt** to index a nil value") {
		t.Fatalf(`search_logs "attempt to index": %s`, text)
	}
	for q, want := range map[string]string{
		"to":    "invalid argument: query: `to` is too common to search (it is left out of the index, so alone it matches nothing); add a rarer word or a phrase around it",
		`"to"`:  "invalid argument: query: `to` is too common to search",
		"name:": "invalid argument: query: syntax error at character 6: name: has no value; write one right after the colon, such as name:Physics",
	} {
		if res, text := call(map[string]any{"query": q}); !res.IsError || !strings.HasPrefix(text, want) {
			t.Fatalf("search_logs %q: isError %v, %q; want %q", q, res.IsError, text, want)
		}
	}

	// The binary: the error on standard error, a status that is not 0.
	cmd := exec.Command(buildBinary(t), "search", "to")
	cmd.Env = cliEnv(data)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 ||
		stderr.String() != "mcplogd: query: `to` is too common to search (it is left out of the index, so alone it matches nothing); add a rarer word or a phrase around it\n" {
		t.Fatalf("mcplogd search to: %v, stderr %q", err, stderr.String())
	}

	// A bad query fails in oplog.Resolve, once, with one message on every
	// surface: the HTTP answer's, MCP's after "invalid argument: ", the
	// binary's after "mcplogd: ".
	for _, q := range []string{"to", "name:", "(null", "level:loud", "kind:line*x", "template:xyz", `"the a"`} {
		status, _, msg := search(q)
		if status != http.StatusBadRequest || !strings.HasPrefix(msg, "query: ") {
			t.Fatalf("GET /api/v1/search %q: %d %q, want 400 and the query's error", q, status, msg)
		}
		if res, text := call(map[string]any{"query": q}); !res.IsError || !strings.HasPrefix(text, "invalid argument: "+msg) {
			t.Errorf("search_logs %q: %q, want the HTTP answer's error %q", q, text, msg)
		}
		cmd := exec.Command(buildBinary(t), "search", q)
		cmd.Env = cliEnv(data)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		_ = cmd.Run() // its status is the other test's above
		if stderr.String() != "mcplogd: "+msg+"\n" {
			t.Errorf("mcplogd search %q: stderr %q, want the HTTP answer's error %q", q, stderr.String(), msg)
		}
	}
}

// TestSearch_Hint: an empty search prints the hint as its last line, the
// same with and without a server; the query it suggests, sent as is,
// finds exactly the records of the word misspelt, and the span of time
// it gives for a word near none finds every record.
func TestSearch_Hint(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	file := filepath.Join(t.TempDir(), "lines.ndjson")
	var b strings.Builder
	var want []string
	for i := range 300 {
		text := fmt.Sprintf("body %d hit the wall", i)
		if i%30 == 0 {
			text = fmt.Sprintf("tile %d is walkable", i)
			want = append([]string{fmt.Sprintf("#%d INFO default/Nav %s", i+1, text)}, want...)
		}
		fmt.Fprintf(&b, `{"level":"info","name":"Nav","text":%q}`+"\n", text)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "import", "--create", file); err != nil {
		t.Fatal(err)
	}
	check := func(how string) {
		t.Helper()
		out, err := run(t, data, "search", "walkabel")
		hint := `-- 0 hits; did you mean query="walkable" (10 records)?`
		if err != nil || !strings.HasSuffix(out, "\n"+hint+"\n") {
			t.Fatalf("%s: search walkabel: %q, %v; want it to end with %q", how, out, err, hint)
		}
		out, err = run(t, data, "search", "--limit", "100", "walkable")
		var got []string
		for _, line := range strings.Split(out, "\n") {
			if _, rec, ok := strings.Cut(line, " #"); ok { // after the time
				got = append(got, "#"+strings.Join(strings.Fields(rec), " "))
			}
		}
		if err != nil || !slices.Equal(got, want) || strings.Contains(out, "0 hits") {
			t.Fatalf("%s: search walkable: %q, %v; want %q", how, out, err, want)
		}
		out, err = run(t, data, "search", "--until", "2001-01-01", "qzxjvwpk")
		m := regexp.MustCompile(`-- 0 hits; the log's records span since="(.*?)" until="(.*?)" \(300 records\)\n$`).FindStringSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("%s: search qzxjvwpk: %q, %v; want the log's span", how, out, err)
		}
		if out, err := run(t, data, "search", "--since", m[1], "--until", m[2]); err != nil || !strings.Contains(out, "300 matching") {
			t.Fatalf("%s: the span %s..%s: %q, %v; want 300 records", how, m[1], m[2], out, err)
		}
	}
	check("direct")
	startServe(t, data, "--addr", "127.0.0.1:0")
	check("served")
}

// TestTail_Hint: an empty tail with filters prints, last, the hint of
// the filter to drop; its arguments, sent as flags, print the lines.
func TestTail_Hint(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	file := filepath.Join(t.TempDir(), "lines.ndjson")
	var b strings.Builder
	for i := range 50 {
		name := "Render"
		if i%10 == 0 {
			name = "Nav"
		}
		fmt.Fprintf(&b, `{"level":"info","name":%q,"text":"line %d"}`+"\n", name, i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "import", "--create", file); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{nil, {"-r"}} {
		out, err := run(t, data, append([]string{"tail", "--level", "error", "--name", "Nav"}, flags...)...)
		hint := `-- 0 records; without level="error": name="Nav" kind="line" (5 records)` + "\n"
		if err != nil || out != hint {
			t.Fatalf("tail %v: %q, %v; want %q", flags, out, err, hint)
		}
	}
	out, err := run(t, data, "tail", "--name", "Nav", "--kind", "line")
	if err != nil || strings.Count(out, " default/Nav line ") != 5 || strings.Contains(out, "0 records") {
		t.Fatalf("tail --name Nav --kind line: %q, %v; want the 5 lines", out, err)
	}
}
