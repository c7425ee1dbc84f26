//go:build !windows

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadme_Commands runs every command of the README's ```sh blocks, in
// order, as a new user would: on a fresh HOME, with nothing but what the
// commands themselves install. The README's install line builds the
// binary; the project folder is testdata/readme (a LÖVE game and a Python
// game that crash, and the files by which Godot's and Unreal's auto find
// their logs). Lines run as a person would run them:
//   - `go …` lines in the clone (the README says "from a clone");
//   - a server (`mcplogd serve …`, `go run ./cmd/mcplogd`) on a free port
//     (--addr 127.0.0.1:0, so that a server of the machine's own on 7170
//     does not decide) until it has printed its link, then Ctrl-C, after
//     which it must exit 0;
//   - `claude mcp add NAME -- COMMAND…` as Claude Code would: COMMAND is
//     started as a stdio MCP server and asked find_crashes {limit: 1};
//   - `mcplogd run` exits as its game does: it must say what it recorded;
//   - any other line must exit 0.
//
// Blocks fenced with more than "sh" (the lines that work once a release is
// published) are not run, nor `make check`, which is what runs this test.
func TestReadme_Commands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := shellLines(string(readme))
	if len(lines) < 10 {
		t.Fatalf("the README's sh blocks hold %d commands: %q", len(lines), lines)
	}
	clone, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	home, gobin, project := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.CopyFS(project, os.DirFS("testdata/readme")); err != nil {
		t.Fatal(err)
	}
	env := readmeEnv(home, gobin)
	if display := startXvfb(t); display != "" {
		env = append(env, "DISPLAY="+display)
	}
	t.Cleanup(func() { stopServers(t, filepath.Join(gobin, "mcplogd"), env) })

	// What some lines must print, beside their exit status: the games'
	// crashes found again by the commands that read them.
	wants := map[string][]string{
		"mcplogd run --name Game -- love game/":      {"recorded as source Game"},
		"mcplogd run --name Game -- python3 game.py": {"recorded as source Game"},
		"mcplogd crashes":                            {"attempt to index upvalue 'player'", "KeyError: 'boss'"},
		"mcplogd search 'attempt to index'":          {"main.lua:8: attempt to index"},
		"mcplogd runs":                               {"crashed"},
		"claude mcp add mcplogd -- mcplogd stdio":    {"KeyError: 'boss'"},
	}
	seen := map[string]bool{}
	for _, line := range lines {
		cmd := stripComment(line)
		if cmd == "make check" {
			continue
		}
		seen[cmd] = true
		var out string
		switch {
		case strings.HasPrefix(cmd, "claude mcp add "):
			out = claudeAdd(t, cmd, project, env)
		case strings.HasPrefix(cmd, "mcplogd serve") || cmd == "go run ./cmd/mcplogd":
			// One server owns a store: the one stdio left recording is
			// stopped first, as a person would stop it.
			stopServers(t, filepath.Join(gobin, "mcplogd"), env)
			out = serveUntilLink(t, cmd, dirFor(cmd, clone, project), env)
		default:
			if strings.Contains(cmd, " -- love ") && !hasDisplay(env) {
				if os.Getenv("MCPLOGD_REQUIRE_ENGINES") == "1" {
					t.Fatalf("%s: no love or Xvfb (scripts/need-engines installs them)", cmd)
				}
				t.Logf("%s: skipped, no love or Xvfb (scripts/need-engines installs them)", cmd)
				continue
			}
			out = runLine(t, cmd, dirFor(cmd, clone, project), env)
		}
		for _, w := range wants[cmd] {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the output lacks %q:\n%s", cmd, w, out)
			}
		}
	}
	for cmd := range wants {
		if !seen[cmd] && !(strings.Contains(cmd, " -- love ") && !hasDisplay(env)) {
			t.Errorf("the README no longer has %q: say here what its replacement must print", cmd)
		}
	}
}

// shellLines returns the command lines of md's blocks fenced ```sh, in
// order: the lines not empty and not only a comment.
func shellLines(md string) []string {
	var lines []string
	in := false
	for l := range strings.Lines(md) {
		l = strings.TrimRight(l, "\n")
		switch {
		case strings.HasPrefix(l, "```"):
			in = !in && strings.TrimPrefix(l, "```") == "sh"
		case in && strings.TrimSpace(stripComment(l)) != "":
			lines = append(lines, l)
		}
	}
	return lines
}

// stripComment cuts a line's trailing "# …" comment (the README's lines
// hold no # inside quotes) and its spaces.
func stripComment(l string) string {
	if i := strings.Index(l, "#"); i >= 0 && (i == 0 || l[i-1] == ' ') {
		l = l[:i]
	}
	return strings.TrimSpace(l)
}

// dirFor is where a line runs: `go …` in the clone, the rest in the game
// project's folder.
func dirFor(cmd, clone, project string) string {
	if strings.HasPrefix(cmd, "go ") {
		return clone
	}
	return project
}

