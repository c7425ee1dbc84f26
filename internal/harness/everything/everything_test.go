package everything

import (
	"context"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// No roots capability: with it, server-everything asks roots/list 350 ms after
	// initialize, and a stdio server closed before that lingers until SIGTERM (5 s).
	c := mcp.NewClient(&mcp.Implementation{Name: "everything-test", Version: "0"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// echo lists the tools (echo among them) and calls echo.
func echo(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if !strings.Contains(" "+strings.Join(names, " ")+" ", " echo ") {
		t.Fatalf("tools/list: no echo in %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "Echo: hi" {
		t.Fatalf("echo: got %+v", res.Content)
	}
}

func TestStdio(t *testing.T) {
	argv := Command(t)
	echo(t, connect(t, &mcp.CommandTransport{Command: exec.Command(argv[0], argv[1:]...)}))
}

// TestHTTPRestart stops the server under a session and starts it again on the
// same port: the old session fails, a new one works.
func TestHTTPRestart(t *testing.T) {
	endpoint, stop := StartHTTP(t)
	if u, err := url.Parse(endpoint); err != nil || u.Path != "/mcp" {
		t.Fatalf("endpoint %q: %v", endpoint, err)
	}
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1})
	echo(t, cs)

	stop()
	stop() // idempotent
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cs.ListTools(ctx, nil); err == nil {
		t.Fatal("tools/list succeeded on a stopped server")
	}

	u, _ := url.Parse(endpoint)
	port, _ := strconv.Atoi(u.Port())
	again, _ := StartHTTPOn(t, port)
	if again != endpoint {
		t.Fatalf("restart: endpoint %q, want %q", again, endpoint)
	}
	echo(t, connect(t, &mcp.StreamableClientTransport{Endpoint: again}))
}

// TestOnlyTestsImport checks that no non-test code imports this package.
func TestOnlyTestsImport(t *testing.T) {
	root, err := logtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-e", "-f", `{{.ImportPath}}: {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	const self = "github.com/mcplogd/mcplogd/internal/harness/everything"
	for _, line := range strings.Split(string(out), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		for _, imp := range strings.Fields(imports) {
			if imp == self {
				t.Errorf("%s (non-test code) imports %s", pkg, self)
			}
		}
	}
}
