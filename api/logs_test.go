package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcplogd/mcplogd/api/apitest"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestServer_AppendMarkers: a batch may carry markers ("kind":"marker", a
// marker's name), which start a run as the ones followers put do; any
// other kind is refused naming the field.
func TestServer_AppendMarkers(t *testing.T) {
	h := apitest.MustServe(t, nil)
	a := apitest.MustCall[client.AppendAnswer](h, http.MethodPost, "/api/v1/logs",
		`[{"level":"info","source":"game","text":"before"},{"kind":"marker","name":"run","level":"info","source":"game","text":"run started: love game"},{"level":"error","source":"game","text":"after"}]`, http.StatusOK)
	r, err := h.Log.Get(context.Background(), a.IDs[1])
	if err != nil || r.Kind != oplog.KindMarker || r.Name != oplog.MarkerRun {
		t.Fatalf("record %d = %+v, %v; want a run marker", a.IDs[1], r, err)
	}
	if after, _ := h.Log.Get(context.Background(), a.IDs[2]); after.Run != 2 {
		t.Errorf("the line after the marker is in run %d, want 2", after.Run)
	}
	status, b := h.Call(http.MethodPost, "/api/v1/logs", `{"kind":"op","level":"info","text":"x"}`)
	apitest.CheckError(t, status, b, http.StatusBadRequest, "invalid", "kind", "POST /api/v1/operations")
	status, b = h.Call(http.MethodPost, "/api/v1/logs", `{"kind":"marker","name":"nonsense","level":"info","text":"x"}`)
	apitest.CheckError(t, status, b, http.StatusBadRequest, "invalid", "nonsense")
}

// TestClient_AppendAtPosition: a writer's position goes with its batch
// through HTTP (what mcplogd import uses beside a running server), and
// comes back from GET /api/v1/positions; an unknown key has none.
func TestClient_AppendAtPosition(t *testing.T) {
	h := apitest.MustServe(t, nil)
	c := client.NewClient(h.URL, apitest.Token)
	ctx := context.Background()
	if v, err := c.Position(ctx, "import\x00game\x00abc"); err != nil || v != nil {
		t.Fatalf("Position before = %q, %v; want none", v, err)
	}
	recs := []oplog.Record{{Level: oplog.LevelInfo, Source: "game", Text: "one"}, {Kind: oplog.KindMarker, Name: oplog.MarkerExit, Level: oplog.LevelError, Source: "game", Text: "exited with status 3"}}
	if err := c.AppendAt(ctx, recs, oplog.Position{Key: "import\x00game\x00abc", Value: []byte(`{"offset":42}`)}); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Position(ctx, "import\x00game\x00abc"); err != nil || string(v) != `{"offset":42}` {
		t.Errorf("Position after = %q, %v", v, err)
	}
	if v, _ := h.Log.Position(ctx, "import\x00game\x00abc"); string(v) != `{"offset":42}` {
		t.Errorf("the log's position = %q", v)
	}
	if r, _ := h.Log.Get(ctx, recs[1].ID); r.Kind != oplog.KindMarker || r.Name != oplog.MarkerExit {
		t.Errorf("the exit marker came back as %+v", r)
	}
	status, b := h.Call(http.MethodGet, "/api/v1/positions", "")
	apitest.CheckError(t, status, b, http.StatusBadRequest, "invalid", "key")
}
