package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/search"
)

// hintAnswer is what the hint tests read of a search answer, over HTTP
// and MCP alike.
type hintAnswer struct {
	Hits []struct {
		ID     uint64       `json:"id"`
		Record oplog.Record `json:"record"`
	} `json:"hits"`
	Records []oplog.Record `json:"records"`
	Total   int64          `json:"total"`
	Hint    *struct {
		Text    string            `json:"text"`
		Args    map[string]string `json:"args"`
		Records int64             `json:"records"`
	} `json:"hint"`
}

// ids are the answer's IDs (MCP puts them at the hit, HTTP in its record).
func (a *hintAnswer) ids() []uint64 {
	var out []uint64
	for _, h := range a.Hits {
		out = append(out, max(h.ID, h.Record.ID))
	}
	return out
}

// mustServeWalkable serves 200 lines, every 20th an info line of Nav
// saying "walkable" (their IDs newest first are returned), the others
// "frame N drawn", from source unity; in a growing term set when held,
// else in stored ones (chunks of 100).
func mustServeWalkable(t *testing.T, held bool) (*harness, []uint64) {
	t.Helper()
	l, db := logtest.MustOpenLog(t, nil)
	opts := &search.Options{Changed: l.Changed, Interval: 20 * time.Millisecond, TailChunk: 100}
	if held {
		opts.TailChunk = 1000
	}
	idx, err := search.Open(filepath.Join(t.TempDir(), "index"), db, opts)
	if err != nil {
		t.Fatal(err)
	}
	l.SetIndex(idx)
	recs := make([]oplog.Record, 200)
	for i := range recs {
		recs[i] = oplog.Record{Level: oplog.LevelInfo, Name: "Render", Source: "unity", Text: fmt.Sprintf("frame %d drawn", i)}
		if i%20 == 0 {
			recs[i] = oplog.Record{Level: oplog.LevelInfo, Name: "Nav", Source: "unity", Text: fmt.Sprintf("tile %d is walkable", i)}
		}
	}
	recs = logtest.MustAppend(t, l, recs...)
	last := db.Stats().LastID
	logtest.Eventually(t, 30*time.Second, "the index holds every record", func() bool {
		s := idx.Status()
		return s.IndexedThrough == last && (held || s.SegmentsThrough == last)
	})
	if held && idx.Status().Segments != 0 {
		t.Fatal("the records reached a complete set; want them in the growing one")
	}
	var walkable []uint64
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Name == "Nav" {
			walkable = append(walkable, recs[i].ID)
		}
	}
	s, err := api.New(l, &api.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return &harness{T: t, Log: l, Srv: s, URL: ts.URL}, walkable
}

// httpSearch is GET /api/v1/search with args.
func httpSearch(h *harness, args map[string]string) hintAnswer {
	v := url.Values{"limit": {"500"}}
	for k, a := range args {
		v.Set(k, a)
	}
	return mustCall[hintAnswer](h, http.MethodGet, "/api/v1/search?"+v.Encode(), "", http.StatusOK)
}

// TestHTTP_Search_Hint: an empty answer of GET /api/v1/search carries a
// hint whose args, sent as is, find records: the misspelt word corrected
// (in a stored set and in a growing one), the filter dropped, the span of
// time; an answer with hits has none.
func TestHTTP_Search_Hint(t *testing.T) {
	for _, held := range []bool{false, true} {
		t.Run(fmt.Sprintf("Held=%v", held), func(t *testing.T) {
			h, walkable := mustServeWalkable(t, held)
			checkHints(t, walkable, func(args map[string]string) hintAnswer { return httpSearch(h, args) }, nil)
		})
	}
}

// TestMCP_SearchLogs_Hint: the same over MCP's search_logs, whose text
// block ends with the hint's line.
func TestMCP_SearchLogs_Hint(t *testing.T) {
	for _, held := range []bool{false, true} {
		t.Run(fmt.Sprintf("Held=%v", held), func(t *testing.T) {
			h, walkable := mustServeWalkable(t, held)
			m := mustConnect(t, h, nil)
			toAny := func(args map[string]string) map[string]any {
				a := map[string]any{"limit": 500}
				for k, v := range args {
					a[k] = v
				}
				return a
			}
			checkHints(t, walkable, func(args map[string]string) hintAnswer {
				return call[hintAnswer](t, m, "search_logs", toAny(args))
			}, func(args map[string]string) string { return m.callText(t, "search_logs", toAny(args)) })
		})
	}
}

