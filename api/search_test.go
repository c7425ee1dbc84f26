package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/mcptools/remote"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// mustServeSearch serves a store with a real bleve index and some lines:
// every 4th an error of Physics saying "null reference".
// mustServeSearch serves 40 records (every fourth a Physics error) once
// the index holds them all, and a wait for the index to catch up again.
func mustServeSearch(t *testing.T) (*harness, func()) {
	t.Helper()
	l, db := logtest.MustOpenLog(t, nil)
	idx, err := search.Open(filepath.Join(t.TempDir(), "index"), db, &search.Options{Changed: l.Changed, Interval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	l.SetIndex(idx)
	recs := make([]oplog.Record, 40)
	for i := range recs {
		recs[i] = oplog.Record{Level: oplog.LevelInfo, Name: "Render", Source: "unity", Text: fmt.Sprintf("frame %d drawn", i)}
		if i%4 == 0 {
			recs[i] = oplog.Record{Level: oplog.LevelError, Name: "Physics", Source: "unity", Text: fmt.Sprintf("NullReferenceException: null reference in body %d", i)}
		}
	}
	logtest.MustAppend(t, l, recs...)
	caughtUp := func() {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := idx.WaitIndexed(ctx, db.Stats().LastID, nil); err != nil {
			t.Fatalf("index never caught up: %v", err)
		}
	}
	caughtUp()
	s, err := api.New(l, &api.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return &harness{T: t, Log: l, Srv: s, URL: ts.URL}, caughtUp
}

type searchResult struct {
	Hits []struct {
		ID       uint64 `json:"id"`
		Level    string `json:"level"`
		Name     string `json:"name"`
		Text     string `json:"text"`
		Fragment string `json:"fragment"`
	} `json:"hits"`
	Total          int64  `json:"total"`
	TotalExact     bool   `json:"totalExact"`
	NextCursor     string `json:"nextCursor"`
	IndexedThrough uint64 `json:"indexedThrough"`
}

func TestMCP_SearchLogs(t *testing.T) {
	h, _ := mustServeSearch(t)
	m := mustConnect(t, h, nil)
	t.Run("OK", func(t *testing.T) {
		var ids []uint64
		args := map[string]any{"query": `level:error AND name:Physics "null reference"`, "limit": 4}
		for {
			r := call[searchResult](t, m, "search_logs", args)
			if _, ok := args["cursor"]; !ok && (r.Total != 10 || !r.TotalExact) {
				t.Errorf("total %d (exact %v), want 10", r.Total, r.TotalExact)
			}
			for _, h := range r.Hits {
				if h.Level != "error" || !strings.Contains(h.Fragment, "**null**") {
					t.Errorf("hit %+v", h)
				}
				ids = append(ids, h.ID)
			}
			if r.NextCursor == "" {
				break
			}
			args["cursor"] = r.NextCursor
		}
		if len(ids) != 10 || ids[0] != 37 || ids[9] != 1 {
			t.Fatalf("ids %v, want 37, 33, ... 1", ids)
		}
	})
	t.Run("Filters", func(t *testing.T) {
		r := call[searchResult](t, m, "search_logs", map[string]any{"query": "drawn", "level": "info", "limit": 500})
		if len(r.Hits) != 30 || r.NextCursor != "" || !r.TotalExact {
			t.Fatalf("%d hits, cursor %q, exact %v", len(r.Hits), r.NextCursor, r.TotalExact)
		}
	})
	t.Run("SyntaxError", func(t *testing.T) {
		m.callError(t, "search_logs", map[string]any{"query": `name:Physics AND (level:error`}, "query: syntax error at character 18", "never closed")
	})
	t.Run("BadCursor", func(t *testing.T) {
		m.callError(t, "search_logs", map[string]any{"query": "x", "cursor": "nope"}, "cursor:")
	})
	t.Run("StoreInfo", func(t *testing.T) {
		r := call[map[string]any](t, m, "store_info", map[string]any{})
		if _, ok := r["indexedThrough"]; !ok || r["indexing"] == nil {
			t.Fatalf("store_info without index fields: %v", r)
		}
	})
}

func TestHTTP_Search(t *testing.T) {
	h, caughtUp := mustServeSearch(t)
	t.Run("OK", func(t *testing.T) {
		v := url.Values{"query": {"null"}, "name": {"Physics"}, "limit": {"3"}}
		a := mustCall[struct {
			Hits []struct {
				Record   oplog.Record `json:"record"`
				Fragment string       `json:"fragment"`
			} `json:"hits"`
			NextCursor string `json:"nextCursor"`
		}](h, http.MethodGet, "/api/v1/search?"+v.Encode(), "", http.StatusOK)
		if len(a.Hits) != 3 || a.Hits[0].Record.ID != 37 || a.NextCursor == "" || a.Hits[0].Fragment == "" {
			t.Fatalf("%+v", a)
		}
	})
	t.Run("SyntaxError", func(t *testing.T) {
		status, b := h.Call(http.MethodGet, "/api/v1/search?query="+url.QueryEscape(`a OR`), "")
		checkError(t, status, b, http.StatusBadRequest, "invalid", "OR needs a term after it")
	})
	t.Run("Template", func(t *testing.T) {
		v := url.Values{"query": {"template:" + oplog.TextTemplateID("frame 1 drawn")}, "limit": {"100"}}
		a := mustCall[struct {
			Hits []struct {
				Record oplog.Record `json:"record"`
			} `json:"hits"`
		}](h, http.MethodGet, "/api/v1/search?"+v.Encode(), "", http.StatusOK)
		if len(a.Hits) != 30 || a.Hits[0].Record.Name != "Render" || a.Hits[29].Record.Name != "Render" {
			t.Fatalf("template of \"frame <N> drawn\": %d hits, want the 30 Render lines: %+v", len(a.Hits), a.Hits)
		}
		status, b := h.Call(http.MethodGet, "/api/v1/search?query="+url.QueryEscape("template:frame"), "")
		checkError(t, status, b, http.StatusBadRequest, "invalid", "template takes a template ID")
	})
	t.Run("ReplayOf", func(t *testing.T) {
		recs := logtest.MustAppend(t, h.Log, oplog.Record{Kind: oplog.KindOp, Tool: "spawn", Status: oplog.StatusSuccess},
			oplog.Record{Kind: oplog.KindOp, Tool: "spawn", Status: oplog.StatusSuccess})
		replay := logtest.MustAppend(t, h.Log, oplog.Record{Kind: oplog.KindOp, Tool: "spawn", Status: oplog.StatusSuccess, ReplayOf: recs[0].ID})[0]
		a := mustCall[struct {
			Hits []struct {
				Record oplog.Record `json:"record"`
			} `json:"hits"`
		}](h, http.MethodGet, fmt.Sprintf("/api/v1/search?replayOf=%d", recs[0].ID), "", http.StatusOK)
		if len(a.Hits) != 1 || a.Hits[0].Record.ID != replay.ID {
			t.Fatalf("replays of %d: %+v, want only %d", recs[0].ID, a.Hits, replay.ID)
		}
		status, b := h.Call(http.MethodGet, "/api/v1/search?replayOf=soon", "")
		checkError(t, status, b, http.StatusBadRequest, "invalid", "replayOf")
		// q= would otherwise be ignored, and every record come back
		status, b = h.Call(http.MethodGet, "/api/v1/search?q=null", "")
		checkError(t, status, b, http.StatusBadRequest, "invalid", "the query string is query=")
	})
	t.Run("Remote", func(t *testing.T) {
		r := remote.NewBackend(client.NewClient(h.URL, testToken))
		defer r.Close()
		caughtUp() // during a lag the total is an estimate, which may differ between two searches
		q := oplog.SearchQuery{Query: "null", Filter: oplog.Filter{MinLevel: oplog.LevelError}, Limit: 6}
		got, err := r.Search(context.Background(), q)
		want, werr := h.Log.Search(context.Background(), q)
		got.IndexedThrough = want.IndexedThrough // the indexer may have moved between the two
		if err != nil || werr != nil || len(got.Hits) != 6 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("remote %+v, %v\nlocal %+v, %v", got, err, want, werr)
		}
	})
}
