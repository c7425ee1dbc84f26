package studio_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/querytest"
	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/oplog"
	"github.com/mcplogd/mcplogd/studio"
)

// TestClient_Search_Semantics: every tree of the query language
// (querytest.Cases, one for each of ql.Samples) finds in VictoriaLogs,
// through its LogsQL (logsql.go), exactly the records written out for it,
// the records forwarded as rows of the studio schema; or, where LogsQL
// cannot say it, is refused naming what. The local index answers the same
// cases (search's TestIndex_Search_Semantics), so the two agree on every
// node, not only on the queries TestClient_Search_SameAsLocal asks.
func TestClient_Search_Semantics(t *testing.T) {
	url := studiotest.Start(t) // skips without victoria-logs
	l, _ := logtest.MustOpenLog(t, nil)
	recs := logtest.MustAppend(t, l, querytest.Records()...)
	rev := l.Stats().Revision
	rows := make([]map[string]any, len(recs))
	for i := range recs {
		if recs[i].ID != uint64(i+1) {
			t.Fatalf("record %d got ID %d; the cases name records by their place", i+1, recs[i].ID)
		}
		rows[i] = studiotest.Row("game", "m1", rev, uint64(i+1), &recs[i], "")
	}
	studiotest.Ingest(t, url, rows)
	c, err := studio.NewClient(studio.ClientOptions{URL: url, Project: "game"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range querytest.Cases(t) {
		got, err := searchStudio(c, tc.Query)
		lq, _ := studio.LogsQL(tc.Query.Query)
		switch {
		case tc.NoLogsQL != "" && (oplog.ErrorCode(err) != oplog.EINVALID || !strings.Contains(err.Error(), tc.NoLogsQL)):
			t.Errorf("%s as %q: %v (%v), want EINVALID saying %q", tc.Sample, tc.Query.Query, got, err, tc.NoLogsQL)
		case tc.NoLogsQL == "" && (err != nil || !slices.Equal(got, tc.Want)):
			t.Errorf("%s as %q: %v (%v), want %v\n  LogsQL: %s", tc.Sample, tc.Query.Query, got, err, tc.Want, lq)
		}
	}
}

// searchStudio pages through q's every hit and returns their IDs, oldest
// first.
func searchStudio(c *studio.Client, q oplog.SearchQuery) ([]uint64, error) {
	var ids []uint64
	sq := oplog.StudioSearchQuery{SearchQuery: q}
	sq.Limit = 10
	for {
		p, err := c.Search(context.Background(), sq)
		if err != nil {
			return nil, err
		}
		for _, h := range p.Hits {
			ids = append(ids, h.ID)
		}
		if p.NextCursor == "" {
			slices.Reverse(ids) // newest first: reversed, the order of Want
			return ids, nil
		}
		sq.Cursor = p.NextCursor
	}
}
