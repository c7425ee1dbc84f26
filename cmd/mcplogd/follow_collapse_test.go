package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// followedEngines are a Unity, a Godot and a Luanti log as each engine
// writes them: its banner, then numbered lines of one template that the
// game streams (line n of a chunk of 10 at a time).
var followedEngines = []struct {
	parser, source, banner string
	misspelt, word         string // a word of the lines misspelt, and as written
	line                   func(n int) string
}{
	{"unity", "Unity", "Initialize engine version: 2022.3.10f1 (ff3792e53c62)\n", "streamd", "streamed",
		func(n int) string { return fmt.Sprintf("Chunk %d,%d streamed in %d ms\n", n, -n, 3+n%7) }},
	{"godot", "Godot", "Godot Engine v4.2.1.stable.official.b09f793f5 - https://godotengine.org\n", "enemey", "enemy",
		func(n int) string { return fmt.Sprintf("Spawned enemy %d at (%d, %d)\n", n, n*3, n*5) }},
	{"luanti", "Luanti", "2026-12-02 16:30:33: [Main]: Using game specified by --gameid on the command line\n", "mapblok", "mapblock",
		func(n int) string {
			return fmt.Sprintf("2026-12-02 16:30:%02d: ACTION[Server]: [logtest] mapblock %d generated in %d ms\n", 34+n/10, n, 10+n%13)
		}},
}

