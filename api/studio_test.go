package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
)

// studioHarness serves an empty local log whose studio (of impl) holds
// the same crash from two machines and a few lines.
func studioHarness(t *testing.T, impl studiotest.Impl) *harness {
	t.Helper()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	var rows []oplogtest.StudioRow
	for i, m := range []string{"alice-pc", "ci-7", "ci-7"} {
		stack := fmt.Sprintf("NullReferenceException\n  at Player.Update () in Assets/Player.cs:%d", 40+i)
		r := oplog.Record{ID: uint64(10 + i), Kind: oplog.KindLine, Level: oplog.LevelError, Source: "unity", Name: "Game",
			Time: t0.Add(time.Duration(i) * time.Second), Text: "NullReferenceException: Object reference not set", Stack: stack}
		rows = append(rows, oplogtest.StudioRow{Machine: m, Revision: 1, Seq: uint64(i + 1), Record: r,
			Signature: crash.Parse(stack).WithHead(r.Text).Signature()})
	}
	for i := range 5 {
		r := oplog.Record{ID: uint64(100 + i), Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "unity", Name: "Loader",
			Time: t0.Add(time.Minute + time.Duration(i)*time.Second), Text: fmt.Sprintf("loaded scene %d", i)}
		rows = append(rows, oplogtest.StudioRow{Machine: "alice-pc", Revision: 1, Seq: uint64(10 + i), Record: r})
	}
	o := &harnessOptions{}
	o.API.StudioScope = impl.Open(t, "game", rows)
	return mustServe(t, o)
}

// TestStudio_HTTP: scope=studio on search, crashes and records answers
// over every machine, naming each record's machine; GET /api/v1/studio
// names the project.
func TestStudio_HTTP(t *testing.T) {
	for _, impl := range studiotest.Impls {
		t.Run(impl.Name, func(t *testing.T) { testStudioHTTP(t, impl) })
	}
}

func testStudioHTTP(t *testing.T, impl studiotest.Impl) {
	h := studioHarness(t, impl)
	if a := mustCall[client.StudioAnswer](h, "GET", "/api/v1/studio", "", http.StatusOK); !a.Studio || a.Project != "game" {
		t.Errorf("studio: %+v", a)
	}
	cr := mustCall[client.StudioCrashesAnswer](h, "GET", "/api/v1/crashes?scope=studio", "", http.StatusOK)
	if cr.Scope != "studio" || len(cr.Groups) != 1 || cr.Groups[0].Count != 3 || len(cr.Groups[0].Machines) != 2 ||
		cr.Groups[0].Machines[0] != (oplog.MachineCount{Machine: "ci-7", Count: 2}) || cr.Groups[0].LastMachine != "ci-7" {
		t.Errorf("crashes: %+v", cr)
	}
	s := mustCall[client.StudioRecordsAnswer](h, "GET", "/api/v1/search?scope=studio&machine=ci-7&query="+url.QueryEscape(`"object reference"`), "", http.StatusOK)
	if len(s.Records) != 2 || s.Records[0].Machine != "ci-7" || s.Records[0].Record.ID != 12 || !strings.Contains(s.Records[0].Fragment, "**") {
		t.Errorf("search: %+v", s)
	}
	var ids []string
	path := "/api/v1/records?scope=studio&count=3&name=Loader"
	for range 5 {
		p := mustCall[client.StudioRecordsAnswer](h, "GET", path, "", http.StatusOK)
		for _, r := range p.Records {
			ids = append(ids, fmt.Sprintf("%s#%d", r.Machine, r.Record.ID))
		}
		if p.NextCursor == "" {
			break
		}
		path = "/api/v1/records?scope=studio&count=3&name=Loader&cursor=" + p.NextCursor
	}
	if got := strings.Join(ids, " "); got != "alice-pc#104 alice-pc#103 alice-pc#102 alice-pc#101 alice-pc#100" {
		t.Errorf("records pages: %s", got)
	}
}

// TestStudio_HTTPErrors: each refusal names what is wrong.
func TestStudio_HTTPErrors(t *testing.T) {
	for _, impl := range studiotest.Impls {
		t.Run(impl.Name, func(t *testing.T) { testStudioHTTPErrors(t, impl) })
	}
}

func testStudioHTTPErrors(t *testing.T, impl studiotest.Impl) {
	local := mustServe(t, nil)
	if a := mustCall[client.StudioAnswer](local, "GET", "/api/v1/studio", "", http.StatusOK); a.Studio || a.Project != "" {
		t.Errorf("studio of a server without one: %+v", a)
	}
	h := studioHarness(t, impl)
	for _, c := range []struct {
		h      *harness
		path   string
		status int
		want   string
	}{
		{local, "/api/v1/search?scope=studio", http.StatusServiceUnavailable, "no studio"},
		{local, "/api/v1/crashes?scope=studio&since=last_compile&level=loud", http.StatusServiceUnavailable, "no studio"},
		{local, "/api/v1/records?machine=ci-7", http.StatusBadRequest, "machine: only with scope=studio"},
		{h, "/api/v1/crashes?scope=all", http.StatusBadRequest, "scope"},
		{h, "/api/v1/crashes?scope=studio&run=current", http.StatusBadRequest, "runs are one machine's"},
		{h, "/api/v1/search?scope=studio&query=" + url.QueryEscape("/re.ex/"), http.StatusBadRequest, "regular expression"},
		{h, "/api/v1/records?scope=studio&offset=10", http.StatusBadRequest, "cursor"},
	} {
		status, body := c.h.Call("GET", c.path, "")
		if status != c.status || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %d %s, want %d saying %q", c.path, status, body, c.status, c.want)
		}
	}
}
