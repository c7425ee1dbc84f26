package studio_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/studiotest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestClient_Digest: a digest across two machines counts levels and names
// exactly, names the noisiest template, and a small sample says it was
// capped.
func TestClient_Digest(t *testing.T) {
	url := studiotest.Start(t)
	var rows []map[string]any
	for i := range 12 {
		machine := []string{"alice-pc", "ci-7"}[i%2]
		r := oplog.Record{ID: uint64(100 + i), Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "unity", Name: "Loader",
			Time: base.Add(time.Duration(i) * time.Second), Text: fmt.Sprintf("Loaded scene Main in %d ms", 90+i)}
		rows = append(rows, studiotest.Row("game", machine, 1, uint64(i+1), &r, ""))
	}
	for i := range 3 {
		r := oplog.Record{ID: uint64(200 + i), Kind: oplog.KindLine, Level: oplog.LevelError, Source: "unity", Name: "Forest",
			Time: base.Add(time.Duration(20+i) * time.Second), Text: "Texture missing for Tree_5"}
		rows = append(rows, studiotest.Row("game", "ci-7", 1, uint64(50+i), &r, ""))
	}
	studiotest.Ingest(t, url, rows)
	c := mustStudio(t, url)
	d, err := c.Digest(context.Background(), oplog.StudioDigestQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Records != 15 || d.Levels["info"] != 12 || d.Levels["error"] != 3 || d.Capped {
		t.Errorf("digest: %d records, levels %v, capped %v; want 15, 12 info and 3 errors", d.Records, d.Levels, d.Capped)
	}
	if len(d.Names) != 2 || d.Names[0] != (oplog.NameCount{Source: "unity", Name: "Loader", Count: 12}) {
		t.Errorf("names = %+v", d.Names)
	}
	if len(d.Templates) == 0 || d.Templates[0].Template != "Loaded scene Main in <N> ms" || d.Templates[0].Count != 12 {
		t.Errorf("templates = %+v", d.Templates)
	}
	d, err = c.Digest(context.Background(), oplog.StudioDigestQuery{Sample: 5, Machine: "ci-7"})
	if err != nil || d.Records != 9 || !d.Capped || d.Read != 5 {
		t.Errorf("ci-7 sampled: %v, %d records, read %d, capped %v; want 9, 5, true", err, d.Records, d.Read, d.Capped)
	}
	if _, err := c.Digest(context.Background(), oplog.StudioDigestQuery{Filter: oplog.Filter{Runs: map[string]uint64{}}}); oplog.ErrorCode(err) != oplog.EINVALID {
		t.Errorf("runs: %v, want EINVALID", err)
	}
}
