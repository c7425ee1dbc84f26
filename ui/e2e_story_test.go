package ui_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestE2E_Crashes_Story: a game's run crashes while the agent's
// spawn_enemy {"count": 500} is pending; another source logs an error. The
// crash view shows the story of the crash that ended the run at once,
// under its group: the call in flight with its arguments, when it started
// and "crashed", then the trail of the run's last lines and calls, each
// with its time relative to the crash and a link to its record. The
// error's story comes when its box is opened, and a click in a story does
// not open the group's record.
func TestE2E_Crashes_Story(t *testing.T) {
	t.Parallel()
	s := mustServe(t)
	t0 := time.Now().UTC().Add(-time.Minute).Truncate(time.Millisecond)
	at := func(ms int) string { return t0.Add(time.Duration(ms) * time.Millisecond).Format(time.RFC3339Nano) }
	op := func(body string) uint64 {
		var a struct {
			ID uint64 `json:"id"`
		}
		if err := json.Unmarshal(s.do(t, "POST", "/api/v1/operations", body, http.StatusCreated), &a); err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	ids := s.ingest(t,
		line{Time: at(0), Kind: "marker", Name: "run", Level: "info", Source: "game", Text: "run started: game"},
		line{Time: at(1000), Level: "info", Source: "game", Text: "Loading level Arena"})
	load := op(fmt.Sprintf(`{"tool":"load_level","source":"game","arguments":{"name":"Arena"},"time":%q,"status":"success","endTime":%q}`, at(1500), at(2000)))
	s.ingest(t, line{Time: at(5000), Level: "error", Source: "editor", Text: "KeyError: 'boss'",
		Stack: "Traceback (most recent call last):\n  File \"tool.py\", line 3, in run\nKeyError: 'boss'\n"})
	spawn := op(fmt.Sprintf(`{"tool":"spawn_enemy","source":"game","arguments":{"count":500},"time":%q}`, at(8600)))
	s.ingest(t,
		line{Time: at(8700), Level: "warn", Source: "game", Text: "EnemyPool growing to 700"},
		line{Time: at(9000), Level: "fatal", Source: "game", Text: "Received signal SIGSEGV",
			Stack: "Received signal SIGSEGV\nStack trace:\n0x00007f3a2b1c (game) EnemyPool::Grow(int)\n0x00007f3a2b9e (game) Spawner::Spawn(int)\n"},
		line{Time: at(9050), Kind: "marker", Name: "exit", Level: "fatal", Source: "game", Text: "exited on signal SIGSEGV", Data: json.RawMessage(`{"signal":"SIGSEGV"}`)})

	b := mustBrowser(t)
	b.open(t, s)
	b.view(t, "crashes", "#crashes")
	first := `#crashes .group:first-child .story[open]`
	b.wait(t, "the crash's story, open", waitLong, visible(first+" .inflight"))
	var got struct {
		InFlight []string `json:"inFlight"`
		Status   string   `json:"status"`
		Trail    []string `json:"trail"`
		Rel      []string `json:"rel"`
		Links    []string `json:"links"`
	}
	b.evalInto(t, `(s => ({
		inFlight: [...s.querySelectorAll(".inflight")].map(e => e.textContent),
		status: (e => e ? e.className + ":" + e.textContent : "")(s.querySelector(".inflight .status-crashed")),
		trail: [...s.querySelectorAll(".trail li")].map(e => e.textContent),
		rel: [...s.querySelectorAll(".trail .rel")].map(e => e.textContent),
		links: [...s.querySelectorAll("a.id")].map(a => a.getAttribute("href")),
	}))(document.querySelector(`+js(first)+`))`, &got)
	wantInFlight := fmt.Sprintf(`in flight#%d spawn_enemy {"count":500} started −0.4s, crashed`, spawn)
	if len(got.InFlight) != 1 || got.InFlight[0] != wantInFlight || got.Status != "status-crashed:crashed" {
		t.Errorf("in flight %q (status %q), want [%q] with crashed marked\npage: %s", got.InFlight, got.Status, wantInFlight, b.snapshot())
	}
	wantTrail := []string{
		fmt.Sprintf("−8.0s#%d info Loading level Arena", ids[1]),
		fmt.Sprintf(`−7.5scall: #%d load_level {"name":"Arena"} success in 0.5s`, load),
		"−0.3s#", // the warning's, whose ID the test did not keep
	}
	if len(got.Trail) != 3 || got.Trail[0] != wantTrail[0] || got.Trail[1] != wantTrail[1] || !strings.HasPrefix(got.Trail[2], wantTrail[2]) ||
		!strings.HasSuffix(got.Trail[2], "warn EnemyPool growing to 700") {
		t.Errorf("trail %q, want %q", got.Trail, wantTrail)
	}
	if want := fmt.Sprintf("#/record/%d", spawn); len(got.Links) == 0 || got.Links[0] != want {
		t.Errorf("links %q: want the call in flight's first, %s", got.Links, want)
	}

	// The error's story, on opening its box; a click in it stays here.
	second := `#crashes .group:nth-child(2) .story`
	if open := b.eval(t, `document.querySelector(`+js(second)+`).open`); open != false {
		t.Errorf("the error's story is open before it was asked for")
	}
	b.do(t, "open the error's story", chromedp.Click(chromedp.CSS(second+" > summary")))
	b.wait(t, "the error's story", waitLong, `(s => s.open && s.dataset.loaded === "1" && s.querySelector(".inflight").textContent === "no call in flight")(document.querySelector(`+js(second)+`))`)
	b.do(t, "click in the story", chromedp.Click(chromedp.CSS(first+" .trail .rel")))
	time.Sleep(200 * time.Millisecond)
	if h := b.eval(t, "location.hash"); h != "#/crashes" {
		t.Errorf("a click in a story went to %v", h)
	}
}
