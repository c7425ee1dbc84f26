package bench

import (
	"bytes"
	"context"
	_ "embed" // the SQLite baseline's script
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// sqliteScript is the SQLite baseline: Python's sqlite3, WAL with
// synchronous=FULL and FTS5, the burst's lines in transactions of
// burstBatch, then the newest-50 reads in process.
//
//go:embed sqlite.py
var sqliteScript string

// sqliteRun is one run of the baseline.
type sqliteRun struct {
	lines     int
	ingest    time.Duration
	nameLevel latency
	word      latency
	version   string
}

func (s sqliteRun) rate() float64 { return float64(s.lines) / s.ingest.Seconds() }

// measureSQLite runs the baseline once on the burst's lines, unless python3
// is missing (the report then says the rows are skipped).
func (r *runner) measureSQLite(ctx context.Context) error {
	py, err := exec.LookPath("python3")
	if err != nil {
		r.burst.sqliteSkipped = "python3 is not on the PATH"
		r.progress("SQLite baseline skipped: %s", r.burst.sqliteSkipped)
		return nil
	}
	dir, remove, err := r.runDir("sqlite")
	if err != nil {
		return err
	}
	defer remove()
	d := r.burst.data
	src := filepath.Join(dir, "lines.ndjson")
	if err := os.WriteFile(src, []byte(d.ndjson), 0o600); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, py, "-", src, filepath.Join(dir, "logs.db"), strconv.Itoa(burstBatch),
		d.name, d.level, burstCommon, strconv.Itoa(min(r.cfg.Samples, 500)))
	cmd.Stdin = bytes.NewReader([]byte(sqliteScript))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("python3: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	run, err := parseSQLite(out)
	if err != nil {
		return err
	}
	if run.lines != d.lines {
		return fmt.Errorf("the script read %d lines, want %d", run.lines, d.lines)
	}
	r.burst.sqlite = append(r.burst.sqlite, run)
	r.progress("SQLite %s WAL synchronous=FULL + FTS5: %d lines in %.2fs, %.0f lines/s; newest 50 name+level p50 %s, word p50 %s",
		run.version, run.lines, run.ingest.Seconds(), run.rate(), dur(run.nameLevel.p50), dur(run.word.p50))
	return nil
}

// parseSQLite reads the script's answer.
func parseSQLite(out []byte) (sqliteRun, error) {
	var a struct {
		Lines         int       `json:"lines"`
		IngestSeconds float64   `json:"ingestSeconds"`
		NameLevelMs   []float64 `json:"nameLevelMs"`
		WordMs        []float64 `json:"wordMs"`
		NameLevelHits int       `json:"nameLevelHits"`
		WordHits      int       `json:"wordHits"`
		Version       string    `json:"version"`
	}
	if err := json.Unmarshal(out, &a); err != nil {
		return sqliteRun{}, fmt.Errorf("the script's answer %.200q: %w", out, err)
	}
	if a.IngestSeconds <= 0 || len(a.NameLevelMs) == 0 || len(a.WordMs) == 0 || a.NameLevelHits == 0 || a.WordHits == 0 {
		return sqliteRun{}, errors.New("the script's answer lacks figures or hits: " + string(out))
	}
	ms := func(v []float64) latency {
		d := make([]time.Duration, len(v))
		for i, x := range v {
			d[i] = time.Duration(x * float64(time.Millisecond))
		}
		return percentiles(d)
	}
	return sqliteRun{lines: a.Lines, ingest: time.Duration(a.IngestSeconds * float64(time.Second)),
		nameLevel: ms(a.NameLevelMs), word: ms(a.WordMs), version: a.Version}, nil
}
