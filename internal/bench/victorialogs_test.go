package bench

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/vlnode"
)

// smallBurst runs the burst section on 1,000 lines and returns its report.
func smallBurst(t *testing.T, vlBinary func() string) (*runner, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := Config{Dir: dir, Records: 3000, Runs: 1, Samples: 20}.withDefaults()
	r := &runner{cfg: cfg, dir: dir, started: time.Now(), vlBinary: vlBinary}
	if err := r.measureBurst(context.Background()); err != nil {
		t.Fatalf("measureBurst: %v", err)
	}
	var out bytes.Buffer
	w := &errWriter{w: &out}
	r.reportBurst(w)
	r.reportVL(w)
	if w.err != nil {
		t.Fatal(w.err)
	}
	return r, out.String()
}

// vlRows are the rows of the VictoriaLogs table, each with mcplogd's
// figure; vl is what the VictoriaLogs cells must match.
func vlRows(r *runner, vl map[string]string) []string {
	figure := `[0-9][0-9.,]* (µs|ms|s)`
	rows := []string{
		`## Beside VictoriaLogs, same burst`,
		`\| what \| mcplogd \| VictoriaLogs v[0-9.]+ \| SQLite \|`,
		`\| ingest, lines/s, 4 clients × 1,000 lines per request \| [0-9][0-9,]* \([0-9,]+ – [0-9,]+\); answered after fsync \| ` + vl["ingest"],
		`\| index catch-up after the ingest's end \| ` + figure + ` \(every record on disk; in a term set after ` + figure + `\) \| ` + vl["catchUp"],
		`\| disk: data folder ÷ JSON sent, settled \| [0-9.]+× \([0-9.]+ MiB of [0-9.]+ MiB sent; log.db [0-9]+ B/record, [0-9]+ of them free pages the next records reuse; index [0-9]+ B/record\) \| ` + vl["disk"],
		`\| RSS, settled \| [0-9.]+ MiB \(the benchmark's process; [0-9.]+ MiB before the server started\) \| ` + vl["rss"],
		`The fewest newest-50 reads of a shape in a run: mcplogd 20, VictoriaLogs ` + vl["reads"] + `\.`,
	}
	for _, sh := range r.burst.newestShapes {
		rows = append(rows, `\| newest 50, p50: `+regexp.QuoteMeta(sh.name)+` \| `+figure+` \| `+vl["newest"])
	}
	return rows
}

func checkRows(t *testing.T, report string, rows []string) {
	t.Helper()
	for _, re := range rows {
		if !regexp.MustCompile(re).MatchString(report) {
			t.Errorf("report lacks a match of %s", re)
		}
	}
	for _, bad := range []string{"NaN", "Inf", "%!", "?", "(MISSING)"} {
		if strings.Contains(report[strings.Index(report, "## Beside VictoriaLogs"):], bad) {
			t.Errorf("the VictoriaLogs table contains %q", bad)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("report:\n%s", report[strings.Index(report, "## Beside VictoriaLogs"):])
	}
}

// TestBurst_VictoriaLogs runs the small burst with the pinned VictoriaLogs
// beside mcplogd and checks that its column has a figure in every row. It
// is skipped when victoria-logs is not installed, and fails then with
// MCPLOGD_REQUIRE_VICTORIALOGS=1 or MCPLOGD_REQUIRE_EVERYTHING=1.
func TestBurst_VictoriaLogs(t *testing.T) {
	if vlnode.Binary() == "" {
		msg := "victoria-logs is not installed (scripts/need-victoria-logs)"
		if os.Getenv("MCPLOGD_REQUIRE_VICTORIALOGS") == "1" || os.Getenv("MCPLOGD_REQUIRE_EVERYTHING") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	r, report := smallBurst(t, nil)
	figure := `[0-9][0-9.,]* (µs|ms|s)`
	checkRows(t, report, vlRows(r, map[string]string{
		"ingest":  `[0-9][0-9,]* \([0-9,]+ – [0-9,]+\); answered once buffered \|`,
		"catchUp": figure + ` \(the newest line found\) \|`,
		"newest":  figure + ` \|`,
		"disk":    `[0-9.]+× \([0-9.]+ MiB of [0-9.]+ MiB sent; [0-9]+ B/record\) \|`,
		"rss":     `[0-9.]+ MiB \(the child process\) \|`,
		"reads":   `([5-9]|1[0-9]|20)`,
	}))
	if len(r.burst.vl) != 1 || r.burst.vl[0].bytes <= 0 || r.burst.vl[0].rss <= 0 && fileExists("/proc/self/status") {
		t.Errorf("VictoriaLogs runs = %+v, want one with bytes and an RSS", r.burst.vl)
	}
}

// TestBurst_VictoriaLogsMissing checks that without the binary the column
// says how to install it and the rest of the burst is measured as before.
func TestBurst_VictoriaLogsMissing(t *testing.T) {
	r, report := smallBurst(t, func() string { return "" })
	checkRows(t, report, vlRows(r, map[string]string{
		"ingest":  regexp.QuoteMeta(vlMissing) + ` \|`,
		"catchUp": `– \|`, "newest": `– \|`, "disk": `– \|`, "rss": `– \|`, "reads": `–`,
	}))
	if !strings.Contains(report, "## After a burst of 1,000 lines through HTTP") {
		t.Error("the burst table is missing")
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
