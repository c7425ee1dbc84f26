package faults

import (
	"os"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

// TestMain keeps the servers the suite starts out of the user's own
// per-user directory and registry of running servers.
func TestMain(m *testing.M) {
	cleanup := logtest.IsolateHome()
	code := m.Run()
	cleanup()
	os.Exit(code)
}
