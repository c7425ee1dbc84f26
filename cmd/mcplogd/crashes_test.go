package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrashes: mcplogd crashes through a running server, then directly on
// the file once it stopped.
func TestCrashes(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, _, stop := startServe(t, data, "--addr", "127.0.0.1:0")
	token := readToken(t, data)
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, `{"level":"Exception","source":"unity","text":"NullReferenceException: Object reference not set to an instance of an object","stackTrace":"Player.Update () (at Assets/Scripts/Player.cs:%d)"}`+"\n", 40+i)
	}
	b.WriteString(`{"level":"error","source":"mc","text":"tick failed","stack":"java.lang.IllegalStateException: Entity not loaded\n\tat net.minecraft.client.MinecraftClient.tick(MinecraftClient.java:1234)"}` + "\n")
	if code, body := post(t, base+"/api/v1/logs", token, b.String()); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	out, err := run(t, data, "crashes")
	if err != nil || !strings.Contains(out, "     1× IllegalStateException in MinecraftClient.tick") ||
		!strings.Contains(out, "    30× NullReferenceException in Player.Update") || strings.Index(out, "IllegalState") > strings.Index(out, "NullReference") {
		t.Fatalf("crashes through the server: %q, %v", out, err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, data, "crashes", "--json", "--source", "unity", "--since", "-1h")
	if err != nil {
		t.Fatalf("direct crashes --json: %v", err)
	}
	var g struct {
		Count     int    `json:"count"`
		Title     string `json:"title"`
		ExampleID uint64 `json:"exampleId"`
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &g) != nil ||
		g.Count != 30 || g.ExampleID != 1 {
		t.Fatalf("direct crashes --json --source unity: %q (%+v)", out, g)
	}
	if _, err := run(t, data, "crashes", "--since", "whenever"); err == nil || !strings.Contains(err.Error(), "--since") {
		t.Fatalf("bad --since: %v", err)
	}
}

// TestRunFlags: --run and --since last_compile on crashes, search and tail;
// a bad selector or no compile is a clear error. The success cases need the
// store's runs.
func TestRunFlags(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, _, stop := startServe(t, data, "--addr", "127.0.0.1:0")
	token := readToken(t, data)
	if code, body := post(t, base+"/api/v1/logs", token, `{"level":"info","source":"godot","text":"hello"}`); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"crashes"}, {"search", "hello"}, {"tail"}} {
		if _, err := run(t, data, append(cmd, "--run", "latest")...); err == nil || !strings.Contains(err.Error(), "--run: want current, previous or a run number") {
			t.Errorf("%s --run latest: %v", cmd[0], err)
		}
		if cmd[0] == "tail" {
			continue
		}
		if _, err := run(t, data, append(cmd, "--since", "last_compile")...); err == nil || !strings.Contains(err.Error(), "no compile.start marker") {
			t.Errorf("%s --since last_compile: %v", cmd[0], err)
		}
	}
	t.Run("needs the store's runs", func(t *testing.T) {
		out, err := run(t, data, "search", "hello", "--run", "current")
		if err != nil || !strings.Contains(out, "hello") {
			t.Errorf("search --run current: %q, %v", out, err)
		}
		if _, err := run(t, data, "tail", "--run", "previous", "--source", "godot"); err == nil || !strings.Contains(err.Error(), `has no previous run`) {
			t.Errorf("tail --run previous: %v", err)
		}
	})
}
