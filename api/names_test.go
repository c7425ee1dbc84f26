package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/client"
)

// A line dated 1972 keeps 1972 as its name's first and last seen: the
// per-name counters hold nanoseconds, which were once read as a user's
// Unix time of unknown unit and came back as 2046.
func TestServer_Names_OldDates(t *testing.T) {
	h := mustServe(t, nil)
	old := time.Date(1972, 6, 1, 12, 0, 0, 0, time.UTC)
	mustCall[client.AppendAnswer](h, http.MethodPost, "/api/v1/logs",
		`{"level":"info","name":"Clock","time":"1972-06-01T12:00:00Z","text":"the first one"}
{"level":"warn","name":"Clock","time":"1972-06-01T12:00:05Z","text":"the last one"}`, http.StatusOK)
	a := mustCall[client.NamesAnswer](h, http.MethodGet, "/api/v1/names", "", http.StatusOK)
	if len(a.Names) != 1 || a.Names[0].Name != "Clock" || a.Names[0].Total != 2 {
		t.Fatalf("names = %+v, want Clock with 2 records", a.Names)
	}
	n := a.Names[0]
	if !n.FirstSeen.Equal(old) || !n.LastSeen.Equal(old.Add(5*time.Second)) {
		t.Errorf("Clock first/last seen %s / %s, want %s / %s", n.FirstSeen, n.LastSeen, old, old.Add(5*time.Second))
	}
}
