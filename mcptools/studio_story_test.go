package mcptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
	"github.com/mcplogd/mcplogd/studio"
)

// TestStudioScope_FindCrashes_Story: a run forwarded to the studio (a
// real VictoriaLogs, through the forwarder; the in-memory one, as its
// rows) with calls in flight when it crashed (one pending, one
// that answered after the crash, its arguments long), one that ended
// before it and a line:
// find_crashes {limit: 1, scope: "studio"} tells the crash's story as
// the local scope does, in flight and trail, within 4 KB; a call of the
// run before and the lines at the crash's time after it are not in it.
func TestStudioScope_FindCrashes_Story(t *testing.T) {
	forStudios(t, testFindCrashesStory)
}

func testFindCrashesStory(t *testing.T, impl studiotest.Impl) {
	l, _ := logtest.MustOpenLog(t, nil)
	l.SetCrashes(crash.New(l, &crash.Options{Lazy: true}))
	t0 := time.Now().Add(-time.Minute).UTC().Truncate(time.Millisecond) // within VictoriaLogs' retention
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	op := func(tool, args string, ms, endMs int) oplog.Record {
		r := oplog.Record{Kind: oplog.KindOp, Tool: tool, Source: "unity", Arguments: json.RawMessage(args), Time: at(ms)}
		if endMs > 0 {
			r.Status, r.EndTime = oplog.StatusSuccess, at(endMs)
		}
		return r
	}
	marker := func(ms int) oplog.Record {
		return oplog.Record{Kind: oplog.KindMarker, Name: oplog.MarkerRun, Level: oplog.LevelInfo, Source: "unity", Text: "run started", Time: at(ms)}
	}
	long := `{"count":250,"note":"` + strings.Repeat("x", 200) + `"}`
	c := crashRecord(unityCrash, 42, 0, "unity")
	c.Time = at(5000)
	recs := logtest.MustAppend(t, l,
		marker(0),
		op("spawn_enemy", `{"count": 500}`, 500, 0), // run 1, never answered
		marker(1000),
		op("set_speed", `{"x": 2}`, 1500, 2100),
		op("load_level", `{"name": "arena"}`, 2000, 5500), // answered after the crash
		op("spawn_enemy", long, 3000, 0),                  // its summary, all a row has of it, cut
		oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "Game", Text: "wave 3", Time: at(4000)},
		c,
	)
	for i := range 25 { // lines at the crash's time after it: not before it
		logtest.MustAppend(t, l, oplog.Record{Level: oplog.LevelInfo, Source: "unity", Name: "Game", Text: fmt.Sprintf("after %d", i), Time: at(5000)})
	}
	sc := storyStudio(t, impl, l)
	cs := connectWith(t, l, &mcptools.Options{Version: "test", StudioScope: sc})

	localText, localSC, _ := callTool(t, cs, "find_crashes", map[string]any{"limit": 1})
	text, structured, size := callTool(t, cs, "find_crashes", map[string]any{"limit": 1, "scope": "studio"})
	type story struct {
		Groups []struct {
			LastMachine string   `json:"lastMachine"`
			LastID      uint64   `json:"lastId"`
			Run         string   `json:"run"`
			InFlight    []string `json:"inFlight"`
			Calls       []string `json:"calls"`
			Before      []string `json:"before"`
			Stack       string   `json:"stack"`
		} `json:"groups"`
	}
	var local, got story
	if err := json.Unmarshal(localSC, &local); err != nil || len(local.Groups) != 1 {
		t.Fatalf("local: %v: %s", err, localSC)
	}
	if err := json.Unmarshal(structured, &got); err != nil || len(got.Groups) != 1 {
		t.Fatalf("studio: %v: %s", err, structured)
	}
	g, lg := got.Groups[0], local.Groups[0]
	if g.LastMachine != "m1" || g.LastID != recs[7].ID || g.Run != "unity#2" || !strings.Contains(g.Stack, "Spawner.cs:42") {
		t.Errorf("group: machine %q, lastId %d, run %q, stack %q", g.LastMachine, g.LastID, g.Run, g.Stack)
	}
	wantFlight := []string{
		fmt.Sprintf(`#%d load_level {"name":"arena"} started −3.0s, success 0.5s after the crash`, recs[4].ID),
		fmt.Sprintf(`#%d spawn_enemy {"count":250,"note":"%s… started −2.0s, `, recs[5].ID, strings.Repeat("x", 80-len(`{"count":250,"note":"`)-len("…"))),
	}
	if len(g.InFlight) != 2 || g.InFlight[0] != wantFlight[0] || !strings.HasPrefix(g.InFlight[1], wantFlight[1]) {
		t.Errorf("inFlight %q, want\n%q", g.InFlight, wantFlight)
	}
	if !slices.Equal(g.InFlight, lg.InFlight) || !slices.Equal(g.Calls, lg.Calls) || !slices.Equal(g.Before, lg.Before) {
		t.Errorf("studio story\n%q %q %q\nlocal\n%q %q %q", g.InFlight, g.Calls, g.Before, lg.InFlight, lg.Calls, lg.Before)
	}
	if story, want := storyLines(text), storyLines(localText); !slices.Equal(story, want) || len(story) != 4 {
		t.Errorf("studio text's story\n%s\nlocal's\n%s", strings.Join(story, "\n"), strings.Join(want, "\n"))
	}
	for _, want := range []string{`call: #` + fmt.Sprint(recs[3].ID) + ` set_speed {"x":2} success in 0.6s (−3.5s)`, "wave 3 (−1.0s)"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, `"count":500`) || strings.Contains(text, "info after ") {
		t.Errorf("a call of the run before, or a line after the crash, is in the story:\n%s", text)
	}
	if size > 4<<10 {
		t.Errorf("%d bytes, want ≤ 4096", size)
	}
}

// storyStudio returns a studio of impl holding l's records as machine m1
// forwarded them: through the forwarder to VictoriaLogs, or as the rows it
// sends (each record in its state now, the crash signature the local
// index groups by) to the in-memory studio.
func storyStudio(t *testing.T, impl studiotest.Impl, l *oplog.Log) oplog.Studio {
	t.Helper()
	if impl.Name != "victorialogs" {
		var rows []oplogtest.StudioRow
		for id := uint64(1); id <= l.Stats().LastID; id++ {
			r, err := l.Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			sig, _ := crash.RecordSignature(&r)
			rows = append(rows, oplogtest.StudioRow{Machine: "m1", Revision: l.Stats().Revision, Seq: id, Record: r, Signature: sig})
		}
		return impl.Open(t, "game", rows)
	}
	v := vltest.Start(t)
	f, err := studio.Forward(l, studio.ForwardOptions{URL: v.URL, Project: "game", Machine: "m1",
		StatePath: filepath.Join(t.TempDir(), "studio-forward.json"), MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	logtest.Eventually(t, 30*time.Second, "every record forwarded", func() bool {
		s := f.Status()
		return s.ForwardedID == l.Stats().LastID && s.LagRecords == 0
	})
	v.ForceFlush(t)
	sc, err := studio.NewClient(studio.ClientOptions{URL: v.URL, Project: "game"})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// storyLines are the lines of a find_crashes text that tell the crash's
// story: its calls in flight and its trail.
func storyLines(text string) []string {
	var out []string
	for l := range strings.Lines(text) {
		if strings.HasPrefix(l, "  in flight: ") || strings.HasPrefix(l, "  before: ") {
			out = append(out, strings.TrimRight(l, "\n"))
		}
	}
	return out
}
