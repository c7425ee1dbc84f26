package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// serveProcess starts the real binary's serve on data (a free port) with
// its working directory in cwd, waits until it prints its link, and
// returns the process and its base URL; it is killed at cleanup.
func serveProcess(t *testing.T, cwd, data string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(buildBinary(t), append([]string{"serve", "--data", data, "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Dir = cwd
	var stderr logtest.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	links := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if link, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "link:"); ok {
				links <- strings.TrimSpace(link)
			}
		}
		close(links)
	}()
	select {
	case link, ok := <-links:
		if !ok {
			t.Fatalf("serve --data %s ended before printing its link: %s", data, stderr.String())
		}
		base, _, _ := strings.Cut(link, "/mcp/")
		return cmd, base
	case <-time.After(30 * time.Second):
		t.Fatalf("serve --data %s printed no link in 30 s: %s", data, stderr.String())
	}
	return nil, ""
}

// cli runs the binary with args in cwd and returns its standard output
// and standard error, failing the test when it fails.
func cli(t *testing.T, cwd string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildBinary(t), args...)
	cmd.Dir = cwd
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcplogd %s in %s: %v\nstderr: %s", strings.Join(args, " "), cwd, err, errOut.String())
	}
	return out.String(), errOut.String()
}

// TestCLI_FromAnotherDirectory: with a project's server running, tail,
// search, crashes and runs run in another directory (no --data, no
// ./mcplogd-data there, no per-user store) answer from that server's
// store and say which server they used; status lists it. With the
// per-user store's server running too, that one is used, saying that two
// run. Once they are killed with -9, status forgets them.
func TestCLI_FromAnotherDirectory(t *testing.T) {
	home, _ := userEnv(t)
	project := t.TempDir()
	data := filepath.Join(project, datadir.Default)
	srv, base := serveProcess(t, project, data)
	token := readToken(t, data)
	if code, body := post(t, base+"/api/v1/logs", token, `[{"level":"info","source":"game","name":"Boot","text":"loaded level seventeen"},`+
		`{"level":"error","source":"game","text":"NullReferenceException: boom","stackTrace":"at Player.Update () in Player.cs:42"}]`); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	elsewhere := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tail"}, "loaded level seventeen"},
		{[]string{"search", "seventeen"}, "loaded level"},
		{[]string{"crashes"}, "NullReferenceException"},
		{[]string{"runs"}, "game"},
	} {
		out, errOut := cli(t, elsewhere, tc.args...)
		if !strings.Contains(out, tc.want) {
			t.Errorf("%s in another directory printed\n%s\nwant %q", tc.args[0], out, tc.want)
		}
		if !strings.Contains(errOut, "using the server of "+data) {
			t.Errorf("%s did not say which server it used: %q", tc.args[0], errOut)
		}
	}
	out, _ := cli(t, elsewhere, "status")
	if !strings.Contains(out, "running servers (1") || !strings.Contains(out, data+"  "+base+"  pid ") {
		t.Errorf("status:\n%s", out)
	}
	var rep statusReport
	js, _ := cli(t, elsewhere, "status", "--json")
	if err := json.Unmarshal([]byte(js), &rep); err != nil || len(rep.Servers) != 1 || rep.Servers[0].PID != srv.Process.Pid || rep.DataFrom != "the per-user default" {
		t.Errorf("status --json: %s (%v)", js, err)
	}

	// With the per-user store's server running too, it is the one used,
	// and the message says two run.
	user := filepath.Join(home, ".local", "state", "mcplogd")
	userSrv, userBase := serveProcess(t, elsewhere, user)
	if code, body := post(t, userBase+"/api/v1/logs", readToken(t, user), `{"level":"info","text":"in the per-user store"}`); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	out, errOut := cli(t, elsewhere, "tail")
	if !strings.Contains(out, "in the per-user store") || strings.Contains(out, "seventeen") ||
		!strings.Contains(errOut, "using the server of "+user+" (the per-user store") || !strings.Contains(errOut, "2 servers run (mcplogd status lists them") {
		t.Errorf("tail with two servers running: %q, stderr %q", out, errOut)
	}
	if out, _ = cli(t, elsewhere, "status"); !strings.Contains(out, "running servers (2") || !strings.Contains(out, "(the per-user default); its server runs") {
		t.Errorf("status with two servers:\n%s", out)
	}
	_ = userSrv.Process.Kill()
	_ = userSrv.Wait()

	// kill -9 leaves the entries; status finds nothing listens and forgets them.
	_ = srv.Process.Kill()
	_ = srv.Wait()
	out, _ = cli(t, elsewhere, "status")
	if !strings.Contains(out, "no mcplogd server runs") {
		t.Errorf("status after kill -9:\n%s", out)
	}
	reg, _ := datadir.UserRegistry(os.Getenv)
	if es, _ := reg.Entries(); len(es) != 0 {
		t.Errorf("the killed server's entry is still registered: %+v", es)
	}
}

// TestStatus_Games: status prints, under the running server, one line per
// game the way store_info says it: a game whose run ended on a signal is
// crashed with the exit's text; after a new run marker it runs again as
// run 2, run 1's crash still told. --json carries the same health.
func TestStatus_Games(t *testing.T) {
	userEnv(t)
	project := t.TempDir()
	data := filepath.Join(project, datadir.Default)
	_, base := serveProcess(t, project, data)
	token := readToken(t, data)
	ingest := func(body string) {
		t.Helper()
		if code, b := post(t, base+"/api/v1/logs", token, body); code != 200 {
			t.Fatalf("ingest: %d %s", code, b)
		}
	}
	ingest(`[{"kind":"marker","name":"run","level":"info","source":"game","text":"run started: game"},{"level":"info","source":"game","text":"Loading level Arena"},` +
		`{"kind":"marker","name":"exit","level":"error","source":"game","text":"game killed by signal 11 (SIGSEGV)","data":{"signal":"SIGSEGV","signalNumber":11}}]`)
	out, _ := cli(t, project, "status")
	if !strings.Contains(out, data+"  "+base+"  pid ") || !strings.Contains(out, "\n    game game: crashed ") ||
		!strings.Contains(out, " ago (game killed by signal 11 (SIGSEGV)), run 1; newest record ") {
		t.Errorf("status after the crash:\n%s", out)
	}

	ingest(`[{"kind":"marker","name":"run","level":"info","source":"game","text":"run started: game"},{"level":"info","source":"game","text":"Loading level Arena"}]`)
	out, _ = cli(t, project, "status")
	if !strings.Contains(out, "\n    game game: running, started ") || !strings.Contains(out, " ago, run 2; run 1 crashed (game killed by signal 11 (SIGSEGV)); newest record ") {
		t.Errorf("status after the new run:\n%s", out)
	}
	var rep statusReport
	js, _ := cli(t, project, "status", "--json")
	if err := json.Unmarshal([]byte(js), &rep); err != nil || len(rep.Servers) != 1 || len(rep.Servers[0].Games) != 1 {
		t.Fatalf("status --json: %s (%v)", js, err)
	}
	if g := rep.Servers[0].Games[0]; g.Name != "game" || g.State != "running" || g.Run != 2 || g.EndRun != 1 || g.EndOutcome != "crashed" {
		t.Errorf("status --json game: %+v", g)
	}
}
