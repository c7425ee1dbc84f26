package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplogd/mcplogd/api"
	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/store"
)

// serveDamaged serves a real store of 20,000 lines with one bit flipped
// inside its second block, and returns it and that block.
func serveDamaged(t *testing.T) (*harness, logtest.Block) {
	t.Helper()
	path, blocks := logtest.MustSealedStore(t, 20_000)
	// A bit of the block's IDs and lengths (its first column), without
	// which none of its records can be read: the whole block is damaged.
	b := blocks[1]
	if err := logtest.FlipBit(path, b.At+40, 5); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := oplog.New(db, nil)
	t.Cleanup(func() { _ = l.Close() })
	s, err := api.New(l, &api.Options{Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return &harness{T: t, Log: l, DB: db, Srv: s, URL: ts.URL}, b
}

// TestServer_DamagedBlock: every reader of a store with a damaged block
// reaches the newest record and says which run it skipped; a record of
// the block is an error naming salvage, not a bare 500.
func TestServer_DamagedBlock(t *testing.T) {
	h, b := serveDamaged(t)
	last := h.DB.Stats().LastID
	marker := fmt.Sprintf("#%d..#%d unreadable: log.db is damaged there; run mcplogd salvage --data ", b.First, b.Last)

	type page struct {
		Lines   []struct{ ID uint64 } `json:"lines"`
		LastID  uint64                `json:"lastId"`
		More    bool                  `json:"more"`
		Damaged []string              `json:"damaged"`
	}
	var read int
	var damaged []string
	for since, more := uint64(0), true; more; {
		p := mustCall[page](h, http.MethodGet, fmt.Sprintf("/api/v1/tail?sinceId=%d&limit=1000", since), "", http.StatusOK)
		read, damaged, since, more = read+len(p.Lines), append(damaged, p.Damaged...), p.LastID, p.More
		if !more && since != last {
			t.Fatalf("GET /api/v1/tail from 0 stopped at %d, before the newest %d", since, last)
		}
	}
	if len(damaged) != 1 || !strings.HasPrefix(damaged[0], marker) || read != int(h.DB.Stats().Records)-b.Records {
		t.Fatalf("tail read %d records naming %q; want all but the block's %d, naming %q once", read, damaged, b.Records, marker)
	}
	info := mustCall[struct{ Damaged []string }](h, http.MethodGet, "/api/v1/info", "", http.StatusOK)
	if len(info.Damaged) != 1 || !strings.HasPrefix(info.Damaged[0], marker) {
		t.Fatalf("info: damaged %q", info.Damaged)
	}
	status, body := h.Call(http.MethodGet, fmt.Sprintf("/api/v1/records/%d", b.Last), "")
	checkError(t, status, body, http.StatusInternalServerError, oplog.EDAMAGED, fmt.Sprintf("record %d is unreadable: ", b.Last), "mcplogd salvage")

	m := mustConnect(t, h, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"console_tail", map[string]any{"sinceId": fmt.Sprint(b.Last - 10), "limit": 50}},
		{"get_logs", map[string]any{"count": 1000, "offset": int(last - b.Last - 500)}},
		{"store_info", map[string]any{}},
	} {
		res, _ := m.callRaw(t, c.tool, c.args)
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError || !strings.Contains(text, "\n"+marker) {
			t.Fatalf("%s(%v) does not name the damaged block on a line of its own:\n%.600s", c.tool, c.args, text)
		}
	}
	m.callError(t, "get_log_details", map[string]any{"log_id": fmt.Sprint(b.Last)}, "unreadable", "mcplogd salvage")

	// The Go client (mcplogd stdio beside a server) reads the runs back.
	c := client.NewClient(h.URL, testToken)
	tl, err := c.Tail(t.Context(), oplog.TailQuery{SinceID: b.First - 1, HasSince: true, Limit: 100})
	if err != nil || len(tl.Damaged) != 1 || tl.Damaged[0].From != b.First || tl.Damaged[0].To != b.Last {
		t.Errorf("client Tail from before the block: damaged %+v, %v; want #%d..#%d", tl.Damaged, err, b.First, b.Last)
	}
	pg, err := c.List(t.Context(), oplog.Query{Count: 1000, Offset: int(last - b.Last - 500)})
	if err != nil || len(pg.Damaged) != 1 || pg.Damaged[0].From != b.First {
		t.Errorf("client List across the block: damaged %+v, %v", pg.Damaged, err)
	}
}
