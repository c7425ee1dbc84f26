package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/mcptools/remote"
	"github.com/mcplogd/mcplogd/oplog"
)

// withCrashes gives h's log a crash index, as serve does.
func withCrashes(h *harness) *harness {
	h.Log.SetCrashes(crash.New(h.Log, nil))
	return h
}

// appendCrashes appends n occurrences of a Unity crash (other lines each
// time) and one Lua crash, and returns the records.
func appendCrashes(t *testing.T, l *oplog.Log, n int, at time.Time) []oplog.Record {
	t.Helper()
	var recs []oplog.Record
	for i := range n {
		recs = append(recs, oplog.Record{Level: oplog.LevelError, Source: "unity", Name: "Player", Time: at.Add(time.Duration(i) * time.Second),
			Text:  "NullReferenceException: Object reference not set to an instance of an object",
			Stack: fmt.Sprintf("Player.Update () (at Assets/Scripts/Player.cs:%d)\nGame.Loop:Tick (float) (at Assets/Scripts/Loop.cs:%d)\n", 40+i, 7*i)})
	}
	recs = append(recs, oplog.Record{Level: oplog.LevelFatal, Source: "tecs", Time: at.Add(-time.Hour),
		Text:  "uncaught error",
		Stack: "game/systems/physics.lua:88: attempt to index a nil value (field 'velocity')\nstack traceback:\n\t[C]: in function 'error'\n\tgame/systems/physics.lua:88: in function <game/systems/physics.lua:80>\n"})
	return logtest.MustAppend(t, l, recs...)
}

type crashesOut struct {
	Groups []struct {
		Signature string   `json:"signature"`
		Title     string   `json:"title"`
		Class     string   `json:"class"`
		RunsEnded int      `json:"runsEnded"`
		Frames    []string `json:"frames"`
		Count     int      `json:"count"`
		FirstSeen string   `json:"firstSeen"`
		LastSeen  string   `json:"lastSeen"`
		Sources   []string `json:"sources"`
		ExampleID uint64   `json:"exampleId"`
		LastID    uint64   `json:"lastId"`
	} `json:"groups"`
	Total  int    `json:"total"`
	LastID uint64 `json:"lastId"`
}

func TestMCP_FindCrashes(t *testing.T) {
	m := mustConnect(t, withCrashes(mustServe(t, nil)), nil)
	at := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Millisecond)
	recs := appendCrashes(t, m.Log, 500, at)

	out := call[crashesOut](t, m, "find_crashes", map[string]any{})
	if out.Total != 2 || len(out.Groups) != 2 || out.LastID != recs[len(recs)-1].ID {
		t.Fatalf("find_crashes: %+v", out)
	}
	// The crash that ended a run comes first, however old; then the errors.
	if c := out.Groups[0]; c.Count != 1 || c.Class != "crash" || c.RunsEnded != 1 ||
		c.Title != "game/systems/physics.lua:88: attempt to index a nil value (field 'velocity') in game/systems/physics.lua:88: in function <game/systems/physics.lua:80>" {
		t.Errorf("first group %+v", c)
	}
	g := out.Groups[1]
	if g.Count != 500 || g.Class != "error" || g.RunsEnded != 0 ||
		g.Title != "NullReferenceException: Object reference not set to an instance of an object in Player.Update () (at Assets/Scripts/Player.cs:539)" ||
		g.ExampleID != recs[0].ID || g.LastID != recs[499].ID ||
		g.FirstSeen != at.Format("2006-01-02T15:04:05.000Z07:00") || fmt.Sprint(g.Sources) != "[unity]" || len(g.Signature) != 16 ||
		fmt.Sprint(g.Frames) != "[Player.Update Game.Loop:Tick]" {
		t.Errorf("second group %+v", g)
	}

	for _, tc := range []struct {
		name  string
		args  map[string]any
		total int
		count int // of the first group
	}{
		{"Since", map[string]any{"since": "-30m"}, 1, 500},
		{"Until", map[string]any{"until": at.Add(100 * time.Second).Format(time.RFC3339Nano)}, 2, 1},
		{"Source", map[string]any{"source": "tecs"}, 1, 1},
		{"Limit", map[string]any{"limit": 1}, 2, 1},
		{"ClassError", map[string]any{"class": "error"}, 1, 500},
		{"LevelFatal", map[string]any{"level": "fatal"}, 1, 1},
		{"ClassCompile", map[string]any{"class": "compile"}, 0, 0},
		{"Nothing", map[string]any{"source": "nobody"}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := call[crashesOut](t, m, "find_crashes", tc.args)
			if out.Total != tc.total || tc.total > 0 && out.Groups[0].Count != tc.count || tc.name == "Limit" && len(out.Groups) != 1 {
				t.Errorf("%v: %+v", tc.args, out)
			}
		})
	}
	m.callError(t, "find_crashes", map[string]any{"since": "yesterday-ish"}, "since")
	m.callError(t, "find_crashes", map[string]any{"limit": -1}, "limit")
	m.callError(t, "find_crashes", map[string]any{"class": "segfaults"}, "class")
	m.callError(t, "find_crashes", map[string]any{"level": "warn"}, "level")
}

func TestServer_Crashes(t *testing.T) {
	h := withCrashes(mustServe(t, nil))
	at := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	recs := appendCrashes(t, h.Log, 50, at)

	a := mustCall[crashesOut](h, http.MethodGet, "/api/v1/crashes", "", http.StatusOK)
	if a.Total != 2 || a.Groups[1].Count != 50 || a.Groups[1].ExampleID != recs[0].ID || a.Groups[0].Class != "crash" {
		t.Fatalf("GET /api/v1/crashes: %+v", a)
	}
	v := url.Values{"source": {"unity"}, "since": {at.Add(10 * time.Second).Format(time.RFC3339)}, "limit": {"5"}}
	a = mustCall[crashesOut](h, http.MethodGet, "/api/v1/crashes?"+v.Encode(), "", http.StatusOK)
	if a.Total != 1 || a.Groups[0].Count != 40 || a.Groups[0].ExampleID != recs[10].ID {
		t.Errorf("filtered: %+v", a)
	}
	status, b := h.Call(http.MethodGet, "/api/v1/crashes?limit=x", "")
	checkError(t, status, b, http.StatusBadRequest, oplog.EINVALID, "limit")
	status, b = h.Call(http.MethodGet, "/api/v1/crashes?since=2026-02-02&until=2026-02-01", "")
	checkError(t, status, b, http.StatusBadRequest, oplog.EINVALID, "until")

	// Remote (mcplogd stdio and the CLI when a server runs) answers as the log does.
	r := remote.NewBackend(client.NewClient(h.URL, testToken))
	defer r.Close()
	q := oplog.CrashQuery{Source: "unity", Since: at.Add(10 * time.Second), Limit: 5}
	got, err := r.FindCrashes(context.Background(), q)
	want, _ := h.Log.FindCrashes(context.Background(), q)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) || got.Total != 1 {
		t.Errorf("remote %+v, %v;\nlocal %+v", got, err, want)
	}
}
