package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServe_Follow: serve follows a Godot log named in config.json and a
// Unity log given by flag; the script error arrives as one error record
// with its stack, repeats group in crashes, and a restart stores nothing
// twice.
func TestServe_Follow(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	logs := t.TempDir()
	godot, unity := filepath.Join(logs, "godot.log"), filepath.Join(logs, "Editor.log")
	sample, err := os.ReadFile("../../follow/testdata/godot.log")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(godot, sample, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"follow": map[string]string{"godot:Game": godot}})
	if err := os.WriteFile(filepath.Join(data, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	base, stdout, stop := startServe(t, data, "--addr", "127.0.0.1:0", "--follow", "unity:Editor="+unity) // Editor.log does not exist yet
	if out := stdout.String(); !strings.Contains(out, "follow:   godot:Game="+godot) || !strings.Contains(out, "follow:   unity:Editor="+unity) {
		t.Errorf("serve did not print its followers: %q", out)
	}
	token := readToken(t, data)
	records := func(source string) []map[string]any {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/records?count=1000&source="+source, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p struct {
			Records []map[string]any `json:"records"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
			t.Fatal(err)
		}
		return p.Records
	}
	waitCount := func(source string, n int) []map[string]any {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			recs := records(source)
			if len(recs) == n {
				return recs
			}
			if len(recs) > n || time.Now().After(deadline) {
				t.Fatalf("%s: %d records, want %d", source, len(recs), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	const godotRecords = 12 // the sample's entries: see follow/parse_test.go
	recs := waitCount("Game", godotRecords)
	var scriptErrors int
	for _, r := range recs {
		if strings.HasPrefix(r["text"].(string), "Invalid get index 'position'") {
			scriptErrors++
			if r["level"] != "error" || !strings.Contains(r["stack"].(string), "player.gd") {
				t.Errorf("script error stored as %v", r)
			}
		}
	}
	if scriptErrors != 3 {
		t.Errorf("%d script errors, want 3", scriptErrors)
	}

	// The Unity log appears later.
	if err := os.WriteFile(unity, []byte("NullReferenceException: Object reference not set to an instance of an object\n"+
		"Player.Update () (at Assets/Scripts/Player.cs:42)\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitCount("Editor", 1)
	out, err := run(t, data, "crashes")
	if err != nil || !strings.Contains(out, "3× ") || !strings.Contains(out, "NullReferenceException") {
		t.Fatalf("crashes: %v\n%s", err, out)
	}

	// A restart reads on from where it stopped.
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(godot, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("Level loaded in 390 ms\n")
	_ = f.Close()
	base, _, _ = startServe(t, data, "--addr", "127.0.0.1:0", "--follow", "unity:Editor="+unity)
	waitCount("Game", godotRecords+1)
	waitCount("Editor", 1)
}
