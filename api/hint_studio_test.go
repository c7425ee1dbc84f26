package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/oplog/oplogtest"
	"github.com/mcplogd/mcplogd/search"
	"github.com/mcplogd/mcplogd/store"
)

// TestStudio_Hint: an empty first page in studio scope carries a hint as
// a local one does, its args (scope "studio" among them) finding records
// when sent as is: over HTTP and MCP, a misspelt word corrected by this
// machine's words and checked in the studio, a filter dropped; get_logs
// and GET /api/v1/records the same for their filters.
func TestStudio_Hint(t *testing.T) {
	for _, impl := range studiotest.Impls {
		t.Run(impl.Name, func(t *testing.T) { testStudioHint(t, impl) })
	}
}

func testStudioHint(t *testing.T, impl studiotest.Impl) {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	recs := make([]oplog.Record, 200)
	var rows []oplogtest.StudioRow
	for i := range recs {
		recs[i] = oplog.Record{Kind: oplog.KindLine, Level: oplog.LevelInfo, Name: "Render", Source: "unity", Time: t0.Add(time.Duration(i) * time.Second),
			Text: fmt.Sprintf("frame %d drawn", i)}
		if i%20 == 0 {
			recs[i].Name, recs[i].Text = "Nav", fmt.Sprintf("tile %d is walkable", i)
		}
		r := recs[i]
		r.ID = uint64(i + 1)
		rows = append(rows, oplogtest.StudioRow{Machine: []string{"alice-pc", "ci-7"}[i%2], Revision: 1, Seq: uint64(i + 1), Record: r})
	}
	o := &harnessOptions{Setup: func(l *oplog.Log, db *store.DB, _ *api.Options) {
		idx, err := search.Open(filepath.Join(t.TempDir(), "index"), db, &search.Options{Changed: l.Changed, Interval: 20 * time.Millisecond, TailChunk: 100})
		if err != nil {
			t.Fatal(err)
		}
		l.SetIndex(idx)
		logtest.MustAppend(t, l, recs...)
		last := db.Stats().LastID
		logtest.Eventually(t, 30*time.Second, "the index holds every record", func() bool { return idx.Status().IndexedThrough == last })
	}}
	o.API.StudioScope = impl.Open(t, "game", rows)
	h := mustServe(t, o)

	get := func(path string, args map[string]string) client.StudioRecordsAnswer {
		t.Helper()
		v := url.Values{}
		for k, a := range args {
			v.Set(k, a)
		}
		return mustCall[client.StudioRecordsAnswer](h, http.MethodGet, path+"?"+v.Encode(), "", http.StatusOK)
	}
	for _, c := range []struct {
		path, want string
		args       map[string]string
	}{
		{"/api/v1/search", `0 hits; did you mean query="walkable" scope="studio" (10 records)?`, map[string]string{"query": "walkabel"}},
		{"/api/v1/search", `0 hits; without level="error": query="walkable" scope="studio" (10 records)`, map[string]string{"query": "walkable", "level": "error"}},
		{"/api/v1/search", `0 hits; without name="Nav": query="frame" scope="studio" machine="ci-7" (100 records)`, map[string]string{"query": "frame", "name": "Nav", "machine": "ci-7"}},
		{"/api/v1/search", `0 hits; without name="Nav": query="drawn" scope="studio" (about 100 records)`, map[string]string{"query": "drawn", "name": "Nav"}},
		{"/api/v1/records", `0 records; without level="error": name="Nav" scope="studio" (10 records)`, map[string]string{"name": "Nav", "level": "error"}},
	} {
		c.args["scope"] = "studio"
		a := get(c.path, c.args)
		if len(a.Records) != 0 || a.Hint == nil || a.Hint.Text != c.want || a.Hint.Args["scope"] != "studio" {
			t.Fatalf("%s %v: %d records, hint %+v; want %q", c.path, c.args, len(a.Records), a.Hint, c.want)
		}
		found := get(c.path, a.Hint.Args)
		if len(found.Records) == 0 || found.Hint != nil || int64(len(found.Records)) != min(a.Hint.Records, int64(len(found.Records))) {
			t.Fatalf("%s: the hint's args %v found %d records, hint %+v", c.path, a.Hint.Args, len(found.Records), found.Hint)
		}
		for _, r := range found.Records {
			if m := a.Hint.Args["machine"]; m != "" && r.Machine != m {
				t.Fatalf("the hint's args %v found a record of %s", a.Hint.Args, r.Machine)
			}
		}
	}

	m := mustConnect(t, h, nil)
	for _, c := range []struct {
		tool, want string
		args       map[string]any
	}{
		{"search_logs", `0 hits; did you mean query="walkable" scope="studio" (10 records)?`, map[string]any{"query": "walkabel"}},
		{"get_logs", `0 records; without level="error": name="Nav" scope="studio" (10 records)`, map[string]any{"name": "Nav", "level": "error"}},
	} {
		c.args["scope"] = "studio"
		a := call[hintAnswer](t, m, c.tool, c.args)
		if a.Hint == nil || a.Hint.Text != c.want {
			t.Fatalf("%s %v: hint %+v; want %q", c.tool, c.args, a.Hint, c.want)
		}
		if text := m.callText(t, c.tool, c.args); !strings.HasSuffix(text, "\n"+c.want) {
			t.Fatalf("%s: the text block does not end with the hint:\n%s", c.tool, text)
		}
	}
}
