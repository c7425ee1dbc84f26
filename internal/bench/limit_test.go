package bench

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

// A section runs under serve's limit plus the benchmark's own live heap,
// and the limit before it is back afterwards; GOMEMLIMIT stands instead.
func TestUnderServeLimit(t *testing.T) {
	was := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(was) })
	held := make([]byte, 64<<20) // the benchmark's own data
	t.Setenv("GOMEMLIMIT", "")
	var inside int64
	limit, err := underServeLimit(func() error {
		inside = debug.SetMemoryLimit(-1)
		return nil
	})
	held[len(held)-1] = 1
	if err != nil || inside != limit || limit < datadir.DefaultMemoryLimit+64<<20 {
		t.Fatalf("inside: %d, returned %d (%v), want at least serve's %d + 64 MiB", inside, limit, err, datadir.DefaultMemoryLimit)
	}
	if after := debug.SetMemoryLimit(-1); after != was {
		t.Fatalf("after the section: %d, want %d back", after, was)
	}
	if note := limitNote(limit); !strings.Contains(note, "200.0 MiB") {
		t.Errorf("note: %q", note)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	if limit, _ := underServeLimit(func() error { inside = debug.SetMemoryLimit(-1); return nil }); limit != 0 || inside != was {
		t.Fatalf("with GOMEMLIMIT: returned %d, inside %d, want 0 and %d", limit, inside, was)
	}
}
