package studio_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/studiotest"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestClient_Digest: a digest across two machines of a cluster counts
// levels, names and templates exactly (rows forwarded without a template
// counted by theirs, and said), names the noisiest template with its
// newest row, and a small sample says it was capped.
func TestClient_Digest(t *testing.T) {
	url := studiotest.StartCluster(t)
	var rows []map[string]any
	for i := range 12 {
		machine := []string{"alice-pc", "ci-7"}[i%2]
		r := oplog.Record{ID: uint64(100 + i), Kind: oplog.KindLine, Level: oplog.LevelInfo, Source: "unity", Name: "Loader",
			Time: base.Add(time.Duration(i) * time.Second), Text: fmt.Sprintf("Loaded scene Main in %d ms", 90+i)}
		row := studiotest.Row("game", machine, 1, uint64(i+1), &r, "")
		if i < 2 { // forwarded before rows carried templates
			delete(row, "template")
			delete(row, "template_text")
		}
		rows = append(rows, row)
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
	if len(d.Templates) != 2 || d.TemplateCount != 2 || d.Templates[0].Template != "Loaded scene Main in <N> ms" || d.Templates[0].Count != 12 ||
		d.Templates[0].ExampleID != 111 || d.Templates[1].Level != oplog.LevelError || d.Templates[1].Count != 3 {
		t.Errorf("templates = %+v", d.Templates)
	}
	if d.Untemplated != 2 || d.UntemplatedRead != 2 {
		t.Errorf("untemplated %d, read %d; want 2, 2", d.Untemplated, d.UntemplatedRead)
	}
	d, err = c.Digest(context.Background(), oplog.StudioDigestQuery{Sample: 5, Machine: "ci-7"})
	if err != nil || d.Records != 9 || !d.Capped || d.Read != 5 || d.Untemplated != 1 || d.Templates[0].Count != 6 {
		t.Errorf("ci-7 sampled: %v, %d records, read %d, capped %v, untemplated %d, templates %+v; want 9, 5, true, 1, Loaded ×6",
			err, d.Records, d.Read, d.Capped, d.Untemplated, d.Templates)
	}
	if _, err := c.Digest(context.Background(), oplog.StudioDigestQuery{Filter: oplog.Filter{Runs: map[string]uint64{}}}); oplog.ErrorCode(err) != oplog.EINVALID {
		t.Errorf("runs: %v, want EINVALID", err)
	}
}
