package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
)

// TestStudioScope_TwoServes is the try-out: two `mcplogd serve`
// with a studio (one from config.json, one from flags), two data
// directories and machine names, a crash ingested on each; find_crashes
// {scope: "studio"} through one server's MCP endpoint shows one group seen
// on both machines, and `mcplogd crashes --studio` and `search --studio`
// say the same from the command line, for the server whose studio is in
// config.json and for the one given --studio URL (the CLI asks it).
func TestStudioScope_TwoServes(t *testing.T) {
	vl := vltest.Start(t)
	alice, ci := filepath.Join(t.TempDir(), "alice"), filepath.Join(t.TempDir(), "ci")
	if err := os.MkdirAll(alice, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `{"studio": {"url": "` + vl.URL + `", "project": "game", "machine": "alice-pc"}}`
	if err := os.WriteFile(filepath.Join(alice, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	baseA, _, _ := startServe(t, alice, "--addr", "127.0.0.1:0")
	baseB, _, _ := startServe(t, ci, "--addr", "127.0.0.1:0", "--studio", vl.URL, "--project", "game", "--machine", "ci-7")
	crash := `{"level":"Exception","source":"unity","text":"NullReferenceException: Object reference not set to an instance of an object","stackTrace":"Player.Update () (at Assets/Scripts/Player.cs:42)"}` + "\n"
	for _, s := range []struct{ base, data string }{{baseA, alice}, {baseA, alice}, {baseB, ci}} {
		if code, body := post(t, s.base+"/api/v1/logs", readToken(t, s.data), crash); code != 200 {
			t.Fatalf("ingest: %d %s", code, body)
		}
	}
	logtest.Eventually(t, 30*time.Second, "the three crashes in VictoriaLogs", func() bool {
		rows, err := vl.TryQuery(context.Background(), `{project="game"} signature:* | stats count() as n`)
		return err == nil && len(rows) == 1 && rows[0]["n"] == "3"
	})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: baseB + "/mcp/" + readToken(t, ci)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_crashes", Arguments: map[string]any{"scope": "studio"}})
	if err != nil || res.IsError {
		t.Fatalf("find_crashes: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var a struct {
		Groups []struct {
			Count    int `json:"count"`
			Machines []struct {
				Machine string `json:"machine"`
				Count   int    `json:"count"`
			} `json:"machines"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(b, &a); err != nil || len(a.Groups) != 1 || a.Groups[0].Count != 3 || len(a.Groups[0].Machines) != 2 ||
		a.Groups[0].Machines[0].Machine != "alice-pc" || a.Groups[0].Machines[0].Count != 2 || a.Groups[0].Machines[1].Machine != "ci-7" {
		t.Fatalf("find_crashes {scope: studio}: %s", b)
	}

	out, err := run(t, alice, "crashes", "--studio")
	if err != nil || !strings.Contains(out, "3× NullReferenceException: Object reference not set to an instance of an object in Player.Update () (at Assets/Scripts/Player.cs:42)") || !strings.Contains(out, "on alice-pc ×2, ci-7 ×1") {
		t.Errorf("crashes --studio: %q, %v", out, err)
	}
	out, err = run(t, alice, "search", "--studio", "--machine", "ci-7", "object reference")
	if err != nil || strings.Count(out, "ci-7 ") != 1 || strings.Contains(out, "alice-pc") {
		t.Errorf("search --studio --machine ci-7: %q, %v", out, err)
	}
	// An empty answer suggests the request without the filter that shuts out the most.
	out, err = run(t, alice, "search", "--studio", "--machine", "ci-7", "--level", "fatal", "object reference")
	if err != nil || !strings.Contains(out, `-- 0 hits; without level="fatal": query="object reference" scope="studio" machine="ci-7" (1 record)`) {
		t.Errorf("search --studio with nothing found: %q, %v", out, err)
	}
	// ci's studio comes from serve's flags only (no config.json): the
	// commands ask its running server.
	out, err = run(t, ci, "crashes", "--studio")
	if err != nil || !strings.Contains(out, "on alice-pc ×2, ci-7 ×1") {
		t.Errorf("crashes --studio of a server started with --studio URL: %q, %v", out, err)
	}
	out, err = run(t, ci, "search", "--studio", "--machine", "alice-pc", "object reference")
	if err != nil || strings.Count(out, "alice-pc ") != 2 || !strings.Contains(out, "(studio game)") {
		t.Errorf("search --studio of a server started with --studio URL: %q, %v", out, err)
	}
	lone := filepath.Join(t.TempDir(), "lone")
	startServe(t, lone, "--addr", "127.0.0.1:0")
	if _, err := run(t, lone, "crashes", "--studio"); err == nil || !strings.Contains(err.Error(), "has no studio: start its server with mcplogd serve --studio") {
		t.Errorf("crashes --studio with neither a studio server nor config.json's studio: %v", err)
	}
	if _, err := run(t, alice, "search", "--machine", "ci-7", "x"); err == nil || !strings.Contains(err.Error(), "--machine: only with --studio") {
		t.Errorf("--machine without --studio: %v", err)
	}
}
