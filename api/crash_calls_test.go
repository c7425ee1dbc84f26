package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// crashCallsOut is find_crashes' answer as the calls of its story read it.
type crashCallsOut struct {
	Groups []struct {
		Title    string   `json:"title"`
		LastID   uint64   `json:"lastId"`
		Before   []string `json:"before"`
		InFlight []string `json:"inFlight"`
		Calls    []string `json:"calls"`
	} `json:"groups"`
}

// TestMCP_FindCrashes_Calls: a game's run recorded as a bridge records it
// (lines and markers through POST /api/v1/logs, the agent's calls through
// POST /api/v1/operations) crashes natively while spawn_enemy {"count":
// 500} is pending. find_crashes {limit: 1} names that call in flight, with
// its arguments and when it started, and a call that completed after the
// crash; the run's last calls before it, interleaved with its last lines;
// never a call of another source, nor one that completed before the crash
// as in flight; within 4 KB.
func TestMCP_FindCrashes_Calls(t *testing.T) {
	m := mustConnect(t, withCrashes(mustServe(t, nil)), nil)
	t0 := time.Now().UTC().Add(-5 * time.Minute).Truncate(time.Millisecond)
	at := func(ms int) string { return t0.Add(time.Duration(ms) * time.Millisecond).Format(time.RFC3339Nano) }
	logs := func(body string) {
		mustCall[struct{ Count int }](m.harness, http.MethodPost, "/api/v1/logs", body, http.StatusOK)
	}
	type opAnswer struct {
		ID uint64 `json:"id"`
	}
	op := func(body string) uint64 {
		return mustCall[opAnswer](m.harness, http.MethodPost, "/api/v1/operations", body, http.StatusCreated).ID
	}
	complete := func(id uint64, end int) {
		mustCall[opAnswer](m.harness, http.MethodPost, fmt.Sprintf("/api/v1/operations/%d/complete", id),
			fmt.Sprintf(`{"status":"success","endTime":%q}`, at(end)), http.StatusOK)
	}

	logs(fmt.Sprintf(`[{"kind":"marker","name":"run","level":"info","source":"game","text":"run started: game","time":%q},
		{"level":"info","source":"game","text":"Loading level Arena","time":%q}]`, at(0), at(1000)))
	load := op(fmt.Sprintf(`{"tool":"load_level","source":"game","arguments":{"name":"Arena"},"time":%q,"status":"success","endTime":%q}`, at(1500), at(2000)))
	spawn200 := op(fmt.Sprintf(`{"tool":"spawn_enemy","source":"game","arguments":{"count":200},"time":%q}`, at(3000)))
	complete(spawn200, 3400)
	logs(fmt.Sprintf(`{"level":"info","source":"game","text":"Spawned 200 enemies","time":%q}`, at(3500)))
	state := op(fmt.Sprintf(`{"tool":"get_state","source":"game","arguments":{},"time":%q}`, at(7500)))
	complete(state, 9500) // its answer came after the crash (by its clock): it was in flight
	spawn500 := op(fmt.Sprintf(`{"tool":"spawn_enemy","source":"game","arguments":{"count": 500},"time":%q}`, at(8000)))
	speed := op(fmt.Sprintf(`{"tool":"set_speed","source":"game","arguments":{"x":2},"time":%q}`, at(8200)))
	complete(speed, 8800) // completed before the crash: not in flight
	other := op(fmt.Sprintf(`{"tool":"spawn_enemy","source":"editor","arguments":{"count":7},"time":%q}`, at(8500)))
	logs(fmt.Sprintf(`[{"level":"warn","source":"game","text":"EnemyPool growing to 700","time":%q},
		{"level":"fatal","source":"game","text":"Received signal SIGSEGV","stack":"Received signal SIGSEGV\nStack trace:\n0x00007f3a2b1c (game) EnemyPool::Grow(int)\n0x00007f3a2b9e (game) Spawner::Spawn(int)\n","time":%q},
		{"kind":"marker","name":"exit","level":"fatal","source":"game","text":"exited on signal SIGSEGV","data":{"signal":"SIGSEGV","signalNumber":11},"time":%q}]`,
		at(8600), at(9000), at(9050)))

	out, text := callWithin[crashCallsOut](t, m, 4<<10, "find_crashes", map[string]any{"limit": 1})
	if len(out.Groups) != 1 {
		t.Fatalf("find_crashes {limit: 1}: %d groups\n%s", len(out.Groups), text)
	}
	g := out.Groups[0]
	wantInFlight := []string{
		fmt.Sprintf("#%d get_state {} started −1.5s, success 0.5s after the crash", state),
		// pending until the run ended crashed, which completed it as crashed
		fmt.Sprintf(`#%d spawn_enemy {"count":500} started −1.0s, crashed`, spawn500),
	}
	wantCalls := []string{
		fmt.Sprintf(`#%d load_level {"name":"Arena"} success in 0.5s`, load),
		fmt.Sprintf(`#%d spawn_enemy {"count":200} success in 0.4s`, spawn200),
		fmt.Sprintf(`#%d set_speed {"x":2} success in 0.6s`, speed),
	}
	if fmt.Sprint(g.InFlight) != fmt.Sprint(wantInFlight) || fmt.Sprint(g.Calls) != fmt.Sprint(wantCalls) {
		t.Errorf("inFlight %q\n calls %q; want\n%q\n%q\n%s", g.InFlight, g.Calls, wantInFlight, wantCalls, text)
	}
	// The text: the calls in flight, then lines and calls in time order,
	// each with its time relative to the crash.
	order := []string{
		"in flight: " + wantInFlight[1],
		"before: #",
		"Loading level Arena (−8.0s)",
		"before: call: " + wantCalls[0] + " (−7.5s)",
		"before: call: " + wantCalls[1] + " (−6.0s)",
		"Spawned 200 enemies (−5.5s)",
		"before: call: " + wantCalls[2] + " (−0.8s)",
		"EnemyPool growing to 700 (−0.4s)",
		"EnemyPool::Grow(int)",
	}
	from := 0
	for _, w := range order {
		i := strings.Index(text[from:], w)
		if i < 0 {
			t.Fatalf("text lacks %q after byte %d:\n%s", w, from, text)
		}
		from += i
	}
	if strings.Contains(text, fmt.Sprintf("#%d ", other)) || strings.Contains(text, `"count":7`) {
		t.Errorf("another source's call is in the crash's trail:\n%s", text)
	}
	if strings.Contains(strings.Join(g.InFlight, "\n"), "set_speed") || strings.Contains(strings.Join(g.InFlight, "\n"), "load_level") {
		t.Errorf("a call that completed before the crash is in flight: %q", g.InFlight)
	}
	res, _ := m.callRaw(t, "find_crashes", map[string]any{"limit": 1})
	whole, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("find_crashes {limit: 1}: %d bytes in all, %d of text:\n%s", len(whole), len(text), text)
}

