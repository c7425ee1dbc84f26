package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The memory section ingests into a real data directory with both indexes,
// waits for the search index and reports figures from what it measured.
func TestMeasureMemory_Small(t *testing.T) {
	r := &runner{cfg: Config{Records: 3000, Dir: t.TempDir()}.withDefaults(), dir: t.TempDir()}
	if err := r.measureMemory(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := r.memory
	if m.records != 3000 || m.payload < 3000*100 || m.logBytes <= 0 || m.idxBytes <= 0 || m.peak.rss <= 0 || m.steady.rss <= 0 {
		t.Fatalf("measured %+v", m)
	}
	var out bytes.Buffer
	r.reportMemory(&errWriter{w: &out})
	for _, want := range []string{"## Memory and disk with the indexes, 3,000 records", "| log.db: size / per record / ÷ raw payload | ",
		"| index: size / per record", "| log + index ÷ raw payload", "| steady RSS < 300.0 MiB"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	for _, bad := range []string{"NaN", "Inf", "%!", "?"} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("report contains %q:\n%s", bad, out.String())
		}
	}
}
