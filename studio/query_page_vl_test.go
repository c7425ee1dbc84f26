package studio_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestClient_List_Pages: records spread over the windows a page looks back
// through (seconds to a year ago, and one from the future), with ties of
// time across machines and an operation's two rows, come back once each
// and newest first whatever the page size.
func TestClient_List_Pages(t *testing.T) {
	url := studiotest.Start(t)
	now := time.Now().UTC()
	var rows []map[string]any
	type key struct {
		t  time.Time
		m  string
		id uint64
	}
	var keys []key
	ages := []time.Duration{-time.Hour, 30 * time.Second, 30 * time.Second, 30 * time.Second, 5 * time.Minute, 2 * time.Hour,
		2 * time.Hour, 3 * 24 * time.Hour, 400 * 24 * time.Hour}
	for i, age := range ages {
		for _, m := range []string{"m1", "m2"} {
			r := oplog.Record{ID: uint64(100 - i), Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "unity",
				Time: now.Add(-age).Truncate(time.Second), Text: fmt.Sprintf("line %d", i)}
			rows = append(rows, studiotest.Row("game", m, 1, uint64(i+1), &r, ""))
			keys = append(keys, key{r.Time, m, r.ID})
		}
	}
	// An operation whose two rows fall in the same second as three lines.
	op := oplog.Record{ID: 1, Kind: oplog.KindOp, Level: oplog.LevelInfo, Source: "agent", Tool: "build", Status: oplog.StatusPending,
		Time: now.Add(-30 * time.Second).Truncate(time.Second), Text: "build"}
	done := op
	done.Status = oplog.StatusSuccess
	rows = append(rows, studiotest.Row("game", "m1", 1, 50, &op, ""), studiotest.Row("game", "m1", 1, 51, &done, ""))
	keys = append(keys, key{op.Time, "m1", 1})
	slices.SortFunc(keys, func(a, b key) int { // newestFirst
		return cmp.Or(b.t.Compare(a.t), strings.Compare(b.m, a.m), cmp.Compare(b.id, a.id))
	})
	var want []string
	for _, k := range keys {
		want = append(want, fmt.Sprintf("%s#%d", k.m, k.id))
	}
	studiotest.Ingest(t, url, rows)
	c := mustStudio(t, url)

	for _, count := range []int{1, 2, 3, 7, 100} {
		var got []string
		q := oplog.StudioListQuery{Count: count}
		for pages := 0; ; pages++ {
			if pages > 50 {
				t.Fatalf("count %d: paging never ends", count)
			}
			p, err := c.List(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Records) > count || len(p.Cursors) != len(p.Records) {
				t.Fatalf("count %d: %d records, %d cursors", count, len(p.Records), len(p.Cursors))
			}
			for _, r := range p.Records {
				got = append(got, fmt.Sprintf("%s#%d", r.Machine, r.ID))
			}
			if p.NextCursor == "" {
				break
			}
			q.Cursor = p.NextCursor
		}
		if !slices.Equal(got, want) {
			t.Errorf("count %d:\n got %v\nwant %v", count, got, want)
		}
	}
	// A cursor of a record reads on from that record.
	p, err := c.List(context.Background(), oplog.StudioListQuery{Count: 100})
	if err != nil || len(p.Records) != len(want) {
		t.Fatalf("%d records, %v", len(p.Records), err)
	}
	for i := range p.Records {
		q, err := c.List(context.Background(), oplog.StudioListQuery{Count: 1, Cursor: p.Cursors[i]})
		if err != nil || len(q.Records) != 1 || fmt.Sprintf("%s#%d", q.Records[0].Machine, q.Records[0].ID) != want[i] {
			t.Errorf("cursor %s: %+v, %v; want %s", p.Cursors[i], q.Records, err, want[i])
		}
	}
	if _, err := c.List(context.Background(), oplog.StudioListQuery{Cursor: "12"}); oplog.ErrorCode(err) != oplog.EINVALID {
		t.Errorf("a local cursor: %v, want EINVALID", err)
	}
}
