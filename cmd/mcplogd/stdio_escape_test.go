package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdio_NoHTMLEscapes: what mcplogd stdio writes holds < > & as they
// are, not as \u003c \u003e \u0026.
func TestStdio_NoHTMLEscapes(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	m := newMain(io.Discard, io.Discard, data)
	m.Stdin = strings.NewReader(`{"level":"warn","text":"BossFight+<PhaseRoutine>d__12 & more"}` + "\n")
	if err := m.Run(context.Background(), []string{"import", "--create", "-"}); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var raw syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m = newMain(outW, io.Discard, data)
	m.Stdin = inR
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, []string{"stdio", "--in-process"}); outW.Close() }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(outR, &raw)), Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "console_tail", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("console_tail: %v %+v", err, res)
	}
	cs.Close()
	inW.Close()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("stdio did not stop")
	}
	out := raw.String()
	if !strings.Contains(out, "BossFight+<PhaseRoutine>d__12 & more") || strings.Contains(out, `\u003c`) || strings.Contains(out, `\u0026`) {
		t.Fatalf("stdio wrote:\n%s", out)
	}
}
