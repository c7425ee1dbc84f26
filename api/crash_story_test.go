package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// crashStoryAnswer is GET /api/v1/crashes's answer as a story reads it.
type crashStoryAnswer struct {
	Groups []struct {
		Signature string `json:"signature"`
		LastID    uint64 `json:"lastId"`
	} `json:"groups"`
	Story *struct {
		Signature string   `json:"signature"`
		LastID    uint64   `json:"lastId"`
		Run       string   `json:"run"`
		Since     string   `json:"since"`
		InFlight  []string `json:"inFlight"`
		Trail     []string `json:"trail"`
	} `json:"story"`
}

// TestHTTP_Crashes_Story: a game's run, recorded as a bridge records it,
// crashes natively while spawn_enemy {"count": 500} is pending; another
// source logs an error. GET /api/v1/crashes?story=1 tells the first
// group's story (the crash that ended the run): that call in flight, with
// its arguments, when it started and its status, and the trail of the
// run's last lines and calls with times relative to the crash, in the
// words of find_crashes {limit: 1}. story=<signature> tells another
// group's; without story there is none; a bad story is 400 naming it.
func TestHTTP_Crashes_Story(t *testing.T) {
	h := withCrashes(mustServe(t, nil))
	t0 := time.Now().UTC().Add(-5 * time.Minute).Truncate(time.Millisecond)
	at := func(ms int) string { return t0.Add(time.Duration(ms) * time.Millisecond).Format(time.RFC3339Nano) }
	logs := func(body string) []uint64 {
		return mustCall[struct {
			IDs []uint64 `json:"ids"`
		}](h, http.MethodPost, "/api/v1/logs", body, http.StatusOK).IDs
	}
	op := func(body string) uint64 {
		return mustCall[struct {
			ID uint64 `json:"id"`
		}](h, http.MethodPost, "/api/v1/operations", body, http.StatusCreated).ID
	}

	loading := logs(fmt.Sprintf(`[{"kind":"marker","name":"run","level":"info","source":"game","text":"run started: game","time":%q},
		{"level":"info","source":"game","text":"Loading level Arena","time":%q}]`, at(0), at(1000)))[1]
	load := op(fmt.Sprintf(`{"tool":"load_level","source":"game","arguments":{"name":"Arena"},"time":%q,"status":"success","endTime":%q}`, at(1500), at(2000)))
	logs(fmt.Sprintf(`{"level":"error","source":"editor","text":"KeyError: 'boss'","stack":"Traceback (most recent call last):\n  File \"tool.py\", line 3, in run\nKeyError: 'boss'\n","time":%q}`, at(5000)))
	spawn := op(fmt.Sprintf(`{"tool":"spawn_enemy","source":"game","arguments":{"count": 500},"time":%q}`, at(8000)))
	grow := logs(fmt.Sprintf(`[{"level":"warn","source":"game","text":"EnemyPool growing to 700","time":%q},
		{"level":"fatal","source":"game","text":"Received signal SIGSEGV","stack":"Received signal SIGSEGV\nStack trace:\n0x00007f3a2b1c (game) EnemyPool::Grow(int)\n0x00007f3a2b9e (game) Spawner::Spawn(int)\n","time":%q},
		{"kind":"marker","name":"exit","level":"fatal","source":"game","text":"exited on signal SIGSEGV","data":{"signal":"SIGSEGV","signalNumber":11},"time":%q}]`,
		at(8600), at(9000), at(9050)))[0]

	a := mustCall[crashStoryAnswer](h, http.MethodGet, "/api/v1/crashes?story=1", "", http.StatusOK)
	if len(a.Groups) != 2 || a.Story == nil {
		t.Fatalf("story=1: %d groups, story %+v; want 2 groups and a story", len(a.Groups), a.Story)
	}
	st := a.Story
	if st.Signature != a.Groups[0].Signature || st.LastID != a.Groups[0].LastID || st.Run != "game#1" {
		t.Errorf("story of %s #%d in %q; want the first group's, %s #%d, in game#1", st.Signature, st.LastID, st.Run, a.Groups[0].Signature, a.Groups[0].LastID)
	}
	wantInFlight := []string{fmt.Sprintf(`#%d spawn_enemy {"count":500} started −1.0s, crashed`, spawn)}
	wantTrail := []string{
		fmt.Sprintf("#%d info Loading level Arena (−8.0s)", loading),
		fmt.Sprintf(`call: #%d load_level {"name":"Arena"} success in 0.5s (−7.5s)`, load),
		fmt.Sprintf("#%d warn EnemyPool growing to 700 (−0.4s)", grow),
	}
	if fmt.Sprint(st.InFlight) != fmt.Sprint(wantInFlight) || fmt.Sprint(st.Trail) != fmt.Sprint(wantTrail) {
		t.Errorf("inFlight %q\ntrail %q\nwant %q\n%q", st.InFlight, st.Trail, wantInFlight, wantTrail)
	}
	if !strings.Contains(st.Since, "no run of game since") {
		t.Errorf("since %q: want the run named the latest", st.Since)
	}

	// The MCP tool says the same of it.
	out, text := callWithin[crashCallsOut](t, mustConnect(t, h, nil), 4<<10, "find_crashes", map[string]any{"limit": 1})
	if len(out.Groups) != 1 || fmt.Sprint(out.Groups[0].InFlight) != fmt.Sprint(st.InFlight) {
		t.Errorf("find_crashes {limit: 1} says otherwise:\n%s", text)
	}

	other := a.Groups[1].Signature
	b := mustCall[crashStoryAnswer](h, http.MethodGet, "/api/v1/crashes?story="+other, "", http.StatusOK)
	if b.Story == nil || b.Story.Signature != other || len(b.Story.InFlight) != 0 || b.Story.InFlight == nil {
		t.Errorf("story=%s: %+v; want that group's story, with no call in flight (inFlight [])", other, b.Story)
	}
	if _, body := h.Call(http.MethodGet, "/api/v1/crashes", ""); strings.Contains(string(body), `"story"`) {
		t.Errorf("no story asked, one told: %s", body)
	}
	if c := mustCall[crashStoryAnswer](h, http.MethodGet, "/api/v1/crashes?story=0123456789abcdef", "", http.StatusOK); c.Story != nil {
		t.Errorf("a signature of no group: story %+v, want none", c.Story)
	}
	status, body := h.Call(http.MethodGet, "/api/v1/crashes?story=yes", "")
	checkError(t, status, body, http.StatusBadRequest, "invalid", "story", "yes")
}
