package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/api/apitest"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// serveTwoRuns serves logtest's two runs with a crash index.
func serveTwoRuns(t *testing.T) (*apitest.Harness, logtest.TwoRuns) {
	t.Helper()
	h := apitest.MustServe(t, &apitest.Options{Setup: func(l *oplog.Log, _ *store.DB, _ *api.Options) { l.SetCrashes(crash.New(l, nil)) }})
	return h, logtest.AppendTwoRuns(t, h.Log)
}

func TestServer_Stats(t *testing.T) {
	h, want := serveTwoRuns(t)
	d := apitest.MustCall[oplog.Digest](h, http.MethodGet, "/api/v1/stats", "", http.StatusOK)
	if len(d.Runs) != 1 || d.Runs[0].Run != 2 || len(d.Templates) == 0 || d.Templates[0].Template != want.Noisy {
		t.Fatalf("stats = %+v, want run 2 with %q first", d, want.Noisy)
	}
	if len(d.NewTemplates) == 0 || d.NewTemplates[0].ExampleID != want.BID || len(d.Crashes) != 1 || !d.Crashes[0].New {
		t.Errorf("new = %+v, crashes = %+v; want B (#%d) and its new group", d.NewTemplates, d.Crashes, want.BID)
	}
	// The client asks the same of the route.
	c := client.NewClient(h.URL, apitest.Token)
	d1, err := c.Digest(context.Background(), oplog.DigestQuery{Filter: oplog.Filter{Runs: map[string]uint64{want.Source: 1}}})
	if err != nil || d1.Records != 12 || d1.Levels["fatal"] != 1 {
		t.Errorf("client digest of run 1: %v, %d records, levels %v; want 12, one fatal", err, d1.Records, d1.Levels)
	}
	status, body := h.Call(http.MethodGet, "/api/v1/stats?run=7", "")
	apitest.CheckError(t, status, body, http.StatusNotFound, oplog.ENOTFOUND, "run")
	status, body = h.Call(http.MethodGet, "/api/v1/stats?scope=studio", "")
	apitest.CheckError(t, status, body, http.StatusBadRequest, oplog.EINVALID, "scope")
}

func TestServer_Compare(t *testing.T) {
	h, want := serveTwoRuns(t)
	cmp := apitest.MustCall[oplog.Comparison](h, http.MethodGet, "/api/v1/compare?source=game", "", http.StatusOK)
	if len(cmp.Sources) != 1 {
		t.Fatalf("compare = %+v", cmp)
	}
	s := cmp.Sources[0]
	named := func(list []oplog.Delta, text string, id uint64) bool {
		return slices.ContainsFunc(list, func(d oplog.Delta) bool { return d.Text == text && d.ExampleID == id })
	}
	if !named(s.Gone, want.A, want.AID) || !named(s.New, want.B, want.BID) {
		t.Errorf("gone %+v, new %+v; want %q gone, %q new", s.Gone, s.New, want.A, want.B)
	}
	c := client.NewClient(h.URL, apitest.Token)
	got, err := c.CompareRuns(context.Background(), oplog.CompareQuery{Current: map[string]uint64{"game": 1}, Previous: map[string]uint64{"game": 2}})
	if err != nil || len(got.Sources) != 1 || !named(got.Sources[0].New, want.A, want.AID) {
		t.Errorf("client: run 1 against run 2: %v, %+v; want A new", err, got)
	}
	status, body := h.Call(http.MethodGet, "/api/v1/compare?against=bogus", "")
	apitest.CheckError(t, status, body, http.StatusBadRequest, oplog.EINVALID, "against")
}

// TestAgentStore_LogStats: on the realistic store, log_stats answers
// within 4 KB and names first the template the records repeat most, as
// counted here record by record.
func TestAgentStore_LogStats(t *testing.T) {
	s := mustServeAgentStore(t)
	counts := map[string]int{}
	for since := uint64(0); ; {
		tail, err := s.Log.Tail(t.Context(), oplog.TailQuery{SinceID: since, HasSince: true, Limit: oplog.MaxTailLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tail.Lines {
			if r.Kind != oplog.KindMarker {
				counts[r.Source+" "+oplog.Template(r.Text)]++
			}
		}
		if !tail.More {
			break
		}
		since = tail.LastID
	}
	noisiest, most := "", 0
	for k, n := range counts {
		if n > most {
			noisiest, most = k, n
		}
	}
	res, n := s.callSized(t, "log_stats", nil)
	if res.IsError || n > 4<<10 {
		t.Fatalf("log_stats: %d bytes (want ≤ 4096), error %v: %s", n, res.IsError, resultText(res))
	}
	t.Logf("log_stats on the agent store: %d bytes", n)
	var out struct {
		Top []struct {
			Text  string `json:"text"`
			Count int    `json:"count"`
		} `json:"top"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || len(out.Top) == 0 {
		t.Fatalf("log_stats: %v %s", err, b)
	}
	_, tmpl, _ := strings.Cut(noisiest, " ")
	if got := out.Top[0]; got.Count != most || !strings.HasPrefix(tmpl, strings.TrimSuffix(got.Text, "…")) {
		t.Errorf("log_stats names %q ×%d first, want %q ×%d", got.Text, got.Count, tmpl, most)
	}
}
