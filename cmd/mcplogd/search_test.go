package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
	if out, err := run(t, data, "search", "--json", "--limit", "1", "wall"); err != nil || !strings.Contains(out, `"fragment":"body 299 hit the **wall**"`) {
		t.Fatalf("search --json: %q, %v", out, err)
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
