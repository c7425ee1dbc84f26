package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/mcptools"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestServer_Info_Games: GET /api/v1/info says each game's health as
// store_info does: a game whose run ended on a signal is crashed, with the
// exit's text; after a new run marker it is running again as run 2, the
// crash of run 1 still told. The client reads the same answer.
func TestServer_Info_Games(t *testing.T) {
	h := mustServe(t, nil)
	base := time.Now().Add(-time.Minute).UTC().Truncate(time.Millisecond)
	at := func(s int) string { return base.Add(time.Duration(s) * time.Second).Format(time.RFC3339Nano) }
	logs := func(body string) { mustCall[appendAnswer](h, http.MethodPost, "/api/v1/logs", body, http.StatusOK) }
	type game struct {
		Name, State, End, EndOutcome string
		Run, EndRun                  uint64
		Since, Newest                time.Time
		Upstream                     string
	}
	type info struct {
		Records uint64
		Games   []game
	}

	logs(fmt.Sprintf(`[{"kind":"marker","name":"run","level":"info","source":"game","text":"run started: game","time":%q},
		{"level":"info","source":"game","text":"Loading level Arena","time":%q},
		{"level":"info","source":"editor","text":"Compiling","time":%q},
		{"kind":"marker","name":"exit","level":"error","source":"game","text":"game killed by signal 11 (SIGSEGV)","data":{"signal":"SIGSEGV","signalNumber":11},"time":%q}]`,
		at(0), at(1), at(2), at(3)))
	got := mustCall[info](h, http.MethodGet, "/api/v1/info", "", http.StatusOK)
	want := []game{
		{Name: "game", State: oplog.OutcomeCrashed, Run: 1, End: "game killed by signal 11 (SIGSEGV)", Since: base.Add(3 * time.Second), Newest: base.Add(3 * time.Second)},
		{Name: "editor", State: oplog.OutcomeRunning, Run: 1, Since: base.Add(2 * time.Second), Newest: base.Add(2 * time.Second)},
	}
	if got.Records != 4 || fmt.Sprint(got.Games) != fmt.Sprint(want) {
		t.Errorf("info after the crash: %d records, games\n%+v\nwant\n%+v", got.Records, got.Games, want)
	}

	logs(fmt.Sprintf(`[{"kind":"marker","name":"run","level":"info","source":"game","text":"run started: game","time":%q},
		{"level":"info","source":"game","text":"Loading level Arena","time":%q}]`, at(10), at(11)))
	got = mustCall[info](h, http.MethodGet, "/api/v1/info", "", http.StatusOK)
	want[0] = game{Name: "game", State: oplog.OutcomeRunning, Run: 2, End: "game killed by signal 11 (SIGSEGV)", EndRun: 1, EndOutcome: oplog.OutcomeCrashed,
		Since: base.Add(10 * time.Second), Newest: base.Add(11 * time.Second)}
	if fmt.Sprint(got.Games) != fmt.Sprint(want) {
		t.Errorf("info after the new run marker: games\n%+v\nwant\n%+v", got.Games, want)
	}

	a, err := client.NewClient(h.URL, testToken).Info(context.Background())
	if err != nil || len(a.Games) != 2 {
		t.Fatalf("client Info: %+v, %v", a.Games, err)
	}
	line := mcptools.GameText(&a.Games[0], base.Add(15*time.Second))
	if want := "game game: running, started 5.0s ago, run 2; run 1 crashed (game killed by signal 11 (SIGSEGV)); newest record 4.0s ago"; line != want {
		t.Errorf("the client's game said as a line:\n%s\nwant\n%s", line, want)
	}
}
