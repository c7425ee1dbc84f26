package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// testVersion is what the test binary is stamped with, as make build does.
const testVersion = "v9.9.9-test"

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

// buildBinary builds mcplogd once per test run, stamped like make build.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "mcplogd-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "mcplogd")
		out, err := exec.Command("go", "build", "-ldflags", "-X main.version="+testVersion, "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	cleanup := logtest.IsolateHome()
	code := m.Run()
	cleanup()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// cliEnv is the environment of a CLI process: this one's without NO_COLOR,
// TERM set to xterm, MCPLOGD_DATA set to data, no pager (MCPLOGD_PAGER=cat:
// the output reaches the terminal as written), and extra.
func cliEnv(data string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TERM=") && !strings.HasPrefix(kv, "MCPLOGD_DATA=") &&
			!strings.HasPrefix(kv, "PAGER=") && !strings.HasPrefix(kv, "MCPLOGD_PAGER=") && !strings.HasPrefix(kv, "LESS=") {
			env = append(env, kv)
		}
	}
	return append(append(env, "TERM=xterm", "MCPLOGD_DATA="+data, "MCPLOGD_PAGER=cat"), extra...)
}

// onTTY runs the binary with its standard output on a pseudo-terminal and
// returns what it wrote there.
func onTTY(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ptm, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptm.Close()
	cmd := exec.Command(buildBinary(t), args...)
	cmd.Env, cmd.Stdout = env, tty
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close() // the child holds it; reading ptm ends (EIO) when the child exits
	out, _ := io.ReadAll(ptm)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s on a terminal: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.ReplaceAll(string(out), "\r\n", "\n")
}

// piped runs the binary with its standard output on a pipe.
func piped(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(buildBinary(t), args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s piped: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// TestCLI_Colour runs the real binary on a pseudo-terminal, on a pipe and
// with NO_COLOR: colour (ANSI SGR codes) only on the terminal; show's
// file:line underlined, search's matched word bold, tail's stack marked.
func TestCLI_Colour(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the pseudo-terminal helper is Linux's")
	}
	data := filepath.Join(t.TempDir(), "data")
	file := filepath.Join(t.TempDir(), "lines.ndjson")
	lines := `{"level":"info","name":"Waves","text":"wave 3 started"}` + "\n" +
		`{"level":"error","name":"Waves","text":"NullReferenceException: Object reference not set","stack":"WaveSpawner.SpawnNext () [0x00012] in /Users/dev/Game/Assets/WaveSpawner.cs:42\nWaveSpawner.Update () [0x00001] in /Users/dev/Game/Assets/WaveSpawner.cs:10","data":{"boss":"BossFight+<PhaseRoutine>d__12"}}` + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, data, "import", "--create", file); err != nil {
		t.Fatal(err)
	}
	tty, pipe, noColor := cliEnv(data), cliEnv(data), cliEnv(data, "NO_COLOR=1")

	out := onTTY(t, tty, "tail")
	if !strings.Contains(out, "\033[31mERROR\033[0m") || !strings.Contains(out, "[stack: 2 lines]") {
		t.Errorf("tail on a terminal: no red ERROR or no stack marker:\n%q", out)
	}
	out = onTTY(t, tty, "show", "2")
	if !strings.Contains(out, "\033[1;4m/Users/dev/Game/Assets/WaveSpawner.cs:42\033[0m") {
		t.Errorf("show on a terminal: file:line not emphasised:\n%q", out)
	}
	out = onTTY(t, tty, "search", "spawnnext")
	if !strings.Contains(out, "\033[1mSpawnNext\033[0m") || strings.Contains(out, "**") {
		t.Errorf("search on a terminal: the match is not bold, or ** is left:\n%q", out)
	}
	for name, env := range map[string][]string{"NO_COLOR": noColor} {
		for _, args := range [][]string{{"tail"}, {"show", "2"}, {"search", "spawnnext"}, {"crashes"}} {
			if out := onTTY(t, env, args...); strings.Contains(out, "\033[") {
				t.Errorf("%s with %s on a terminal wrote ANSI codes:\n%q", args[0], name, out)
			}
		}
	}
	for _, args := range [][]string{{"tail"}, {"show", "2"}, {"search", "spawnnext"}, {"crashes"}, {"show", "--json", "2"}} {
		if out := piped(t, pipe, args...); strings.Contains(out, "\033[") || strings.Contains(out, `\u003c`) {
			t.Errorf("%s piped wrote ANSI codes or an escaped <:\n%q", strings.Join(args, " "), out)
		}
	}
	if out := piped(t, pipe, "search", "spawnnext"); !strings.Contains(out, "WaveSpawner.SpawnNext () [0x00012]") {
		t.Errorf("search piped: the fragment without its ** marks is missing:\n%s", out)
	}
	if out := piped(t, pipe, "crashes"); !strings.Contains(out, "NullReferenceException: Object reference not set in WaveSpawner.SpawnNext () in /Users/dev/Game/Assets/WaveSpawner.cs:42") {
		t.Errorf("crashes: the title is not the message and the game's top frame:\n%s", out)
	}
	if out := piped(t, pipe, "show", "--json", "2"); !strings.Contains(out, `"boss": "BossFight+<PhaseRoutine>d__12"`) {
		t.Errorf("show --json: %s", out)
	}
}

// TestCLI_Version: the binary prints the version it was stamped with
// (make build's -ldflags -X main.version=...), and a command's --help on
// standard output with exit status 0.
func TestCLI_Version(t *testing.T) {
	out := piped(t, cliEnv(t.TempDir()), "version")
	if !strings.HasPrefix(out, "mcplogd "+testVersion+" (go") {
		t.Fatalf("version: %q, want the stamp %s", out, testVersion)
	}
	// piped fails unless the process exits 0.
	if out := piped(t, cliEnv(t.TempDir()), "search", "--help"); !strings.Contains(out, "Usage: mcplogd search") || !strings.Contains(out, "-cursor") {
		t.Fatalf("search --help on standard output: %q", out)
	}
}
