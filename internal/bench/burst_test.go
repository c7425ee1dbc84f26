package bench

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestBurst_Small runs the burst section on 1,000 lines against a real
// server and, when python3 is there, the SQLite baseline, and checks that
// every row of the burst table is printed with figures. VictoriaLogs'
// column is TestBurst_VictoriaLogs'.
func TestBurst_Small(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Dir: dir, Records: 3000, Runs: 1, Samples: 20}.withDefaults()
	r := &runner{cfg: cfg, dir: dir, started: time.Now(), vlBinary: func() string { return "" }}
	if err := r.measureBurst(context.Background()); err != nil {
		t.Fatalf("measureBurst: %v", err)
	}
	var out bytes.Buffer
	w := &errWriter{w: &out}
	r.reportBurst(w)
	if w.err != nil {
		t.Fatal(w.err)
	}
	report := out.String()
	_, noPython := exec.LookPath("python3")
	figure := `[0-9][0-9.,]* (µs|ms|s)`
	rows := []string{
		`## After a burst of 1,000 lines through HTTP`,
		`\| HTTP ingest, 4 clients × 1,000 lines per request \| [0-9][0-9,]* lines/s \(`,
		`\| index lag when the ingest ended: records in no index / not yet on disk \| [0-9][0-9,]* / [0-9][0-9,]* \|`,
		`\| index caught up \(every record in a term set\), no searches meanwhile: after the ingest's end \| ` + figure,
		`\| index caught up while searches run \([0-9]+ queries\): after the ingest's end \| ` + figure,
		`\| every record in the index on disk, no searches meanwhile: after the ingest's end \| ` + figure,
		`\| every record in the index on disk while searches run: after the ingest's end \| ` + figure,
		"\\| newest 50 `name=[^`]+` \\+ `level=(warn|error|fatal)` over HTTP, index caught up, p50 / p99 \\| " + figure + " / " + figure,
		"\\| newest 50 with the word `player` over HTTP, index caught up, p50 / p99 \\| " + figure + " / " + figure,
	}
	for _, sh := range r.burst.shapes {
		rows = append(rows, `\| search during the lag: `+regexp.QuoteMeta(sh.name)+`; first query \(records not on disk then\) / median / slowest \| `+
			figure+` \([0-9][0-9,]* records\) / `+figure+` / `+figure+`; [0-9]+ queries in 1 run\(s\) \|`)
	}
	if noPython == nil {
		rows = append(rows, `, \*\*[0-9.]+×\*\* SQLite \| SQLite [0-9.]+ WAL synchronous=FULL \+ FTS5 in process: [0-9][0-9,]* lines/s`,
			`SQLite in process \(name, level\): `+figure+" / "+figure, `SQLite in process \(FTS5\): `+figure+" / "+figure)
	} else {
		rows = append(rows, `SQLite rows skipped: python3 is not on the PATH`)
	}
	for _, re := range rows {
		if !regexp.MustCompile(re).MatchString(report) {
			t.Errorf("report lacks a match of %s", re)
		}
	}
	for _, bad := range []string{"NaN", "Inf", "%!", "| ? ", "not asked"} {
		if strings.Contains(report, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", report)
	}
}

func TestParseSQLite(t *testing.T) {
	run, err := parseSQLite([]byte(`{"lines": 3, "ingestSeconds": 0.5, "nameLevelMs": [0.1, 0.3, 0.2], "wordMs": [1],
		"nameLevelHits": 3, "wordHits": 1, "version": "3.40.1"}`))
	if err != nil || run.lines != 3 || run.rate() != 6 || run.nameLevel.p50 != 200*time.Microsecond || run.word.max != time.Millisecond {
		t.Errorf("parseSQLite = %+v, %v", run, err)
	}
	for _, bad := range []string{`not json`, `{"lines": 3}`, `{"lines": 3, "ingestSeconds": 1, "nameLevelMs": [1], "wordMs": [1]}`} {
		if _, err := parseSQLite([]byte(bad)); err == nil {
			t.Errorf("parseSQLite(%q) gave no error", bad)
		}
	}
}
