package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/api/apitest"
	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// TestHTTP_Operations_CrashedInFlight: a bridge posts the agent's calls
// through POST /api/v1/operations and the game's output through POST
// /api/v1/logs. The game dies of an uncaught Python exception while
// spawn_enemy is pending: the exit marker that ends its run completes that
// call as crashed, naming the crash, its record and the exit, within 1 KB;
// a call completed before the crash and a call of another source stay as
// they were. GET /api/v1/operations/:id, get_result and status:crashed
// (right after a burst, then from bleve) say so.
func TestHTTP_Operations_CrashedInFlight(t *testing.T) {
	var idx *search.Index
	h := mustServe(t, &apitest.Options{Setup: func(l *oplog.Log, db *store.DB, _ *api.Options) {
		var err error
		idx, err = search.Open(filepath.Join(t.TempDir(), "index"), db, &search.Options{Changed: l.Changed, Interval: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		l.SetIndex(idx)
		l.SetCrashes(crash.New(l, nil))
	}})
	m := mustConnect(t, h, nil)
	t0 := time.Now().UTC().Add(-time.Minute).Truncate(time.Millisecond)
	at := func(ms int) string { return t0.Add(time.Duration(ms) * time.Millisecond).Format(time.RFC3339Nano) }
	type idAnswer struct {
		ID uint64 `json:"id"`
	}
	op := func(body string) uint64 {
		return mustCall[idAnswer](h, http.MethodPost, "/api/v1/operations", body, http.StatusCreated).ID
	}
	logs := func(body string) {
		mustCall[struct{ Count int }](h, http.MethodPost, "/api/v1/logs", body, http.StatusOK)
	}

	logs(fmt.Sprintf(`{"kind":"marker","name":"run","level":"info","source":"game","text":"run started: python3 game.py","time":%q}`, at(0)))
	done := op(fmt.Sprintf(`{"tool":"load_level","source":"game","arguments":{"name":"Arena"},"time":%q,"status":"success","endTime":%q}`, at(100), at(200)))
	spawn := op(fmt.Sprintf(`{"tool":"spawn_enemy","source":"game","arguments":{"count":500},"time":%q}`, at(300)))
	other := op(fmt.Sprintf(`{"tool":"spawn_enemy","source":"editor","arguments":{"count":7},"time":%q}`, at(350)))
	logs(fmt.Sprintf(`[{"level":"error","source":"game","text":"KeyError: 'boss'","stack":"Traceback (most recent call last):\n  File \"game.py\", line 12, in spawn\n    pool[name]\nKeyError: 'boss'\n","time":%q},
		{"kind":"marker","name":"exit","level":"error","source":"game","text":"python3 exited with status 1","data":{"exitCode":1},"time":%q}]`, at(400), at(450)))

	got := mustCall[record](h, http.MethodGet, fmt.Sprintf("/api/v1/operations/%d", spawn), "", http.StatusOK)
	crashID := spawn + 2 // the traceback, right after the other source's call
	for _, w := range []string{"the game crashed during this call: KeyError: 'boss'", fmt.Sprintf("(record #%d)", crashID), "; python3 exited with status 1"} {
		if got.Status != "crashed" || !strings.Contains(got.Error, w) {
			t.Fatalf("the call in flight: status %q, error %q; want crashed with %q", got.Status, got.Error, w)
		}
	}
	t.Logf("the call in flight: %s", got.Error)
	if len(got.Error) > oplog.MaxCrashedErrorBytes {
		t.Errorf("error text of %d bytes, over %d", len(got.Error), oplog.MaxCrashedErrorBytes)
	}
	if r := mustCall[record](h, http.MethodGet, fmt.Sprintf("/api/v1/operations/%d", done), "", http.StatusOK); r.Status != "success" || r.Error != "" {
		t.Errorf("the call completed before the crash: %s %q, want success untouched", r.Status, r.Error)
	}
	if r := mustCall[record](h, http.MethodGet, fmt.Sprintf("/api/v1/operations/%d", other), "", http.StatusOK); r.Status != "pending" {
		t.Errorf("the other source's call: %s, want pending", r.Status)
	}

	res, _ := callWithin[struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}](t, m, mcptools.DefaultBudget, "get_result", map[string]any{"log_id": spawn})
	if res.Status != "crashed" || res.Error != got.Error {
		t.Errorf("get_result: %s %q, want crashed %q", res.Status, res.Error, got.Error)
	}

	found := func(when string) {
		t.Helper()
		v := url.Values{"query": {"status:crashed"}, "limit": {"10"}}
		a := mustCall[struct {
			Hits []struct {
				Record oplog.Record `json:"record"`
			} `json:"hits"`
		}](h, http.MethodGet, "/api/v1/search?"+v.Encode(), "", http.StatusOK)
		if len(a.Hits) != 1 || a.Hits[0].Record.ID != spawn {
			t.Errorf("status:crashed %s: %d hits %+v, want #%d", when, len(a.Hits), a.Hits, spawn)
		}
	}
	burst := make([]string, 2000)
	for i := range burst {
		burst[i] = fmt.Sprintf(`{"level":"info","source":"game","text":"frame %d drawn"}`, i)
	}
	logs("[" + strings.Join(burst, ",") + "]")
	found("right after a burst")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := idx.WaitIndexed(ctx, h.Log.Stats().LastID, nil); err != nil {
		t.Fatalf("index never caught up: %v", err)
	}
	found("from the index")

	// An operation completes once: the bridge's late answer is refused,
	// naming the status it has.
	mustCall[errorBody](h, http.MethodPost, fmt.Sprintf("/api/v1/operations/%d/complete", spawn), `{"status":"success"}`, http.StatusConflict)
	if r := mustCall[record](h, http.MethodGet, fmt.Sprintf("/api/v1/operations/%d", spawn), "", http.StatusOK); r.Status != "crashed" {
		t.Errorf("a crashed call completed later: %s, want crashed", r.Status)
	}

	// A bridge that posts its calls late: one after the crash's record
	// (found through the index's pending status by the exit marker), one
	// after the exit marker that started before it.
	logs(fmt.Sprintf(`{"kind":"marker","name":"run","level":"info","source":"game","text":"run started: python3 game.py","time":%q}`, at(10000)))
	logs(fmt.Sprintf(`{"level":"error","source":"game","text":"KeyError: 'wolf'","stack":"Traceback (most recent call last):\n  File \"game.py\", line 12, in spawn\n    pool[name]\nKeyError: 'wolf'\n","time":%q}`, at(10400)))
	between := op(fmt.Sprintf(`{"tool":"spawn_enemy","source":"game","arguments":{"count":9},"time":%q}`, at(10300)))
	logs(fmt.Sprintf(`{"kind":"marker","name":"exit","level":"error","source":"game","text":"python3 exited with status 1","data":{"exitCode":1},"time":%q}`, at(10450)))
	late := op(fmt.Sprintf(`{"tool":"get_state","source":"game","time":%q}`, at(10440)))
	for _, id := range []uint64{between, late} {
		if r := mustCall[record](h, http.MethodGet, fmt.Sprintf("/api/v1/operations/%d", id), "", http.StatusOK); r.Status != "crashed" ||
			!strings.Contains(r.Error, "KeyError: 'wolf'") {
			t.Errorf("call #%d, recorded late: %s %q, want crashed of KeyError: 'wolf'", id, r.Status, r.Error)
		}
	}
}