// TestMCP_FindCrashes_Recurrence: a game recorded as a bridge records it
// crashes in the middle of spawn_enemy in runs 1 and 3 and exits cleanly
// in run 2, where spawn_enemy completed; another source's crashed run
// calls spawn_enemy too. find_crashes {limit: 1} says that the call shape
// spawn_enemy {count} was in flight in 2 of 2 crashed runs and 0 of 1
// clean, and that get_state, called in every run, tells nothing.
func TestMCP_FindCrashes_Recurrence(t *testing.T) {
	m := mustConnect(t, withCrashes(mustServe(t, nil)), nil)
	t0 := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Millisecond)
	at := func(ms int) string { return t0.Add(time.Duration(ms) * time.Millisecond).Format(time.RFC3339Nano) }
	logs := func(body string) {
		mustCall[struct{ Count int }](m.harness, http.MethodPost, "/api/v1/logs", body, http.StatusOK)
	}
	type opAnswer struct {
		ID uint64 `json:"id"`
	}
	op := func(source, tool, args string, start, end int) {
		body := fmt.Sprintf(`{"tool":%q,"source":%q,"arguments":%s,"time":%q}`, tool, source, args, at(start))
		if end > 0 {
			body = fmt.Sprintf(`{"tool":%q,"source":%q,"arguments":%s,"time":%q,"status":"success","endTime":%q}`, tool, source, args, at(start), at(end))
		}
		mustCall[opAnswer](m.harness, http.MethodPost, "/api/v1/operations", body, http.StatusCreated)
	}
	const crash = `{"level":"error","source":%q,"text":"KeyError: 'boss'","stack":"Traceback (most recent call last):\n  File \"game.py\", line 12, in spawn\n    return wave[\"boss\"].hp\nKeyError: 'boss'","time":%q}`
	run := func(source string, n, base int, crashes bool, count int) {
		logs(fmt.Sprintf(`{"kind":"marker","name":"run","level":"info","source":%q,"text":"run started: python3 game.py","time":%q}`, source, at(base)))
		op(source, "get_state", `{}`, base+100, base+200)
		if !crashes {
			op(source, "spawn_enemy", fmt.Sprintf(`{"count":%d}`, count), base+300, base+400)
			logs(fmt.Sprintf(`{"kind":"marker","name":"exit","level":"info","source":%q,"text":"python3 exited with status 0","data":{"code":0},"time":%q}`, source, at(base+500)))
			return
		}
		op(source, "spawn_enemy", fmt.Sprintf(`{"count":%d}`, count), base+300, 0) // in flight
		logs(fmt.Sprintf(`[`+crash+`, {"kind":"marker","name":"exit","level":"error","source":%q,"text":"python3 exited with status 1","data":{"code":1},"time":%q}]`,
			source, at(base+400), source, at(base+500)))
	}
	run("game", 1, 0, true, 500)
	run("editor", 1, 500, true, 9) // another source: never counted for game
	run("game", 2, 1000, false, 5)
	run("game", 3, 2000, true, 250)

	out, text := callWithin[struct {
		Groups []struct {
			Recurrence []string `json:"recurrence"`
			InFlight   []string `json:"inFlight"`
		} `json:"groups"`
	}](t, m, 4<<10, "find_crashes", map[string]any{"limit": 1, "source": "game"})
	if len(out.Groups) != 1 || len(out.Groups[0].Recurrence) == 0 {
		t.Fatalf("find_crashes {limit: 1}: no recurrence\n%s", text)
	}
	rec := out.Groups[0].Recurrence
	if want := "spawn_enemy {count} in flight in 2 of 2 crashed runs, 0 of 1 clean; among the last calls in 0 of 2 crashed, 1 of 1 clean"; rec[0] != want {
		t.Errorf("recurrence[0] = %q, want %q\n%s", rec[0], want, text)
	}
	for _, r := range rec[1:] {
		if strings.HasPrefix(r, "get_state") && r != "get_state {} in flight in 0 of 2 crashed runs, 0 of 1 clean; among the last calls in 2 of 2 crashed, 1 of 1 clean" {
			t.Errorf("get_state's line: %q", r)
		}
	}
	if !strings.Contains(text, "across runs: spawn_enemy {count} in flight in 2 of 2 crashed runs") {
		t.Errorf("the text lacks the recurrence line:\n%s", text)
	}
}
