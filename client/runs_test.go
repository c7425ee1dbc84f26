package client_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/client"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestClient_Runs checks that Client answers runs, run selectors, markers
// and queries by run as the server's own *oplog.Log does (needs the store's
// runs).
func TestClient_Runs(t *testing.T) {
	h := mustServe(t, nil)
	r := client.NewClient(h.URL, testToken)
	ctx := context.Background()
	at := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	recs := []oplog.Record{
		{Kind: oplog.KindMarker, Level: oplog.LevelInfo, Source: "unity", Name: oplog.MarkerRun, Text: "started"},
		{Level: oplog.LevelInfo, Source: "unity", Text: "one"},
		{Kind: oplog.KindMarker, Level: oplog.LevelInfo, Source: "unity", Name: oplog.MarkerRun, Text: "started"},
		{Kind: oplog.KindMarker, Level: oplog.LevelInfo, Source: "unity", Name: oplog.MarkerCompileStart, Text: "compiling"},
		{Level: oplog.LevelInfo, Source: "unity", Text: "two"},
		{Level: oplog.LevelInfo, Source: "godot", Text: "three"},
	}
	for i := range recs {
		recs[i].Time = at.Add(time.Duration(i) * time.Second)
	}
	logtest.MustAppend(t, h.Log, recs...)

	got, err := r.Runs(ctx, "")
	want, _ := h.Log.Runs(ctx, "")
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 3 {
		t.Fatalf("remote runs %+v, %v; local %+v", got, err, want)
	}
	for _, sel := range []string{"", "current", "previous", "1", "2"} {
		for _, src := range []string{"", "unity"} {
			got, err := r.ResolveRun(ctx, src, sel)
			want, werr := h.Log.ResolveRun(ctx, src, sel)
			if fmt.Sprint(got) != fmt.Sprint(want) || oplog.ErrorCode(err) != oplog.ErrorCode(werr) {
				t.Errorf("ResolveRun(%q, %q): remote %v, %v; local %v, %v", src, sel, got, err, want, werr)
			}
		}
	}
	if _, err := r.ResolveRun(ctx, "godot", "9"); oplog.ErrorCode(err) != oplog.ENOTFOUND {
		t.Errorf("ResolveRun(godot, 9): %v, want not found", err)
	}
	if _, err := r.ResolveRun(ctx, "", "newest"); oplog.ErrorCode(err) != oplog.EINVALID {
		t.Errorf("ResolveRun(newest): %v, want invalid", err)
	}
	m, ok, err := r.LastMarker(ctx, "", oplog.MarkerCompileStart, oplog.MarkerCompileOK)
	if err != nil || !ok || m.ID != recs[3].ID {
		t.Errorf("LastMarker: %+v, %v, %v; want #%d", m, ok, err, recs[3].ID)
	}

	cur, _ := h.Log.ResolveRun(ctx, "", "current")
	f := oplog.Filter{Kind: oplog.KindLine, WithMarkers: true, Runs: cur}
	rt, err := r.Tail(ctx, oplog.TailQuery{Filter: f})
	lt, _ := h.Log.Tail(ctx, oplog.TailQuery{Filter: f})
	if err != nil || fmt.Sprint(rt.Lines) != fmt.Sprint(lt.Lines) || len(lt.Lines) != 4 {
		t.Errorf("tail of the current runs with markers: remote %+v, %v; local %+v", rt.Lines, err, lt.Lines)
	}
	f.WithMarkers = false
	rp, err := r.List(ctx, oplog.Query{Filter: f})
	lp, _ := h.Log.List(ctx, oplog.Query{Filter: f})
	if err != nil || fmt.Sprint(rp.Records) != fmt.Sprint(lp.Records) || len(lp.Records) != 2 {
		t.Errorf("lines of the current runs: remote %+v, %v; local %+v", rp.Records, err, lp.Records)
	}
	none, err := r.List(ctx, oplog.Query{Filter: oplog.Filter{Runs: map[string]uint64{}}})
	if err != nil || len(none.Records) != 0 {
		t.Errorf("an empty Runs matches none: %+v, %v", none.Records, err)
	}
}

// TestClient_LastMarkerNone: no marker is not an error.
func TestClient_LastMarkerNone(t *testing.T) {
	h := mustServe(t, nil)
	r := client.NewClient(h.URL, testToken)
	logtest.MustAppend(t, h.Log, oplog.Record{Level: oplog.LevelInfo, Source: "godot", Text: "hello"})
	if m, ok, err := r.LastMarker(context.Background(), "godot", oplog.MarkerCompileStart); err != nil || ok {
		t.Errorf("LastMarker with none: %+v, %v, %v", m, ok, err)
	}
}
