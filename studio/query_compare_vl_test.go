package studio_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestClient_Compare: two machines' rows in a cluster, the last hour
// against the hour before: a warning only the earlier hour had is gone
// (its example on its machine), an error only the last hour had is new,
// one in both changed; info lines are left out.
func TestClient_Compare(t *testing.T) {
	url := studiotest.StartCluster(t)
	var rows []map[string]any
	seq := map[string]uint64{}
	add := func(machine string, id uint64, at time.Duration, level oplog.Level, text string) {
		seq[machine]++
		r := oplog.Record{ID: id, Kind: oplog.KindLine, Level: level, Source: "unity", Name: "Game", Time: base.Add(at), Text: text}
		rows = append(rows, studiotest.Row("game", machine, 1, seq[machine], &r, ""))
	}
	for i := range 4 {
		add("alice-pc", uint64(10+i), time.Duration(i)*time.Minute, oplog.LevelWarn, fmt.Sprintf("Shader %d failed to compile", i))
		add("ci-7", uint64(20+i), time.Duration(i)*time.Minute, oplog.LevelInfo, fmt.Sprintf("Loaded scene in %d ms", i))
	}
	add("alice-pc", 30, 10*time.Minute, oplog.LevelError, "Texture missing for Tree_1")
	for i := range 3 {
		add("ci-7", uint64(40+i), time.Hour+time.Duration(i)*time.Minute, oplog.LevelError, fmt.Sprintf("Connection lost to server %d", i))
		add("alice-pc", uint64(50+i), time.Hour+time.Duration(i)*time.Minute, oplog.LevelError, fmt.Sprintf("Texture missing for Tree_%d", i))
		add("alice-pc", uint64(60+i), time.Hour+time.Duration(i)*time.Minute, oplog.LevelInfo, "Loaded scene in 5 ms")
	}
	studiotest.Ingest(t, url, rows)
	c := mustStudio(t, url)
	got, err := c.Compare(context.Background(), oplog.StudioCompareQuery{Since: base.Add(time.Hour), Until: base.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Against.Equal(base) || got.Before != 9 || got.After != 9 {
		t.Errorf("windows: against %v, %d rows against %d; want %v, 9 and 9", got.Against, got.After, got.Before, base)
	}
	want := func(what string, ds []oplog.Delta, text string, before, after int, machine string, id uint64) {
		t.Helper()
		if len(ds) != 1 || ds[0].Text != text || ds[0].Before != before || ds[0].After != after || ds[0].Machine != machine || ds[0].ExampleID != id {
			t.Errorf("%s = %+v; want %q %d→%d, #%d on %s", what, ds, text, before, after, id, machine)
		}
	}
	want("new", got.New, "Connection lost to server <N>", 0, 3, "ci-7", 42)
	want("gone", got.Gone, "Shader <N> failed to compile", 4, 0, "alice-pc", 13)
	want("changed", got.Changed, "Texture missing for Tree_<N>", 1, 3, "alice-pc", 52)
	if got.Verdict == "" {
		t.Error("no verdict")
	}
	if _, err := c.Compare(context.Background(), oplog.StudioCompareQuery{Since: base, Until: base}); oplog.ErrorCode(err) != oplog.EINVALID {
		t.Errorf("empty window: %v, want EINVALID", err)
	}
}