// readmeEnv is a new user's environment: a fresh HOME, Go's bin directory
// (where the README's go install puts mcplogd) first on PATH, and nothing
// of mcplogd's or XDG's from the test's own environment.
func readmeEnv(home, gobin string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MCPLOGD_") || strings.HasPrefix(k, "XDG_") || k == "HOME" || k == "PATH" || k == "GOBIN" || k == "DISPLAY" || k == "GOCACHE" || k == "GOMODCACHE" || k == "GOPATH" {
			continue
		}
		env = append(env, kv)
	}
	// Go's caches stay where they are: a fresh HOME would build the module
	// from nothing, which is Go's first ten minutes, not mcplogd's.
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		if v, err := exec.Command("go", "env", k).Output(); err == nil {
			env = append(env, k+"="+strings.TrimSpace(string(v)))
		}
	}
	return append(env, "HOME="+home, "GOBIN="+gobin, "PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func hasDisplay(env []string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, "DISPLAY=") {
			_, err := exec.LookPath("love")
			return err == nil
		}
	}
	return false
}

// startXvfb starts an X server for LÖVE's window and returns its
// display, or "" without Xvfb.
func startXvfb(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		return ""
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(bin, "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "640x480x24")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if _, err := strconv.Atoi(n); err != nil {
			t.Fatalf("Xvfb printed %q for its display", n)
		}
		return ":" + n
	case <-time.After(time.Minute):
		t.Fatal("Xvfb named no display within a minute")
	}
	return ""
}

// runLine runs one line with bash and returns what it printed; it must
// exit 0, but for `mcplogd run`, which exits as its game did.
func runLine(t *testing.T, line, dir string, env []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil && !(strings.HasPrefix(line, "mcplogd run ") && cmd.ProcessState != nil && cmd.ProcessState.Exited()) {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	t.Logf("$ %s\n%s", line, out)
	return string(out)
}

// serveUntilLink starts a server line, waits for its link, stops it with
// Ctrl-C and returns what it printed; it must have exited 0.
func serveUntilLink(t *testing.T, line, dir string, env []string) string {
	t.Helper()
	var out bytes.Buffer
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", "exec "+line+" --addr 127.0.0.1:0")
	if line == "go run ./cmd/mcplogd" {
		cmd = exec.Command("go", "run", "./cmd/mcplogd", "serve", "--addr", "127.0.0.1:0")
	}
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, pw, pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	pw.Close()
	linked := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(strings.TrimSpace(sc.Text()), "link:") {
				close(linked)
			}
		}
	}()
	select {
	case <-linked:
	case <-read:
		_ = cmd.Wait()
		t.Fatalf("%s stopped before printing its link (%v):\n%s", line, cmd.ProcessState, out.String())
	case <-time.After(3 * time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("%s printed no link within 3 minutes:\n%s", line, out.String())
	}
	// Ctrl-C to the server itself: go run would exit 1 for any signal it
	// saw, whatever its program did.
	pid := cmd.Process.Pid
	if line == "go run ./cmd/mcplogd" {
		// Any of go's threads may have started it.
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
		for _, task := range tasks {
			kids, _ := os.ReadFile(task)
			if f := strings.Fields(string(kids)); len(f) > 0 {
				pid, _ = strconv.Atoi(f[0])
			}
		}
	}
	_ = syscall.Kill(pid, syscall.SIGINT)
	stopped := time.AfterFunc(time.Minute, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	err = cmd.Wait()
	if !stopped.Stop() {
		t.Fatalf("%s went on a minute after Ctrl-C:\n%s", line, out.String())
	}
	<-read
	t.Logf("$ %s\n%s", line, out.String())
	if err != nil {
		t.Fatalf("%s after Ctrl-C: %v\n%s", line, err, out.String())
	}
	return out.String()
}

// claudeAdd does what `claude mcp add NAME -- COMMAND ARGS` leads to: Claude
// Code starts COMMAND as a stdio MCP server, lists its tools, and the
// agent's first question is find_crashes {limit: 1}, whose text it returns.
func claudeAdd(t *testing.T, line, dir string, env []string) string {
	t.Helper()
	_, command, ok := strings.Cut(line, " -- ")
	if !ok {
		t.Fatalf("%s: no command after --", line)
	}
	words := strings.Fields(command)
	cmd := exec.Command("bash", "-c", "exec "+strings.Join(words, " "))
	cmd.Dir, cmd.Env = dir, env
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%s: connect: %v", line, err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("%s: tools/list: %v", line, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_crashes", Arguments: map[string]any{"limit": 1}})
	if err != nil || res.IsError {
		t.Fatalf("%s: find_crashes: %v %+v", line, err, res)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	t.Logf("%s: find_crashes {limit: 1}:\n%s", line, text.String())
	return text.String()
}

// stopServers stops the servers the README's lines left running (stdio
// starts one that records on after the session), as `mcplogd status`
// lists them.
func stopServers(t *testing.T, bin string, env []string) {
	cmd := exec.Command(bin, "status", "--json")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return
	}
	var st struct {
		Servers []struct {
			PID int `json:"pid"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Logf("mcplogd status --json: %v\n%s", err, out)
		return
	}
	for _, s := range st.Servers {
		if p, err := os.FindProcess(s.PID); err == nil {
			_ = p.Signal(syscall.SIGTERM)
		}
		deadline := time.Now().Add(30 * time.Second)
		for syscall.Kill(s.PID, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	}
}