// checkHints runs the hint cases through search (and text, the text
// block, when not nil).
func checkHints(t *testing.T, walkable []uint64, search func(map[string]string) hintAnswer, text func(map[string]string) string) {
	t.Helper()
	cases := []struct {
		name     string
		args     map[string]string
		wantText string
		want     []uint64 // what the hint's args find; nil: 200 records
	}{
		{"Word", map[string]string{"query": "walkabel"}, `0 hits; did you mean query="walkable" (10 records)?`, walkable},
		{"Filter", map[string]string{"query": "walkable", "level": "error"}, `0 hits; without level="error": query="walkable" (10 records)`, walkable},
		{"Range", map[string]string{"query": "qzxjvwpk"}, `0 hits; the log's records span since="`, nil},
	}
	for _, c := range cases {
		a := search(c.args)
		if len(a.Hits) != 0 || a.Hint == nil || !strings.HasPrefix(a.Hint.Text, c.wantText) {
			t.Fatalf("%s: %d hits, hint %+v; want %q", c.name, len(a.Hits), a.Hint, c.wantText)
		}
		if text != nil {
			if tb := text(c.args); !strings.HasSuffix(tb, "\n"+a.Hint.Text) {
				t.Fatalf("%s: text block %q does not end with the hint", c.name, tb)
			}
		}
		found := search(a.Hint.Args)
		got := found.ids()
		// (every record: more than search_logs' byte budget shows, but its total)
		if c.want == nil && (len(got) == 0 || found.Total != 200 || a.Hint.Records != 200) || c.want != nil && !slices.Equal(got, c.want) {
			t.Fatalf("%s: the hint's args %v found %v; want %v", c.name, a.Hint.Args, got, c.want)
		}
	}
	if a := search(map[string]string{"query": "walkable"}); len(a.Hits) != 10 || a.Hint != nil {
		t.Fatalf("walkable: %d hits, hint %+v; want 10 and no hint", len(a.Hits), a.Hint)
	}
}

// TestHTTP_Records_Hint: an empty first page of GET /api/v1/records with
// filters carries the hint of dropping one, whose args, sent as is, find
// the records; a page with records has none.
func TestHTTP_Records_Hint(t *testing.T) {
	h, walkable := mustServeWalkable(t, false)
	list := func(args map[string]string) hintAnswer {
		v := url.Values{"count": {"500"}}
		for k, a := range args {
			v.Set(k, a)
		}
		return mustCall[hintAnswer](h, http.MethodGet, "/api/v1/records?"+v.Encode(), "", http.StatusOK)
	}
	a := list(map[string]string{"level": "error", "name": "Nav"})
	want := `0 records; without level="error": name="Nav" (10 records)`
	if len(a.Hits) != 0 || a.Hint == nil || a.Hint.Text != want {
		t.Fatalf("hint %+v; want %q", a.Hint, want)
	}
	var got []uint64
	for _, r := range list(a.Hint.Args).Records {
		got = append(got, r.ID)
	}
	if !slices.Equal(got, walkable) {
		t.Fatalf("the hint's args %v found %v; want %v", a.Hint.Args, got, walkable)
	}
	if a := list(map[string]string{"name": "Nav"}); len(a.Records) != 10 || a.Hint != nil {
		t.Fatalf("name Nav: %d records, hint %+v; want 10 and no hint", len(a.Records), a.Hint)
	}
}

// TestMCP_GetLogs_Hint: the same over get_logs.
func TestMCP_GetLogs_Hint(t *testing.T) {
	h, walkable := mustServeWalkable(t, false)
	m := mustConnect(t, h, nil)
	type logsAnswer struct {
		Logs []struct {
			ID uint64 `json:"id"`
		} `json:"logs"`
		Hint *struct {
			Text string         `json:"text"`
			Args map[string]any `json:"args"`
		} `json:"hint"`
	}
	args := map[string]any{"level": "error", "name": "Nav", "count": 500}
	a := call[logsAnswer](t, m, "get_logs", args)
	want := `0 records; without level="error": name="Nav" (10 records)`
	if len(a.Logs) != 0 || a.Hint == nil || a.Hint.Text != want {
		t.Fatalf("hint %+v; want %q", a.Hint, want)
	}
	if tb := m.callText(t, "get_logs", args); !strings.HasSuffix(tb, "\n"+want) {
		t.Fatalf("text block %q does not end with the hint", tb)
	}
	a.Hint.Args["count"], a.Hint.Args["collapse"] = 500, false // one entry a record
	var got []uint64
	for _, e := range call[logsAnswer](t, m, "get_logs", a.Hint.Args).Logs {
		got = append(got, e.ID)
	}
	if !slices.Equal(got, walkable) {
		t.Fatalf("the hint's args %v found %v; want %v", a.Hint.Args, got, walkable)
	}
}
