//go:build !windows

package gateway

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// TestUpstream_AwaitEnd_WithoutRuns: without Options.Runs a cmd:
// upstream's end is still known (from its process state, no marker), and
// awaitEnd returns it for its start number, at once for start 0.
func TestUpstream_AwaitEnd_WithoutRuns(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "log.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	// a program that is no MCP server: each start fails and ends with status 3
	g, err := New(l, []Upstream{{Name: "broken", Command: []string{"sh", "-c", "exit 3"}}},
		&Options{MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = g.Close()
		_ = l.Close()
	})
	u := g.ups[0]
	if _, ok := u.awaitEnd(context.Background(), 0); ok {
		t.Error("awaitEnd(0) reported an end")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	end, ok := u.awaitEnd(ctx, 2)
	if !ok || end.Start < 2 || end.Code != 3 || end.ExitID != 0 || end.Run != 0 || end.Text != "sh ended: exit status 3" {
		t.Fatalf("awaitEnd(2) = %+v, %v", end, ok)
	}
	if u.processStart() < 2 {
		t.Errorf("processStart() = %d after the second end", u.processStart())
	}
	if last, ok := g.ProcessEnd("broken"); !ok || last.Start < end.Start {
		t.Errorf("ProcessEnd = %+v, %v", last, ok)
	}
	if _, ok := g.ProcessEnd("nobody"); ok {
		t.Error("ProcessEnd of an unknown upstream reported an end")
	}
}
