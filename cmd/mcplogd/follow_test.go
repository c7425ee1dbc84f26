package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
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
	waitCount := func(source string, n int) []map[string]any {
		t.Helper()
		return waitRecords(t, base, token, source, n)
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
	var out string
	logtest.Eventually(t, 20*time.Second, "the Unity crash among the crashes (the crash index reads in the background)", func() bool {
		out, err = run(t, data, "crashes")
		return err == nil && strings.Contains(out, "NullReferenceException")
	})
	if !strings.Contains(out, "3× ") {
		t.Fatalf("crashes:\n%s", out)
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
	// Each follower wrote an end marker when serve stopped (after the
	// sample's last entry, which it held until then); the new line comes
	// after it.
	game := waitCount("Game", godotRecords+3)
	if game[1]["kind"] != "marker" || game[1]["name"] != "end" || game[0]["text"] != "Level loaded in 390 ms" {
		t.Errorf("Game after the restart (newest first): %v", game[:2])
	}
	waitCount("Editor", 2)
}

// TestServe_FollowWaits: serve says at start which followed files it
// waits for, by their full path, and when their directory does not exist
// either; once the directory and the file appear, their lines are
// recorded.
func TestServe_FollowWaits(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	logs := t.TempDir()
	later, soon, here := filepath.Join(logs, "not", "yet", "there.log"), filepath.Join(logs, "soon.log"), filepath.Join(logs, "here.log")
	if err := os.WriteFile(here, []byte("Player spawned at 0,0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stdout, _ := startServe(t, data, "--addr", "127.0.0.1:0", "--follow", "Later="+later, "--follow", "Soon="+soon, "--follow", "Here="+here)
	out := stdout.String()
	for _, want := range []string{
		"  follow:   Later=" + later + "\n            waiting for " + later + " to appear (its directory " + filepath.Dir(later) + " does not exist yet either)\n",
		"  follow:   Soon=" + soon + "\n            waiting for " + soon + " to appear\n",
		"  follow:   Here=" + here + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("serve's links lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "waiting for "+here) {
		t.Errorf("serve waits for a file that exists:\n%s", out)
	}
	if err := os.MkdirAll(filepath.Dir(later), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(later, []byte("Level loaded in 120 ms\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logtest.Eventually(t, 20*time.Second, "the line of the file that appeared", func() bool {
		out, err := run(t, data, "tail", "--source", "Later")
		return err == nil && strings.Contains(out, "Level loaded in 120 ms")
	})
}

// waitRecords waits until the server at base holds exactly n records of
// source and returns them, oldest first.
func waitRecords(t *testing.T, base, token, source string, n int) []map[string]any {
	t.Helper()
	records := func() []map[string]any {
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
	deadline := time.Now().Add(30 * time.Second)
	for {
		recs := records()
		if len(recs) == n {
			return recs
		}
		if len(recs) > n || time.Now().After(deadline) {
			t.Fatalf("%s: %d records, want %d", source, len(recs), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServe_FollowAuto: serve finds a Unity 6.5 project's Logs/Editor.log
// (written after it started) and a Godot project's log from config.json,
// says why, and reads the previous run's Editor-prev.log once, first.
func TestServe_FollowAuto(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	unity, godot, data := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "data")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(unity, "ProjectSettings", "ProjectVersion.txt"), "m_EditorVersion: 6000.5.0f1\n")
	write(filepath.Join(unity, "Logs", "Editor-prev.log"), "Loaded the previous run\n")
	write(filepath.Join(godot, "project.godot"), "[application]\nconfig/name=\"Squash\"\n")
	cfg, _ := json.Marshal(map[string]any{"follow": map[string]string{"godot:Game": "auto:" + godot}})
	write(filepath.Join(data, "config.json"), string(cfg))

	base, stdout, stop := startServe(t, data, "--addr", "127.0.0.1:0", "--follow", "unity:Editor=auto:"+unity)
	editorLog := filepath.Join(unity, "Logs", "Editor.log")
	godotLog := filepath.Join(home, ".local/share/godot/app_userdata/Squash/logs/godot.log")
	out := stdout.String()
	for _, want := range []string{
		"follow:   unity:Editor=" + editorLog + " (auto: ProjectSettings/ProjectVersion.txt says 6000.5.0f1",
		"follow:   godot:Game=" + godotLog + " (auto: user://logs/godot.log for linux, from project.godot's name \"Squash\")",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("serve did not print %q:\n%s", want, out)
		}
	}
	token := readToken(t, data)
	write(editorLog, "Compiling shaders\n")
	write(godotLog, "Godot Engine v4.3.stable.official.77dcf97d8 - https://godotengine.org\n")
	recs := waitRecords(t, base, token, "Editor", 2) // newest first
	if recs[1]["text"] != "Loaded the previous run" || recs[0]["text"] != "Compiling shaders" {
		t.Errorf("Editor records: %v", recs)
	}
	// Godot's banner starts a run: its marker, then the banner line (newest first).
	if game := waitRecords(t, base, token, "Game", 2); game[1]["kind"] != "marker" || game[1]["name"] != "run" || game[0]["kind"] != "line" {
		t.Errorf("Game records: %v", game)
	}

	// A restart does not read the previous run's file again.
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	base, _, stop = startServe(t, data, "--addr", "127.0.0.1:0", "--follow", "unity:Editor=auto:"+unity)
	time.Sleep(300 * time.Millisecond) // time to read it twice, were it read again
	// The two lines and the end marker the first serve's follower wrote.
	if recs := waitRecords(t, base, token, "Editor", 3); recs[0]["name"] != "end" {
		t.Errorf("Editor after the restart (newest first): %v", recs)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestParseFollow_Auto(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "Shooter.uproject"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := parseFollow("unreal:Game=auto:" + project)
	if err != nil || f.Path != filepath.Join(project, "Saved", "Logs", "Shooter.log") || f.Parser != "unreal" || f.Why == "" {
		t.Errorf("unreal: %+v, %v", f, err)
	}
	t.Chdir(project)
	if f, err := parseFollow("unreal:Game=auto"); err != nil || f.Path != filepath.Join(project, "Saved", "Logs", "Shooter.log") {
		t.Errorf("unreal in the working directory: %+v, %v", f, err)
	}
	empty := t.TempDir()
	for spec, want := range map[string]string{
		"Editor=auto":                    `"Editor=auto": auto needs the engine`,
		"generic:App=auto":               `"generic:App=auto": "generic": unknown engine`,
		"godot:Game=auto:" + empty:       `"godot:Game=auto:` + empty + `": the Godot log`,
		"unity:Player=auto:" + empty:     "ProjectSettings.asset",
		"minecraft:Server=auto:" + empty: "",
		"unity:Editor=/path/to/autoexec": "",
	} {
		_, err := parseFollow(spec)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want an error with %q", spec, err, want)
		}
	}
}
