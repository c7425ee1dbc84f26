package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
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
	// A group's first line: its count and title (the newest occurrence's
	// message in the game's own top frame).
	mc := regexp.MustCompile(`(?m)^     1× .*IllegalStateException.* in .*MinecraftClient\.tick`)
	unity := regexp.MustCompile(`(?m)^    30× NullReferenceException.* in Player\.Update`)
	if err != nil || !mc.MatchString(out) || !unity.MatchString(out) || strings.Index(out, "IllegalState") > strings.Index(out, "NullReference") {
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
	// --limit 1 tells the story of the newest occurrence, here read from
	// the file: the lines before it.
	out, err = run(t, data, "crashes", "--json", "--source", "unity", "--limit", "1")
	var told struct {
		Story struct {
			LastID uint64   `json:"lastId"`
			Trail  []string `json:"trail"`
		} `json:"story"`
	}
	if err != nil || json.Unmarshal([]byte(out), &told) != nil || told.Story.LastID != 30 || len(told.Story.Trail) != 3 ||
		!strings.HasPrefix(told.Story.Trail[2], "#29 error NullReferenceException") {
		t.Fatalf("direct crashes --json --limit 1: %v %q", err, out)
	}
	if _, err := run(t, data, "crashes", "--since", "whenever"); err == nil || !strings.Contains(err.Error(), "--since") {
		t.Fatalf("bad --since: %v", err)
	}
}

// TestRunFlags: --run and --since last_compile on crashes, search and tail
// (which once dropped last_compile and printed every line); a bad selector
// or no compile is a clear error. The success cases need the
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

// TestCLI_NoSuchRun: a run no source has is an error on every command
// that takes --run or --against, in the domain's words with the runs there
// are and where to see them, on the file and through a running server;
// the binary exits with status 1, printing nothing on standard output.
func TestCLI_NoSuchRun(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	var recs []oplog.Record
	for _, word := range []string{"first", "second", "third"} {
		recs = append(recs, oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Source: "Game", Text: "start"},
			oplog.Record{Source: "Game", Level: oplog.LevelError, Text: "wave " + word, Stack: "at Game.Wave ()"})
	}
	appendToData(t, data, recs...)
	const runs = "no source has a run 7 (runs go from 1 to 3); mcplogd runs lists them"
	check := func(how string) {
		t.Helper()
		for _, args := range [][]string{
			{"crashes", "--run", "7"}, {"stats", "--run", "7"}, {"tail", "--run", "7"}, {"search", "wave", "--run", "7"},
			{"compare", "--run", "7"}, {"compare", "--against", "7"},
		} {
			out, err := run(t, data, args...)
			if want := args[len(args)-2] + " 7: " + runs; err == nil || !strings.HasPrefix(err.Error(), want) || out != "" {
				t.Errorf("%s %s: %v, output %q; want the error %q", how, strings.Join(args, " "), err, out, want)
			}
		}
		if _, err := run(t, data, "tail", "--source", "Game", "--run", "-3"); err == nil ||
			!strings.HasPrefix(err.Error(), `--run -3: source "Game" has no run at offset -3 (offsets go from 0 to -2); mcplogd runs lists them`) {
			t.Errorf("%s tail --source Game --run -3: %v", how, err)
		}
	}
	check("on the file")
	_, _, stop := startServe(t, data, "--addr", "127.0.0.1:0")
	check("through the server")
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(buildBinary(t), "crashes", "--data", data, "--run", "7")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || stdout.String() != "" || stderr.String() != "mcplogd: --run 7: "+runs+"\n" {
		t.Errorf("mcplogd crashes --run 7: %v, stdout %q, stderr %q; want exit status 1 and the error", err, stdout.String(), stderr.String())
	}
}

// crashGroups runs `mcplogd crashes --json` with args and returns each
// group as "class/runsEnded/level first-word-of-title".
func crashGroups(t *testing.T, data string, args ...string) []string {
	t.Helper()
	out, err := run(t, data, append([]string{"crashes", "--json"}, args...)...)
	if err != nil {
		t.Fatalf("crashes --json %v: %v", args, err)
	}
	var groups []string
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var g struct {
			Class     string `json:"class"`
			RunsEnded int    `json:"runsEnded"`
			Level     string `json:"level"`
			Title     string `json:"title"`
		}
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatalf("crashes --json %v: %q: %v", args, line, err)
		}
		word, _, _ := strings.Cut(g.Title, " ")
		groups = append(groups, fmt.Sprintf("%s/%d/%s %s", g.Class, g.RunsEnded, g.Level, word))
	}
	return groups
}

