package studio_test

import (
	"context"
	"testing"

	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/studio"
)

// TestClient_List_RunNeedsMachineAndSource: a run is one machine's
// source's; a list of a run without both is EINVALID before VictoriaLogs
// is asked.
func TestClient_List_RunNeedsMachineAndSource(t *testing.T) {
	c, err := studio.NewClient(studio.ClientOptions{URL: "http://127.0.0.1:1", Project: "game"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []oplog.StudioListQuery{
		{Run: 2, Machine: "m1"},
		{Run: 2, Filter: oplog.Filter{Source: "unity"}},
	} {
		if _, err := c.List(context.Background(), q); oplog.ErrorCode(err) != oplog.EINVALID {
			t.Errorf("%+v: %v, want EINVALID", q, err)
		}
	}
}
