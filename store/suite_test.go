package store_test

import (
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// TestDB_Conformance runs the oplog.Store conformance suite over bbolt; each
// store is checked for consistent counters at cleanup.
func TestDB_Conformance(t *testing.T) {
	oplogtest.TestStore(t, func(t *testing.T) oplog.Store { return logtest.MustOpenDB(t, nil) })
}