// TestCrashes_ClassLevel: --class and --level pick crash groups (a fatal
// line is a crash that ended its run, an error line with a stack an error,
// a Unity compiler error a compile diagnostic shown only when asked for),
// through a running server (also GET /api/v1/crashes with class repeated)
// and then directly on the file; bad values are errors naming the flag.
func TestCrashes_ClassLevel(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base, _, stop := startServe(t, data, "--addr", "127.0.0.1:0")
	token := readToken(t, data)
	body := `{"level":"fatal","source":"game","text":"NullReferenceException: boom","stack":"Player.Update () (at Assets/Scripts/Player.cs:42)"}
{"level":"error","source":"game","text":"InvalidOperationException: nope","stack":"Inventory.Sort () (at Assets/Scripts/Inventory.cs:7)"}
{"level":"error","source":"editor","text":"Assets/A.cs(3,1): error CS1002: ; expected","stack":"UnityEditor.Scripting.ScriptCompilation.EditorCompilationInterface:TickCompilationPipeline () (at Editor/Mono/Scripting/ScriptCompilation/EditorCompilationInterface.cs:171)"}
`
	if code, answer := post(t, base+"/api/v1/logs", token, body); code != 200 {
		t.Fatalf("ingest: %d %s", code, answer)
	}
	crash, errorGroup, compile := "crash/1/fatal NullReferenceException:", "error/0/error InvalidOperationException:", "compile/0/error Assets/A.cs(3,1):"
	check := func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want []string
		}{
			{nil, []string{crash, errorGroup}},
			{[]string{"--class", "compile"}, []string{compile}},
			{[]string{"--class", "crash,error,compile"}, []string{crash, errorGroup, compile}},
			{[]string{"--class", "compile", "--class", "Crash"}, []string{crash, compile}},
			{[]string{"--level", "fatal"}, []string{crash}},
			{[]string{"--level", "error", "--class", "error"}, []string{errorGroup}},
			{[]string{"--level", "fatal", "--class", "error,compile"}, nil},
		} {
			if got := crashGroups(t, data, c.args...); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("crashes %v:\ngot  %q\nwant %q", c.args, got, c.want)
			}
		}
		out, err := run(t, data, "crashes", "--class", "crash,error,compile")
		if err != nil || !strings.Contains(out, "crash, ended 1 run; last ") || !strings.Contains(out, "        error; last ") ||
			!strings.Contains(out, "        compile; last ") {
			t.Errorf("crashes' text does not give the class and the runs ended (%v):\n%s", err, out)
		}
		t.Logf("mcplogd crashes --class crash,error,compile:\n%s", out)
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--class", "bogus"}, `--class: want crash, error or compile, got "bogus"`},
			{[]string{"--level", "warn"}, "--level: crashes are at level error or fatal, got warn"},
			{[]string{"--level", "loud"}, `--level: unknown level "loud"`},
		} {
			if _, err := run(t, data, append([]string{"crashes"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("crashes %v: %v; want an error with %q", c.args, err, c.want)
			}
		}
	}
	t.Run("Server", func(t *testing.T) {
		check(t) // serve holds the file: the commands can only have asked the server
		for _, c := range []struct {
			query string
			code  int
			want  string
		}{
			{"class=crash&class=compile", 200, `"class":"compile"`},
			{"class=crash&class=compile", 200, `"class":"crash"`},
			{"class=crash,compile&level=fatal", 200, `"total":1`},
			{"class=crash&class=bogus", 400, `class: want crash, error or compile`},
			{"level=info", 400, `level: crashes are at level error or fatal`},
		} {
			code, answer := get(t, base+"/api/v1/crashes?"+c.query, token)
			if code != c.code || !strings.Contains(answer, c.want) || c.code == 200 && strings.Contains(answer, `"class":"error"`) {
				t.Errorf("GET /api/v1/crashes?%s: %d %s; want %d with %s", c.query, code, answer, c.code, c.want)
			}
		}
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	t.Run("Direct", check)
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