// TestServe_Follow_Collapse: lines read from a followed log collapse as the
// same lines posted through the API do. Each engine's log is followed
// while it grows, ten lines at a time; console_tail {} and get_logs {} of
// the followed source answer the same entries (repeat counts, templates,
// texts) as for its lines posted again under another source, where each
// line came from (the data's file, offset and fileId) left aside; and
// console_tail paged with sinceId accounts for every record once, with
// collapse on and off; a misspelt word of the lines gets the word as
// written suggested.
func TestServe_Follow_Collapse(t *testing.T) {
	const lines = 60
	data := filepath.Join(t.TempDir(), "data")
	dir := t.TempDir()
	args := []string{"--addr", "127.0.0.1:0"}
	for _, e := range followedEngines {
		path := filepath.Join(dir, e.source+".log")
		if err := os.WriteFile(path, []byte(e.banner), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--follow", e.parser+":"+e.source+"="+path)
	}
	base, _, _ := startServe(t, data, args...)
	token := readToken(t, data)
	for from := 1; from <= lines; from += 10 {
		for _, e := range followedEngines {
			var b strings.Builder
			for n := from; n < from+10; n++ {
				b.WriteString(e.line(n))
			}
			appendFile(t, filepath.Join(dir, e.source+".log"), b.String())
		}
		for _, e := range followedEngines {
			waitLines(t, base, token, e.source, from+9)
		}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp/" + token}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, e := range followedEngines {
		t.Run(e.source, func(t *testing.T) {
			followed := waitLines(t, base, token, e.source, lines+1) // the banner's line too
			if !strings.Contains(fmt.Sprint(followed[0]["data"]), "offset") {
				t.Fatalf("a followed line carries no offset in its data: %v", followed[0])
			}
			posted := "posted-" + e.source
			var body []map[string]any
			for i := len(followed) - 1; i >= 0; i-- { // oldest first
				r := followed[i]
				body = append(body, map[string]any{"source": posted, "name": r["name"], "level": r["level"], "text": r["text"]})
			}
			b, _ := json.Marshal(body)
			if code, resp := post(t, base+"/api/v1/logs", token, string(b)); code != 200 {
				t.Fatalf("posting the lines again: %d %s", code, resp)
			}
			for _, tool := range []string{"console_tail", "get_logs"} {
				got := entries(t, cs, tool, e.source)
				want := entries(t, cs, tool, posted)
				if got != want {
					t.Errorf("%s of the followed log:\n%s\nof the same lines posted:\n%s", tool, got, want)
				}
				if !strings.Contains(got, fmt.Sprintf("×%d", lines)) {
					t.Errorf("%s: no entry of the %d numbered lines:\n%s", tool, lines, got)
				}
			}
			for _, collapse := range []bool{true, false} {
				pageTail(t, cs, e.source, collapse, len(followed)+countMarkers(t, cs, e.source))
			}
			// A misspelt word of the followed lines: the empty answer
			// suggests the word as written, and the suggestion finds them.
			a := callJSON(t, cs, "search_logs", map[string]any{"query": e.misspelt, "source": e.source})
			hint, _ := a["hint"].(map[string]any)
			args, _ := hint["args"].(map[string]any)
			if args["query"] != e.word {
				t.Fatalf("search_logs {query: %q}: hint %v, want query %q", e.misspelt, a["hint"], e.word)
			}
			if again := callJSON(t, cs, "search_logs", args); again["total"] != float64(lines) {
				t.Errorf("search_logs %v, the hint as is: %v hits, want %d", args, again["total"], lines)
			}
		})
	}
}

// waitLines waits until source has at least n lines (markers aside) and
// returns its lines, newest first.
func waitLines(t *testing.T, base, token, source string, n int) []map[string]any {
	t.Helper()
	var got []map[string]any
	logtest.Eventually(t, 30*time.Second, fmt.Sprintf("%d lines of %s", n, source), func() bool {
		got = got[:0]
		for _, r := range records(t, base, token, source) {
			if r["kind"] == "line" {
				got = append(got, r)
			}
		}
		return len(got) >= n
	})
	return got
}

// records is GET /api/v1/records of source, newest first.
func records(t *testing.T, base, token, source string) []map[string]any {
	t.Helper()
	var p struct {
		Records []map[string]any `json:"records"`
	}
	getJSON(t, base+"/api/v1/records?count=1000&source="+source, token, &p)
	return p.Records
}

// entries is tool's answer for source as lines of repeat, template and
// text, the lines alone (no markers), without IDs, times or the source.
func entries(t *testing.T, cs *mcp.ClientSession, tool, source string) string {
	t.Helper()
	args := map[string]any{"source": source, "format": "json", "count": 100}
	key := "logs"
	if tool == "console_tail" {
		args = map[string]any{"source": source, "format": "json", "limit": 1000}
		key = "lines"
	}
	var b strings.Builder
	for _, e := range callJSON(t, cs, tool, args)[key].([]any) {
		m := e.(map[string]any)
		if m["marker"] == true || m["kind"] == "marker" {
			continue
		}
		fmt.Fprintf(&b, "%v ×%v %v | %v\n", m["level"], m["repeat"], m["template"], m["text"])
	}
	return b.String()
}

// countMarkers is how many markers source has.
func countMarkers(t *testing.T, cs *mcp.ClientSession, source string) int {
	t.Helper()
	n := 0
	for _, e := range callJSON(t, cs, "console_tail", map[string]any{"source": source, "limit": 1000, "collapse": false, "format": "json"})["lines"].([]any) {
		if e.(map[string]any)["marker"] == true {
			n++
		}
	}
	return n
}

// pageTail reads source's tail from the start, 7 lines a call, and checks
// that the entries cover every ID of its records once, in order: total
// records in all.
func pageTail(t *testing.T, cs *mcp.ClientSession, source string, collapse bool, total int) {
	t.Helper()
	var since, prevLast float64
	seen := 0
	for range total + 1 {
		a := callJSON(t, cs, "console_tail", map[string]any{"source": source, "sinceId": since, "limit": 7, "collapse": collapse, "format": "json"})
		ls, _ := a["lines"].([]any)
		for _, e := range ls {
			m := e.(map[string]any)
			id, _ := m["id"].(float64)
			last, _ := m["lastId"].(float64)
			repeat, _ := m["repeat"].(float64)
			if id <= prevLast {
				t.Fatalf("collapse=%v: entry #%v after #%v: read twice", collapse, id, prevLast)
			}
			prevLast = max(id, last)
			seen += max(int(repeat), 1)
		}
		since = a["lastId"].(float64)
		if more, _ := a["more"].(bool); !more {
			break
		}
	}
	if seen != total {
		t.Errorf("collapse=%v: paging the tail of %s read %d records, want %d", collapse, source, seen, total)
	}
}

// appendFile appends s to the file at path.
func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// getJSON decodes the answer to GET url into v.
func getJSON(t *testing.T, url, token string, v any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
